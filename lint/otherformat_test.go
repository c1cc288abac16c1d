package lint

import (
	"testing"

	"github.com/agentlint/agentlint/lint/kind"
)

// TestOtherFormat pins the definition of "plainly another format" (AL011):
// the first line is a JSON object with none of the kind's identifying keys.
// Anything less clear is left to the records' own violations.
func TestOtherFormat(t *testing.T) {
	collector := kind.Lookup("collector/event")
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"timestamp":"2025-12-14T17:04:38Z","decision_id":"D-1","status":"executed"}` + "\n{}\n", true},
		{"\ufeff" + `{"decision_id":"D-1"}`, true},                              // a byte-order mark is not content
		{"\n\n" + `{"decision_id":"D-1"}` + "\n", true},                         // leading blank lines
		{`{"agent_id":"@a","decision_id":"D-1"}` + "\n", false},                 // one identifying key: judged record by record
		{`{"version":"1.0.0","event_type":"decision.made"}`, false},             // a collector event missing fields
		{`[1,2,3]` + "\n", false},                                               // not an object
		{`{"decision_id":` + "\n", false},                                       // not whole JSON
		{"", false},                                                             // empty
		{`{"decision_id":"D-1","x":{"version":"1.0.0","agent_id":"@a"}}`, true}, // nested keys do not count
	} {
		if got := kind.OtherFormat(collector, []byte(c.head)); got != c.want {
			t.Errorf("OtherFormat(collector/event, %q) = %v, want %v", c.head, got, c.want)
		}
	}
	// Every JSON Lines kind has identifying keys; documents are not judged.
	for _, k := range kind.All {
		if k.Format == kind.FormatJSONL && len(k.IdentifyingKeys()) == 0 {
			t.Errorf("%s has no identifying keys", k.Name)
		}
		if k.Format != kind.FormatJSONL && kind.OtherFormat(k, []byte(`{"zz":1}`)) {
			t.Errorf("%s: a document kind is judged", k.Name)
		}
	}
}
