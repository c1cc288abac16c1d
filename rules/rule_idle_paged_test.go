package rules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestIdlePagedState: IL100 and IL101 report the same findings whether
// their runs and frames stay in memory or all but the last 64 of their
// index entries and all but a few pages go to temporary files (hundreds
// of runs, ended, reopened and revisited long after).
func TestIdlePagedState(t *testing.T) {
	run := func(spill bool) []StreamFinding {
		ends := idleAfterEnd{}.NewFile("idle.jsonl", nil).(*idleAfterEndState)
		iters := idleIter{}.NewFile("idle.jsonl", nil).(*idleIterState)
		residentPages = 8
		if spill {
			residentPages = 2
			dir := t.TempDir()
			for _, s := range []*pagedStrings{ends.runs, iters.pairs} {
				s.hotMax, s.disk.dirName = 64, dir
			}
			ends.pf.dirName, iters.pf.dirName = dir, dir
		}
		var got []StreamFinding
		r := &StreamReporter{on: true, sink: &streamSink{emit: func(f StreamFinding) { got = append(got, f) }}}
		rnd := rand.New(rand.NewPCG(11, 12))
		for line := 1; line <= 30000; line++ {
			rec := &StreamRecord{Line: line, Valid: true, Values: make([]Value, 3)}
			rec.Values[0] = Value{Type: ValueString, Str: []byte("STATE")}
			switch k := rnd.IntN(10); {
			case k == 0:
				rec.Values[0].Str = []byte("DONE")
			case k == 1:
				rec.Values[0].Str = []byte("ABORT")
			default:
				id := rnd.IntN(3000)
				if k < 6 {
					id = line / 10
				}
				runID := fmt.Sprintf("grind-%d-%s", id, strings.Repeat("x", 40))
				stack := fmt.Sprintf(`[{"id":%q,"iter":%d},{"id":"issue-%d","iter":%d}]`, runID, rnd.IntN(50), rnd.IntN(3), rnd.IntN(50))
				rec.Values[1] = Value{Type: ValueString, Str: []byte(runID), Column: 30}
				rec.Values[2] = Value{Type: ValueRaw, Str: []byte(stack), Column: 60}
			}
			ends.Observe(rec, r)
			iters.Observe(rec, r)
		}
		if spill && (len(ends.runs.disk.runs) == 0 || len(iters.pairs.disk.runs) == 0 || ends.pf.slots == 0 || iters.pf.slots == 0) {
			t.Errorf("nothing went to disk: runs %d, %d; pages %d, %d",
				len(ends.runs.disk.runs), len(iters.pairs.disk.runs), ends.pf.slots, iters.pf.slots)
		}
		ends.Finish(r)
		iters.Finish(r)
		return got
	}
	mem, disk := run(false), run(true)
	if len(mem) < 1000 {
		t.Fatalf("only %d findings: the test does not exercise IL100 and IL101", len(mem))
	}
	if !reflect.DeepEqual(mem, disk) {
		for i := range min(len(mem), len(disk)) {
			if !reflect.DeepEqual(mem[i], disk[i]) {
				t.Fatalf("finding %d: in memory %+v, on disk %+v", i, mem[i], disk[i])
			}
		}
		t.Fatalf("%d findings in memory, %d on disk", len(mem), len(disk))
	}
}
