package rules

import "testing"

func TestIdleRules(t *testing.T) {
	s := func(old, repl string) string { return opRepl(t, idleState, old, repl) }
	a := func(old, repl string) string { return opRepl(t, idleAnchor, old, repl) }
	const k = "idle/event"
	// opNow is 2026-02-14T20:00:00Z.
	fresh := s(`2024-12-21T10:00:00Z`, `2026-02-14T18:00:00Z`)
	famRunCases(t, "IL", []famCase{
		{name: "fresh STATE", kind: k, js: fresh},
		{name: "ANCHOR", kind: k, js: idleAnchor},
		{name: "IL010 schema 1", kind: k, js: opRepl(t, fresh, `"schema":0`, `"schema":1`), want: []string{"IL010 /schema"}},
		{name: "IL013 stale", kind: k, js: idleState, want: []string{"IL013 /updated_at"}},
		{name: "IL013 exactly 2 h is fresh", kind: k, js: fresh},
		{name: "IL013 2 h and 1 s", kind: k, js: s(`2024-12-21T10:00:00Z`, `2026-02-14T17:59:59Z`), want: []string{"IL013 /updated_at"}},
		{name: "IL013 offset counts", kind: k, js: s(`2024-12-21T10:00:00Z`, `2026-02-14T20:00:00+02:00`)},
		{name: "IL012 run mode differs", kind: k, js: opRepl(t, fresh, `"run_id":"loop-`, `"run_id":"issue-`), want: []string{"IL012 /run_id"}},
		{name: "IL015 iter above max", kind: k, js: opRepl(t, fresh, `"iter":3`, `"iter":11`), want: []string{"IL015 /stack/0/iter"}},
		{name: "IL015 iter equals max", kind: k, js: opRepl(t, fresh, `"iter":3`, `"iter":10`)},
		{name: "IL011 current above max", kind: k, js: a(`"3/10"`, `"11/10"`), want: []string{"IL011 /iteration"}},
		{name: "IL011 current 0", kind: k, js: a(`"3/10"`, `"0/10"`), want: []string{"IL011 /iteration"}},
		{name: "IL011 long numbers", kind: k, js: a(`"3/10"`, `"99999999999999999999/100000000000000000000"`)},
		{name: "IL011 event ANCHOR", kind: k, js: a(`"schema":0,`, `"schema":0,"event":"ANCHOR",`)},
		{name: "IL011 not an ANCHOR", kind: k, js: `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[],"iteration":"11/10"}`},
		{name: "IL014 unknown event", kind: k, js: `{"schema":0,"event":"STOP","stack":[]}`, want: []string{"IL014 /event"}},
	})
}
