package rules

import (
	"bytes"
	"cmp"
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
		mergeJoin(refs.scan(mem), spans.scan(hot), 0, func(off uint64) { got = append(got, int(off>>32)) })
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

// TestScanFromHalves: scans from a key (scanFrom) read exactly the entries
// of at least that key of every run and of memory, when equal keys cross
// the runs' pages (runPage) around it, and mergeJoin of the two halves of
// the key space (the lower one to its end, the upper one from it) finds
// exactly the references one merge of everything finds.
func TestScanFromHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for round := range 12 {
		spans := &idRuns{dirName: t.TempDir()}
		refs := &idRuns{dirName: t.TempDir()}
		// Few keys about joinSplit, so that runs of one key cross pages.
		key := func() uint64 {
			switch r.IntN(4) {
			case 0:
				return uint64(r.Uint64())
			case 1:
				return joinSplit - 1 - uint64(r.IntN(3))
			default:
				return joinSplit + uint64(r.IntN(3))
			}
		}
		gen := func(n int, refIdx *int) []idEntry {
			ents := make([]idEntry, n)
			for i := range ents {
				ents[i] = idEntry{key: key(), off: uint64(1 + r.IntN(6))}
				if refIdx != nil {
					ents[i].off |= uint64(*refIdx) << 32
					*refIdx++
				}
			}
			slices.SortStableFunc(ents, func(a, b idEntry) int { return cmp.Compare(a.key, b.key) })
			return ents
		}
		for range 1 + r.IntN(4) {
			if !spans.addSorted(gen(1+r.IntN(3*runPage), nil), 64) {
				t.Fatal("run not written")
			}
		}
		n := 0
		for range 1 + r.IntN(4) {
			if !refs.addSorted(gen(1+r.IntN(3*runPage), &n), 64) {
				t.Fatal("run not written")
			}
		}
		hot, mem := gen(r.IntN(2*runPage), nil), gen(r.IntN(2*runPage), &n)
		for _, from := range []uint64{1, joinSplit - 1, joinSplit, joinSplit + 1} {
			var want, got []idEntry
			sc := spans.scan(hot)
			for e, ok := sc.next(); ok; e, ok = sc.next() {
				if e.key >= from {
					want = append(want, e)
				}
			}
			var errs idRuns
			sc = errs.scanFrom(spans.runs, hot, from, scanBytes/2)
			for e, ok := sc.next(); ok; e, ok = sc.next() {
				got = append(got, e)
			}
			// In key order; in any order within a key.
			if !slices.IsSortedFunc(got, func(a, b idEntry) int { return cmp.Compare(a.key, b.key) }) {
				t.Fatalf("round %d, from %#x: not in key order", round, from)
			}
			byEntry := func(a, b idEntry) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.off, b.off)) }
			slices.SortFunc(got, byEntry)
			slices.SortFunc(want, byEntry)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, from %#x: %d entries, want %d", round, from, len(got), len(want))
			}
		}
		var whole, halves []int
		mergeJoin(refs.scan(mem), spans.scan(hot), 0, func(off uint64) { whole = append(whole, int(off>>32)) })
		var up idRuns
		mergeJoin(refs.scanFrom(refs.runs, mem, 0, scanBytes/2), spans.scanFrom(spans.runs, hot, 0, scanBytes/2), joinSplit, func(off uint64) { halves = append(halves, int(off>>32)) })
		mergeJoin(up.scanFrom(refs.runs, mem, joinSplit, scanBytes/2), up.scanFrom(spans.runs, hot, joinSplit, scanBytes/2), 0, func(off uint64) { halves = append(halves, int(off>>32)) })
		slices.Sort(whole)
		slices.Sort(halves)
		if len(whole) == 0 || !slices.Equal(halves, whole) {
			t.Fatalf("round %d: halves found %d references, one merge %d", round, len(halves), len(whole))
		}
		if spans.err != nil || refs.err != nil || up.err != nil {
			t.Fatal(spans.err, refs.err, up.err)
		}
		spans.free()
		refs.free()
	}
}
