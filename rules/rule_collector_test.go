package rules

import (
	"strings"
	"testing"
)

func TestCollectorEventTypes(t *testing.T) {
	// Seed 004's reference table has 26 rows although its heading says 22.
	if n := len(CollectorEventTypes); n != 26 {
		t.Fatalf("%d known event types, want 26", n)
	}
	perNS := map[string]int{}
	for typ := range CollectorEventTypes {
		ns, _, _ := strings.Cut(typ, ".")
		perNS[ns]++
	}
	want := map[string]int{"lifecycle": 4, "activity": 3, "coordination": 3, "hook": 10, "decision": 3, "system": 3}
	for ns, n := range want {
		if perNS[ns] != n {
			t.Errorf("namespace %s: %d types, want %d", ns, perNS[ns], n)
		}
	}
}

func TestCollectorRules(t *testing.T) {
	e := func(old, repl string) string { return opRepl(t, collectorEvent, old, repl) }
	const k = "collector/event"
	famRunCases(t, "CL", []famCase{
		{name: "seed", kind: k, js: collectorEvent},
		{name: "seed strict", kind: k, js: collectorEvent, strict: true},
		{name: "CL010 unknown type", kind: k, js: e(`lifecycle.started`, `lifecycle.paused`), want: []string{"CL010 /event_type"}},
		{name: "CL011 unknown type strict", kind: k, js: e(`lifecycle.started`, `lifecycle.paused`), strict: true, want: []string{"CL011 /event_type"}},
		{name: "CL010 every known type", kind: k, js: e(`lifecycle.started`, `hook.pre_compact`)},
		{name: "CL012 status contradicts", kind: k, js: e(`"source"`, `"status":"completed","source"`), want: []string{"CL012 /status"}},
		{name: "CL012 status agrees", kind: k, js: e(`"source"`, `"status":"started","source"`)},
		{name: "CL012 hook status agrees", kind: k, js: e(`"lifecycle.started"`, `"hook.post_tool_use","status":"progress"`)},
		{name: "CL012 hook status contradicts", kind: k, js: e(`"lifecycle.started"`, `"hook.post_tool_use","status":"tool_use"`),
			want: []string{"CL012 /status"}},
		{name: "CL012 no equivalent", kind: k, js: e(`"lifecycle.started"`, `"lifecycle.terminated","status":"error"`)},
		{name: "CL012 unknown type: no equivalent", kind: k, js: e(`"lifecycle.started"`, `"lifecycle.paused","status":"error"`),
			want: []string{"CL010 /event_type"}},
		{name: "CL013 leap second at 23:59:60Z", kind: k, js: e(`2025-12-13T20:45:00.123Z`, `2016-12-31T23:59:60Z`)},
		{name: "CL013 leap second in an offset", kind: k, js: e(`2025-12-13T20:45:00.123Z`, `2017-01-01T06:59:60.5+07:00`)},
		{name: "CL013 leap second at another minute", kind: k, js: e(`2025-12-13T20:45:00.123Z`, `2025-12-13T20:45:60Z`),
			want: []string{"CL013 /timestamp"}},
	})
}
