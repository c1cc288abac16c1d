package rules

import (
	"fmt"
	"testing"
)

// TestCollectorTypeOf: the remembered facts of an event type are those of
// the table and of unknownTypeOf, also when types share a slot and come in
// turn, and when the text a type was read from changes afterwards (a
// record's buffer is reused for the next chunk).
func TestCollectorTypeOf(t *testing.T) {
	types := []string{"decision.escalated", "system.metrics", "Hook.Bad", "hook.UPPER", "nonamespace", "x"}
	for known := range CollectorEventTypes {
		types = append(types, known)
	}
	for i := range 200 { // more types than slots: slots are shared and replaced
		types = append(types, fmt.Sprintf("activity.kind_%c%c", 'a'+i%26, 'a'+i/26))
	}
	for round := range 3 {
		for _, typ := range types {
			buf := []byte(typ)
			c := collectorTypeOf(string(buf))
			for i := range buf {
				buf[i] = '#'
			}
			status, known := CollectorEventTypes[typ]
			if c.t != typ || c.known != known || c.status != status {
				t.Fatalf("round %d, %q: got %q known %v status %q; want known %v status %q", round, typ, c.t, c.known, c.status, known, status)
			}
			wantUnknown := !known && (typ == "decision.escalated" || typ == "system.metrics" || len(typ) > 14 && typ[:14] == "activity.kind_")
			if (c.unknown != nil) != wantUnknown {
				t.Fatalf("%q: CL010 finding %v, want %v", typ, c.unknown != nil, wantUnknown)
			}
			if wantUnknown && c.unknown.reason != unknownTypeOf(typ).reason {
				t.Fatalf("%q: reason %q, want %q", typ, c.unknown.reason, unknownTypeOf(typ).reason)
			}
		}
	}
}

// TestCollectorTypesStay: the few dozen event types of a producer's logs
// (seed 004's 26 and types of its six namespaces outside the table) each
// keep a slot of their own once seen: a second pass over them finds every
// one where the first left it, so CL010 and CL012 make no new entry per
// record (with one slot per type, a third of the bench's records made one).
func TestCollectorTypesStay(t *testing.T) {
	for i := range collectorTypes {
		collectorTypes[i].Store(nil)
	}
	var types []string
	for known := range CollectorEventTypes {
		types = append(types, known)
	}
	for _, ns := range []string{"lifecycle", "activity", "coordination", "hook", "decision", "system"} {
		for _, name := range []string{"escalated", "metrics", "resumed", "lock_acquired"} {
			if _, ok := CollectorEventTypes[ns+"."+name]; !ok {
				types = append(types, ns+"."+name)
			}
		}
	}
	if len(types) < 48 {
		t.Fatalf("only %d types", len(types))
	}
	first := map[string]*collectorType{}
	for _, typ := range types {
		first[typ] = collectorTypeOf(typ)
	}
	for _, typ := range types {
		if c := collectorTypeOf(typ); c != first[typ] {
			t.Errorf("%q: a new entry on the second pass (%d types)", typ, len(types))
		}
	}
}
