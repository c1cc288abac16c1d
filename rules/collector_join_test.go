package rules

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMergeJoin: mergeJoin finds exactly the references whose key and
// first word name a span, when many keys collide (groups of one to dozens
// of spans, sorted or not, repeated), whatever the runs (written, merged
// by fan-in, in memory) and their order within a key.
func TestMergeJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for round := range 20 {
		keys := uint64(2 + r.IntN(40))
		spans := &idRuns{dirName: t.TempDir()}
		refs := &idRuns{dirName: t.TempDir()}
		has := map[[2]uint64]bool{}
		gen := func(n int, refIdx *int) []idEntry {
			ents := make([]idEntry, n)
			for i := range ents {
				k, w := uint64(r.IntN(int(keys)))*0x9e3779b97f4a7c15, uint64(1+r.IntN(12))
				ents[i] = idEntry{key: k, off: w}
				if refIdx != nil {
					ents[i].off |= uint64(*refIdx) << 32
					*refIdx++
				} else {
					has[[2]uint64{k, w}] = true
				}
			}
			// In key order, in any order within a key.
			slices.SortStableFunc(ents, func(a, b idEntry) int {
				if a.key < b.key {
					return -1
				}
				if a.key > b.key {
					return 1
				}
				return 0
			})
			return ents
		}
		for range r.IntN(6) {
			if !spans.addSorted(gen(1+r.IntN(300), nil), 2+r.IntN(3)) {
				t.Fatal("run not written")
			}
		}
		n := 0
		for range r.IntN(5) {
			if !refs.addSorted(gen(1+r.IntN(300), &n), 2+r.IntN(3)) {
				t.Fatal("run not written")
			}
		}
		hot, mem := gen(r.IntN(100), nil), gen(r.IntN(100), &n)
		var want, got []int
		for _, src := range []*idRuns{refs} {
			sc := src.scan(mem)
			for e, ok := sc.next(); ok; e, ok = sc.next() {
				if has[[2]uint64{e.key, e.off & (1<<32 - 1)}] {
					want = append(want, int(e.off>>32))
				}
			}
		}
		mergeJoin(refs.scan(mem), spans.scan(hot), func(off uint64) { got = append(got, int(off>>32)) })
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %d references found, want %d", round, len(got), len(want))
		}
		if spans.err != nil || refs.err != nil {
			t.Fatal(spans.err, refs.err)
		}
		spans.free()
		refs.free()
	}
}

// TestParentSpanLost: when the spans on disk cannot be read back at the
// end of the run, CL101 reports that its checks are incomplete and no
// finding it could not decide.
func TestParentSpanLost(t *testing.T) {
	run := &LintRun{}
	c := (&collectorParentSpan{}).BindRun(run).(*collectorParentSpan)
	s := c.run
	s.hotMax, s.disk.dirName = 8, t.TempDir()
	rep := NewStreamReporter("CL101")
	st := c.NewFile("a.jsonl", nil)
	for i := range 100 {
		vals := []Value{{Type: ValueString, Str: []byte("t")}, {Type: ValueString, Str: fmt.Appendf(nil, "s%d", i)}, {Type: ValueString, Str: fmt.Appendf(nil, "s%d", i+50)}}
		st.Observe(&StreamRecord{Line: i + 1, Valid: true, Values: vals}, rep)
	}
	st.Finish(rep)
	tree := c.NewTree(nil)
	tree.AddFile("a.jsonl", st)
	if len(s.disk.runs) == 0 {
		t.Fatal("no span on disk")
	}
	for _, r := range s.disk.runs {
		r.f.Close()
	}
	tree.Finish(rep)
	got := rep.Take()
	if len(got) != 1 || !strings.HasPrefix(got[0].Reason, "the span_ids of this run could not be read back") {
		t.Errorf("%d findings, want 1 saying the spans could not be read back: %v", len(got), got)
	}
}

// TestCollectorDupIDOnDisk: CL100 on records that can be read again, with
// 16 UUIDs in memory and the rest on disk (or a directory where no run
// can be made), reports exactly the repeats a map of lowercase UUIDs
// finds, with the line of the first occurrence; when its runs cannot be
// read back, it says its checks are incomplete.
func TestCollectorDupIDOnDisk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var data bytes.Buffer
	type rec struct {
		line int
		off  int64
		id   string
	}
	var recs []rec
	for i := range 2000 {
		id := fmt.Sprintf("6f1c2a3e-0b4d-4c8e-9a71-%012x", r.IntN(1500))
		if i%3 == 0 {
			id = strings.ToUpper(id)
		}
		recs = append(recs, rec{i + 1, int64(data.Len()), id})
		fmt.Fprintf(&data, `{"event_id":%q}`+"\n", id)
	}
	src := &memSource{data: data.Bytes()}
	for _, dir := range []string{"ok", "missing", "lost"} {
		st := collectorDupID{}.NewFile("", nil).(*collectorDupIDState)
		st.hotMax, st.disk.dirName = 16, t.TempDir()
		if dir == "missing" {
			st.disk.dirName += "/missing"
		}
		rep := NewStreamReporter("CL100")
		var got, want []string
		first := map[string]int{}
		for i, x := range recs {
			if f, ok := first[strings.ToLower(x.id)]; ok {
				want = append(want, fmt.Sprintf("%d:%d", x.line, f))
			} else {
				first[strings.ToLower(x.id)] = x.line
			}
			st.Observe(&StreamRecord{Line: x.line, Offset: x.off, Source: src, Valid: true, Values: []Value{{Type: ValueString, Str: []byte(x.id), Column: 14}}}, rep)
			if i%50 == 49 {
				st.Flush(rep)
			}
			if i == 999 && dir == "lost" {
				for _, r := range st.disk.runs {
					r.f.Close()
				}
			}
		}
		runs := len(st.disk.runs)
		st.Finish(rep)
		lost := 0
		for _, f := range rep.Take() {
			if f.Line == 0 {
				lost++
				continue
			}
			got = append(got, fmt.Sprintf("%d:%v", f.Line, f.Extra["first_line"]))
		}
		switch dir {
		case "lost":
			if lost != 1 {
				t.Errorf("lost runs: %d findings saying so, want 1", lost)
			}
		default:
			if !slices.Equal(got, want) || lost != 0 {
				t.Errorf("%s: %d findings (%d lost), want %d", dir, len(got), lost, len(want))
			}
			if (runs > 0) != (dir == "ok") || runs > 10 {
				t.Errorf("%s: %d runs on disk", dir, runs)
			}
		}
	}
}
