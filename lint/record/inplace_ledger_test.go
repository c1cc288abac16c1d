package record

import (
	"strings"
	"testing"
	"time"
)

// ledgerLine is an accepted ledger entry (seed 003) of agent cls.
const ledgerLine = `{"ts":"2026-02-14T09:00:00.000+00:00","agent":"cls","session_id":"2026-02-14_cls_001","event":"task_result","task_id":"wo-000001","source":"gg_orchestrator","summary":"Redirect loop fixed","data":{"status":"success","duration_sec":2520}}`

// TestLedgerInPlaceAgreesWithDecoded: the ledger entry rules (LG010,
// LG011, LG012) decide in place that an accepted entry has no finding, and
// find on the decoded entry what the decoded path finds, with the same
// reasons, pointers and details, in a ledger folder and elsewhere.
func TestLedgerInPlaceAgreesWithDecoded(t *testing.T) {
	r := func(old, repl string) string { return strings.Replace(ledgerLine, old, repl, 1) }
	cases := []struct {
		file, line string
		want       string // the violations' rules and pointers
	}{
		{"f.jsonl", ledgerLine, ""},
		{"g/ledger/cls/2026-02-14.jsonl", ledgerLine, ""},
		{"g/ledger/andy/2026-02-14.jsonl", ledgerLine, "LG012 /agent"},
		{"f.jsonl", r(`"2026-02-14_cls_001"`, `"2026-02-14_andy_001"`), "LG010 /session_id"},
		{"f.jsonl", r(`"2026-02-14_cls_001"`, `"2026-02-13_cls_001"`), "LG011 /session_id"},
		{"f.jsonl", r(`"ts":"2026-02-14T09:00:00.000+00:00"`, `"ts":"2026-02-15T01:00:00.000+09:00"`), "LG011 /session_id"},
		// Escapes: the same strings, written otherwise.
		{"g/ledger/cls/2026-02-14.jsonl", r(`"agent":"cls"`, `"agent":"c\u006cs"`), ""},
		{"g/ledger/andy/2026-02-14.jsonl", r(`"agent":"cls"`, `"agent":"c\u006cs"`), "LG012 /agent"},
		{"f.jsonl", r(`"2026-02-14_cls_001"`, `"2026-02-14_\u0063ls_001"`), ""},
		{"f.jsonl", r(`"2026-02-14_cls_001"`, `"2026-02-14_\u0061ndy_001"`), "LG010 /session_id"},
		// A session_id that is not of the seed's form: the schema's finding.
		{"f.jsonl", r(`"2026-02-14_cls_001"`, `"session-7"`), "LG003 /session_id"},
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	for _, c := range cases {
		v := NewValidator(Options{Now: now}, nil)
		got := v.RecordLine("ledger/entry", c.file, []byte(c.line), 7)
		if v.accepted && v.ldoc.Flat == nil {
			t.Errorf("%s: accepted but not read in place: %s", c.file, c.line)
		}
		var found []string
		for _, x := range got {
			found = append(found, x.Rule+" "+x.Pointer)
		}
		if s := strings.Join(found, ", "); s != c.want {
			t.Errorf("%s: violations %q, want %q: %s", c.file, s, c.want, c.line)
		}
		d := NewValidator(Options{Now: now}, nil)
		d.plan("ledger/entry").inPlace = false
		if a, b := violationsText(got), violationsText(d.RecordLine("ledger/entry", c.file, []byte(c.line), 7)); a != b {
			t.Errorf("%s: %s\n in place: %s\n decoded:  %s", c.file, c.line, a, b)
		}
	}
}
