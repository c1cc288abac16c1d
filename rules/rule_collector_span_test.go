package rules

import "testing"

// TestParentSpanKeys: spans are found by (trace, span) whatever the span_id
// length (a fixed key up to spanMax bytes, a string key beyond), and a span
// of one trace is not a parent in another.
func TestParentSpanKeys(t *testing.T) {
	long := "span-0123456789abcdef0123456789" // longer than spanMax
	cases := []struct {
		name                  string
		trace2, span1, parent string
		dangling              bool
	}{
		{"short, same trace", "t1", "span-1", "span-1", false},
		{"long, same trace", "t1", long, long, false},
		{"short, other trace", "t2", "span-1", "span-1", true},
		{"long, other trace", "t2", long, long, true},
		{"long prefix of a short", "t1", "span-1", long[:spanMax+1], true},
		{"short unknown", "t1", "span-1", "span-2", true},
	}
	for _, c := range cases {
		st := (&collectorParentSpan{}).NewFile("", nil)
		rep := NewStreamReporter("CL101")
		str := func(s string) Value { return Value{Kind: ValueString, Str: []byte(s)} }
		st.Observe(&StreamRecord{Line: 1, Valid: true, Values: []Value{str("t1"), str(c.span1), {}}}, rep)
		st.Observe(&StreamRecord{Line: 2, Valid: true, Values: []Value{str(c.trace2), str("child"), str(c.parent)}}, rep)
		if got := len(rep.Take()); got != map[bool]int{false: 0, true: 1}[c.dangling] {
			t.Errorf("%s: %d findings, dangling %v", c.name, got, c.dangling)
		}
	}
}
