package lint

import (
	"reflect"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestValidatePayloadWithReusedValidator: one Validator reused for payloads
// of different clocks (record.Validator.SetNow, as serve's pool does) judges
// each at its own clock, as a new Validator per payload would.
func TestValidatePayloadWithReusedValidator(t *testing.T) {
	state := []byte(`{"schema":0,"event":"STATE","run_id":"loop-1703123456-12345","updated_at":"2024-12-21T10:00:00Z","stack":[{"id":"loop-1703123456-12345","mode":"loop","iter":3,"max":10,"prompt_file":"/tmp/idle-loop-xxx/prompt.txt"}]}`)
	k := kind.Lookup("idle/event")
	v := record.NewValidator(record.Options{}, nil)
	for i, c := range []struct {
		now   time.Time
		stale bool
	}{
		{time.Date(2024, 12, 21, 10, 30, 0, 0, time.UTC), false},
		{time.Date(2024, 12, 21, 13, 0, 0, 0, time.UTC), true}, // more than 2 hours after updated_at (IL013)
		{time.Date(2024, 12, 21, 11, 0, 0, 0, time.UTC), false},
	} {
		v.SetNow(c.now)
		got := ValidatePayloadWith(v, k, "-", state)
		want := ValidatePayload(k, "-", state, record.Options{Now: c.now}, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("payload %d: reused validator %+v, new validator %+v", i, got, want)
		}
		vs, _ := got.Details["violations"].([]envelope.Violation)
		if stale := len(vs) == 1 && vs[0].Rule == "IL013"; stale != c.stale {
			t.Errorf("payload %d at %s: stale %v, want %v (%+v)", i, c.now, stale, c.stale, got)
		}
	}
}
