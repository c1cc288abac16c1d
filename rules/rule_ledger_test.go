package rules

import "testing"

func TestSplitSessionID(t *testing.T) {
	for _, c := range []struct{ id, date, agent, counter string }{
		{"2025-11-16_cls_001", "2025-11-16", "cls", "001"},
		{"2025-11-16_gg_orchestrator_012", "2025-11-16", "gg_orchestrator", "012"},
		{"2025-11-16_a-b_999", "2025-11-16", "a-b", "999"},
	} {
		d, a, n, ok := SplitSessionID(c.id)
		if !ok || d != c.date || a != c.agent || n != c.counter {
			t.Errorf("SplitSessionID(%q) = %q %q %q %v", c.id, d, a, n, ok)
		}
	}
	for _, bad := range []string{"", "2025-11-16", "2025-11-16_001", "2025-11-16-cls_001", "2025-11-16__001"} {
		if _, _, _, ok := SplitSessionID(bad); ok {
			t.Errorf("SplitSessionID(%q): ok", bad)
		}
	}
}

func TestLedgerRules(t *testing.T) {
	e := func(old, repl string) string { return opRepl(t, ledgerEntry, old, repl) }
	s := func(old, repl string) string { return opRepl(t, ledgerStatus, old, repl) }
	famRunCases(t, "LG", []famCase{
		{name: "seed entry", kind: "ledger/entry", file: "g/ledger/cls/2025-11-16.jsonl", js: ledgerEntry},
		{name: "seed status", kind: "ledger/status", file: "agents/cls/status.json", js: ledgerStatus},
		{name: "LG010 session of another agent", kind: "ledger/entry", js: e(`_cls_`, `_andy_`), want: []string{"LG010 /session_id"}},
		{name: "LG010 agent with underscore", kind: "ledger/entry",
			js: e(`"agent":"cls","session_id":"2025-11-16_cls_001"`, `"agent":"gg_bot","session_id":"2025-11-16_gg_bot_001"`)},
		{name: "LG010 agent is a suffix of the session agent", kind: "ledger/entry",
			js: e(`"agent":"cls","session_id":"2025-11-16_cls_001"`, `"agent":"bot","session_id":"2025-11-16_gg_bot_001"`), want: []string{"LG010 /session_id"}},
		{name: "LG010 status", kind: "ledger/status", js: s(`_cls_`, `_andy_`), want: []string{"LG010 /session_id"}},
		{name: "LG010 status without session", kind: "ledger/status", js: s(`"session_id":"2025-11-16_cls_001",`, ``)},
		{name: "LG011 session date differs", kind: "ledger/entry", js: e(`"2025-11-16T02:10:00+07:00"`, `"2025-11-15T20:10:00-05:00"`),
			want: []string{"LG011 /session_id"}},
		// 2025-11-15T19:10Z is 2025-11-16 in +07:00: the offset of ts decides.
		{name: "LG011 date in ts's own offset", kind: "ledger/entry", js: e(`"2025-11-16T02:10:00+07:00"`, `"2025-11-16T02:10:00+07:00"`)},
		{name: "LG012 folder of another agent", kind: "ledger/entry", file: "g/ledger/andy/2025-11-16.jsonl", js: ledgerEntry,
			want: []string{"LG012 /agent"}},
		{name: "LG012 absolute path", kind: "ledger/entry", file: "/srv/g/ledger/andy/2025-11-16.jsonl", js: ledgerEntry,
			want: []string{"LG012 /agent"}},
		{name: "LG012 windows path", kind: "ledger/entry", file: `g\ledger\andy\2025-11-16.jsonl`, js: ledgerEntry,
			want: []string{"LG012 /agent"}},
		{name: "LG012 near miss: not a ledger folder", kind: "ledger/entry", file: "g/logs/andy/2025-11-16.jsonl", js: ledgerEntry},
		{name: "LG012 near miss: not a day file", kind: "ledger/entry", file: "g/ledger/andy/entries.jsonl", js: ledgerEntry},
		{name: "LG012 near miss: stdin", kind: "ledger/entry", file: "-", js: ledgerEntry},
		{name: "LG013 status of another agent", kind: "ledger/status", file: "agents/andy/status.json", js: ledgerStatus,
			want: []string{"LG013 /agent"}},
		{name: "LG013 near miss: other file name", kind: "ledger/status", file: "agents/andy/state.json", js: ledgerStatus},
		{name: "LG014 error with null last_error", kind: "ledger/status", js: s(`"idle"`, `"error"`), want: []string{"LG014 /last_error"}},
		{name: "LG014 error without last_error", kind: "ledger/status",
			js: opRepl(t, s(`"idle"`, `"error"`), `,"last_error":null`, ``), want: []string{"LG014 /state"}},
		{name: "LG014 error with last_error", kind: "ledger/status", js: opRepl(t, s(`"idle"`, `"error"`), `null`, `"Task failed"`)},
		{name: "LG014 near miss: idle with null", kind: "ledger/status", js: ledgerStatus},
	})
}
