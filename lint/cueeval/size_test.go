//go:build cueengine || devtools

package cueeval

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// collectorWith returns a collector event whose metadata holds n members,
// or an array of n elements.
func collectorWith(n int, array bool) []byte {
	var b strings.Builder
	b.WriteString(`{"version":"1.0.0","event_type":"activity.tool_use","timestamp":"2026-01-06T12:00:00.000Z","agent_id":"@a","metadata":{`)
	if array {
		b.WriteString(`"a":[`)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if array {
			fmt.Fprintf(&b, "%d", i)
		} else {
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
	}
	if array {
		b.WriteString("]")
	}
	b.WriteString("}}")
	return []byte(b.String())
}

// TestSizeBound: the CUE evaluator's time grows with the square of the
// number of members of one object (or elements of one array); a payload
// beyond MaxMembers in one of them, or MaxValues in all, is refused at once
// with one finding (AL012, MISSING_REQUIRED_INPUT) instead of minutes of
// evaluation; one at the bound is evaluated.
func TestSizeBound(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, array := range []bool{false, true} {
		st := time.Now()
		vs := e.Validate("collector/event", collectorWith(MaxMembers+1, array), false)
		if len(vs) != 1 || vs[0].Rule != "AL012" || !strings.Contains(vs[0].Reason, "--engine fast") {
			t.Fatalf("array %v, over the bound: %+v", array, vs)
		}
		if d := time.Since(st); d > 2*time.Second {
			t.Errorf("array %v: refusing took %v", array, d)
		}
		if vs := e.Validate("collector/event", collectorWith(MaxMembers, array), false); len(vs) != 0 {
			t.Errorf("array %v, at the bound: %+v", array, vs)
		}
	}
	// Many containers, each under the bound, over MaxValues in all.
	var b strings.Builder
	b.WriteString(`{"version":"1.0.0","event_type":"activity.tool_use","timestamp":"2026-01-06T12:00:00.000Z","agent_id":"@a","metadata":{`)
	for a := 0; a <= MaxValues/MaxMembers; a++ {
		if a > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"a%d":[%s0]`, a, strings.Repeat("0,", MaxMembers-1))
	}
	b.WriteString("}}")
	if vs := e.Validate("collector/event", []byte(b.String()), false); len(vs) != 1 || vs[0].Rule != "AL012" {
		t.Errorf("over MaxValues: %+v", vs)
	}
}
