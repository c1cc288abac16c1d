package record

import (
	"reflect"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// TestFillChecked: FillChecked gives what Fill gives for texts without a
// secret (codes, severities from the registry and the configuration,
// rules switched off dropped, texts emptied when only counted) and leaves
// the texts as they are: it does not scan them.
func TestFillChecked(t *testing.T) {
	mk := func() []envelope.Violation {
		return []envelope.Violation{
			{Rule: "CL101", Pointer: "/correlation/parent_span_id", Line: 3, Column: 9, Reason: `parent_span_id "a" names no span_id of trace_id "t"`, Extra: map[string]any{"trace_id": "t"}},
			{Rule: "CL100", Pointer: "/event_id", Line: 3, Column: 2, Reason: `event_id "x" was already used on line 1`},
			{Rule: "CL102", Pointer: "/timestamp", Line: 3, Column: 5, Reason: "earlier"},
		}
	}
	for _, opts := range []Options{
		{},
		{Severity: map[string]string{"CL101": "error", "CL102": "off"}},
		{CountOnly: true},
	} {
		v := NewValidator(opts, noSchema{})
		want := v.Fill(mk())
		got := v.FillChecked(mk())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: FillChecked\n%+v\nFill\n%+v", opts, got, want)
		}
	}
	v := NewValidator(Options{}, noSchema{})
	secret := "token=" + "hunter2hunter2"
	vs := []envelope.Violation{{Rule: "CL101", Reason: `parent_span_id "` + secret + `"`}}
	if got := v.FillChecked(vs); got[0].Reason != vs[0].Reason || got[0].Code == "" {
		t.Errorf("FillChecked changed the reason or left the code: %+v", got[0])
	}
	if got := v.Fill(vs); got[0].Reason == `parent_span_id "`+secret+`"` {
		t.Errorf("Fill did not redact %q", got[0].Reason)
	}
}

// noSchema is a schema engine that finds nothing.
type noSchema struct{}

func (noSchema) Schema(string, []byte, int, bool) []envelope.Violation { return nil }
