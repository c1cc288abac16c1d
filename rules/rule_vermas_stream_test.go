package rules

import (
	"strings"
	"testing"
)

// TestIDTable: ids up to 16 bytes are kept inline, longer ones and ids with
// NUL bytes as strings; padding never makes two ids equal; lookups with a
// []byte key do not allocate.
func TestIDTable(t *testing.T) {
	tb := newIDTable()
	ids := []string{"", "a", "a\x00", "evt-abc123def456", "evt-abc123def4567", "evt-abc123def456\x00", strings.Repeat("x", 40)}
	for i, id := range ids {
		if _, dup := tb.add([]byte(id), uint32(i+1)); dup {
			t.Fatalf("%q reported as a duplicate", id)
		}
	}
	for i, id := range ids {
		v, ok := tb.get([]byte(id))
		if !ok || v != uint32(i+1) {
			t.Errorf("get(%q) = %d, %v; want %d", id, v, ok, i+1)
		}
		if prev, dup := tb.add([]byte(id), 99); !dup || prev != uint32(i+1) {
			t.Errorf("add(%q) again = %d, %v", id, prev, dup)
		}
	}
	if tb.len() != len(ids) || len(tb.short) != 3 {
		t.Errorf("len %d (short %d), want %d (3 inline)", tb.len(), len(tb.short), len(ids))
	}
	if _, ok := tb.get([]byte("b")); ok {
		t.Error("unknown id found")
	}
	key := []byte("evt-abc123def4567")
	short := []byte("evt-abc123def456")
	if n := testing.AllocsPerRun(100, func() { tb.get(key); tb.get(short) }); n != 0 {
		t.Errorf("lookups allocate %v times", n)
	}
}

// TestVermasCheckFields: each kind's fields are in the union that
// RegisterStream checked, and the check serves every VM1nn stream rule.
func TestVermasCheckFields(t *testing.T) {
	union := map[Field]bool{}
	for _, f := range theVermasCheck.Fields() {
		if union[f] {
			t.Errorf("field %v twice in the union", f)
		}
		union[f] = true
	}
	for _, k := range []string{vmKindEvent, vmKindWorkOrder, vmKindMessage, vmKindRoute, vmKindAssignment, vmKindTemplate, vmKindProcess} {
		fs := theVermasCheck.KindFields(k)
		if len(fs) == 0 {
			t.Errorf("%s: no fields", k)
		}
		for _, f := range fs {
			if !union[f] {
				t.Errorf("%s: field %v not in the union", k, f)
			}
		}
	}
	n := 0
	for _, r := range All() {
		if strings.HasPrefix(r.ID, "VM1") {
			n++
			if Stream(r.ID) != StreamRule(theVermasCheck) {
				t.Errorf("%s is not served by the VerMAS check", r.ID)
			}
		}
	}
	if n != 21 {
		t.Errorf("%d VM1nn rules, want 21", n)
	}
}

// TestVmEventsTextReuse: a text added again a few events later keeps its
// number (recentTexts) and reads back the same; the cache holds a copy, so
// a caller's buffer changed afterwards is a new text; texts too long for
// the cache are added again, and read back alike.
func TestVmEventsTextReuse(t *testing.T) {
	e := (&vermasCheck{}).NewKindFile("feed.jsonl", vmKindEvent, nil).(*vmEvents)
	defer e.release()
	buf := []byte("project-a/workers/slot3")
	n := e.text(buf)
	if again := e.text([]byte("project-a/workers/slot3")); again != n {
		t.Errorf("same text: number %d, then %d", n, again)
	}
	buf[0] = 'X'
	if m := e.text(buf); m == n || e.str(m) != "Xroject-a/workers/slot3" {
		t.Errorf("changed buffer: number %d (first %d), text %q", m, n, e.str(m))
	}
	if got := e.str(n); got != "project-a/workers/slot3" {
		t.Errorf("text %d = %q", n, got)
	}
	long := "Improve parser cache rate cache and more"
	a, b := e.text([]byte(long)), e.text([]byte(long))
	if e.str(a) != long || e.str(b) != long {
		t.Errorf("long text reads %q and %q", e.str(a), e.str(b))
	}
	if e.text(nil) != 0 || e.str(0) != "" {
		t.Error("empty text is not 0")
	}
}
