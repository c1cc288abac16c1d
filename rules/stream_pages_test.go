package rules

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// pageCases are the set-ups of the paged state's tests: a temporary file
// in a directory of the test, and one that cannot be created (the pages
// stay in memory).
func pageCases(t *testing.T) []struct {
	name   string
	dir    string
	onDisk bool
} {
	return []struct {
		name   string
		dir    string
		onDisk bool
	}{
		{"file", t.TempDir(), true},
		{"no file", filepath.Join(t.TempDir(), "missing"), false},
	}
}

// TestPagedArray: records written and read in any order read back as
// written, whether their pages went to the temporary file (most of them:
// only residentPages stay in memory) or stayed in memory because the file
// could not be created; the file is removed as soon as it is made.
func TestPagedArray(t *testing.T) {
	for _, tc := range pageCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			pf := &pageFile{dirName: tc.dir}
			defer pf.close()
			a := newPagedArray[vmSent](pf)
			var model []vmSent
			r := rand.New(rand.NewPCG(1, 2))
			const n = 20 * pageSize / 48
			for i := range n {
				v := vmSent{n: uint32(i + 1), line: uint32(r.IntN(1 << 30)), readTime: r.Int64()}
				a.push(v)
				model = append(model, v)
				if i > 0 && r.IntN(3) == 0 {
					// a change to an earlier record, often an old one
					j := r.IntN(i)
					if r.IntN(2) == 0 {
						j = i - r.IntN(min(i, 100))
					}
					a.at(j).readLine = uint32(i)
					model[j].readLine = uint32(i)
				}
			}
			for k := range 3 * n {
				j := r.IntN(n)
				if k < n {
					j = k
				}
				if got := a.get(j); got != model[j] {
					t.Fatalf("record %d = %+v, want %+v", j, got, model[j])
				}
			}
			if pf.err != nil {
				t.Fatal(pf.err)
			}
			if tc.onDisk != (pf.slots > 0) || pf.failed == tc.onDisk {
				t.Errorf("pages on disk: %d slots, failed %v", pf.slots, pf.failed)
			}
			if !tc.onDisk && len(a.b.res) != len(a.b.pages) {
				t.Errorf("%d of %d pages in memory without a file", len(a.b.res), len(a.b.pages))
			}
			if tc.onDisk && len(a.b.res) > residentPages {
				t.Errorf("%d pages in memory, want at most %d", len(a.b.res), residentPages)
			}
			if ents, _ := os.ReadDir(tc.dir); len(ents) > 0 {
				t.Errorf("the temporary file is still named: %v", ents)
			}
		})
	}
}

// TestPagedLost: a page that cannot be read back reads as zeros and sets
// the file's error, which vmEvents reports.
func TestPagedLost(t *testing.T) {
	pf := &pageFile{dirName: t.TempDir()}
	defer pf.close()
	a := newPagedArray[vmWO](pf)
	for i := range 20 * pageSize / 40 {
		a.push(vmWO{n: uint32(i + 1)})
	}
	pf.f.Close() // the file vanishes under the replay
	if w := a.get(0); w != (vmWO{}) || pf.err == nil {
		t.Errorf("lost page read as %+v, error %v", w, pf.err)
	}
	ev := &vmEvents{file: "events.jsonl", pf: pf, wos: newPagedStrings(pf, true), msgs: newPagedStrings(pf, true)}
	var got []StreamFinding
	r := &StreamReporter{on: true, sink: &streamSink{emit: func(f StreamFinding) { got = append(got, f) }}}
	ev.reportLost(r)
	ev.reportLost(r)
	if len(got) != 1 {
		t.Errorf("%d findings for lost pages, want 1: %v", len(got), got)
	}
}

// TestPagedStrings: an indexed set numbers each distinct string once and
// finds it again exactly, with its index mostly on disk (a hot part of 8
// entries) and a hash that collides for every string or a real one, or
// with the index in memory when no run can be written; a set without an
// index numbers every string added. Strings of every length, some longer
// than a page.
func TestPagedStrings(t *testing.T) {
	for _, tc := range pageCases(t) {
		for _, collide := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s collide=%v", tc.name, collide), func(t *testing.T) {
				pf := &pageFile{dirName: tc.dir}
				defer pf.close()
				s := newPagedStrings(pf, true)
				defer s.Free()
				s.hotMax, s.disk.dirName = 8, tc.dir
				if collide {
					s.hash = func([]byte) uint64 { return 0x5eed << 4 }
				}
				texts := newPagedStrings(pf, false)
				r := rand.New(rand.NewPCG(5, 6))
				num := map[string]uint32{}
				var all []string
				for i := range 600 {
					str := fmt.Sprintf("wo-%d", r.IntN(400))
					if i%50 == 0 {
						str = string(bytes.Repeat([]byte{byte('a' + i%26)}, pageSize+r.IntN(100)))
					}
					if i%3 == 0 {
						if got, want := s.Get([]byte(str)), num[str]; got != want {
							t.Fatalf("Get(%.20q) = %d, want %d", str, got, want)
						}
					}
					n, added := s.Add([]byte(str))
					want, seen := num[str]
					if !seen {
						want = uint32(len(num) + 1)
						num[str] = want
					}
					if n != want || added == seen {
						t.Fatalf("Add(%.20q) = %d, %v; want %d, %v", str, n, added, want, !seen)
					}
					if m, added := texts.Add([]byte(str)); !added || int(m) != len(all)+1 {
						t.Fatalf("texts.Add = %d, %v; want %d, true", m, added, len(all)+1)
					}
					all = append(all, str)
				}
				for str, n := range num {
					if got := string(s.At(n)); got != str {
						t.Fatalf("At(%d) = %.20q, want %.20q", n, got, str)
					}
				}
				for i, str := range all {
					if got := string(texts.At(uint32(i + 1))); got != str {
						t.Fatalf("texts.At(%d) = %.20q, want %.20q", i+1, got, str)
					}
				}
				if s.Len() != len(num) || texts.Len() != len(all) {
					t.Errorf("Len %d, %d; want %d, %d", s.Len(), texts.Len(), len(num), len(all))
				}
				if tc.onDisk != (len(s.disk.runs) > 0) {
					t.Errorf("%d runs on disk (file possible: %v)", len(s.disk.runs), tc.onDisk)
				}
				if len(s.disk.runs) > 4 {
					t.Errorf("%d runs: they are not merged", len(s.disk.runs))
				}
				if err := cmpErr(pf.err, s.err()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// keyOfRun is the inverse of runKey.
func keyOfRun(k uint64) uint64 {
	return k>>58<<58 | (k&(1<<26-1))<<32 | k>>26&(1<<32-1)
}

// TestRunKey: runKey is a permutation of the bits (keyOfRun undoes it),
// and entries taken from a table in order are sorted by it.
func TestRunKey(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		k := r.Uint64()
		if keyOfRun(runKey(k)) != k {
			t.Fatalf("keyOfRun(runKey(%#x)) = %#x", k, keyOfRun(runKey(k)))
		}
	}
	tb := idtab.New(3, func(e []uint32) uint64 { return uint64(e[0]) | uint64(e[1])<<32 })
	defer tb.Free()
	for i := range 5000 {
		h := r.Uint64()
		tb.Insert(h, []uint32{uint32(h), uint32(h >> 32), uint32(i + 1)})
	}
	var ents []idEntry
	tb.Each(func(e []uint32) { ents = append(ents, idEntry{key: uint64(e[0]) | uint64(e[1])<<32}) })
	sortEntries(ents)
	for i := 1; i < len(ents); i++ {
		if ents[i-1].key > ents[i].key {
			t.Fatalf("entry %d out of order", i)
		}
	}
	if len(ents) != 5000 {
		t.Fatalf("%d entries, want 5000", len(ents))
	}
}

// TestBloom: a filter never rules out a hash that was added, and rules
// out most others at its planned size.
func TestBloom(t *testing.T) {
	f := idtab.NewBloom(100000)
	defer f.Free()
	r := rand.New(rand.NewPCG(9, 10))
	var hs []uint64
	for range 100000 {
		h := idtab.HashBytes([]byte(fmt.Sprint(r.Uint64())))
		hs = append(hs, h)
		f.Add(h)
	}
	for _, h := range hs {
		if !f.Has(h) {
			t.Fatalf("added hash %#x ruled out", h)
		}
	}
	fp := 0
	for i := range 100000 {
		if f.Has(idtab.HashBytes([]byte(fmt.Sprint("other", i)))) {
			fp++
		}
	}
	if fp > 2000 {
		t.Errorf("%d false positives of 100,000, want at most 2,000", fp)
	}
	t.Logf("false positives: %d of 100,000", fp)
}

// TestIDRunsFind: find returns every entry of a key, however many pages
// they span and wherever they start, in runs written and merged (runs
// smaller than one buffer of runIO bytes and runs of several); keys
// absent are not found; every run is sorted.
func TestIDRunsFind(t *testing.T) {
	for _, per := range []int{700, 3000} {
		d := &idRuns{dirName: t.TempDir()}
		defer d.free()
		want := map[uint64]map[uint64]bool{}
		r := rand.New(rand.NewPCG(13, 14))
		off := uint64(1)
		for range 6 {
			var ents []idEntry
			for range per {
				key := uint64(r.IntN(5)) << 40 // a few keys, each on many pages
				if r.IntN(4) == 0 {
					key = r.Uint64() &^ 15
				}
				ents = append(ents, idEntry{key: key, off: off})
				if want[key] == nil {
					want[key] = map[uint64]bool{}
				}
				want[key][off] = true
				off++
			}
			if !d.write(ents) {
				t.Fatal("run not written")
			}
		}
		if len(d.runs) > 3 {
			t.Errorf("%d runs: not merged", len(d.runs))
		}
		if per*16*2 > runIO && d.runs[0].n*16 <= runIO {
			t.Errorf("per %d: the first run has %d entries: no merge of runs larger than a buffer", per, d.runs[0].n)
		}
		total := 0
		for _, run := range d.runs {
			rd := d.reader(run, 0)
			prev, n := uint64(0), 0
			for e, ok := rd.next(); ok; e, ok = rd.next() {
				if e.key < prev {
					t.Fatalf("per %d: run entry %d out of order", per, n)
				}
				prev = e.key
				n++
			}
			if n != run.n || rd.err != nil {
				t.Fatalf("per %d: %d entries read of %d (%v)", per, n, run.n, rd.err)
			}
			total += n
		}
		if total != 6*per || d.n != total {
			t.Errorf("per %d: %d entries in runs, d.n %d, want %d", per, total, d.n, 6*per)
		}
		for key, offs := range want {
			if !d.has(key) {
				t.Fatalf("key %#x ruled out", key)
			}
			got := map[uint64]bool{}
			d.find(key, func(o uint64) bool { got[o] = true; return false })
			if len(got) != len(offs) {
				t.Fatalf("key %#x: %d entries found, want %d", key, len(got), len(offs))
			}
		}
		if d.find(7<<40, func(uint64) bool { return true }) {
			t.Error("an absent key found")
		}
		if d.err != nil {
			t.Fatal(d.err)
		}
	}
}

// TestIDRunsMergeLost: when a run cannot be read back, the merge that
// needs it does not happen (both runs stay, the new run is written) and
// err says why.
func TestIDRunsMergeLost(t *testing.T) {
	d := &idRuns{dirName: t.TempDir()}
	defer d.free()
	ents := func(n int, base uint64) []idEntry {
		var es []idEntry
		for i := range n {
			es = append(es, idEntry{key: (base + uint64(i)) << 8, off: base + uint64(i)})
		}
		return es
	}
	if !d.write(ents(5000, 1)) {
		t.Fatal("run not written")
	}
	d.runs[0].f.Close()
	if !d.write(ents(5000, 100000)) {
		t.Fatal("second run not written")
	}
	if len(d.runs) != 2 || d.err == nil {
		t.Fatalf("%d runs, err %v: want 2 runs and an error", len(d.runs), d.err)
	}
	if !d.find(100000<<8, func(o uint64) bool { return o == 100000 }) {
		t.Error("an entry of the readable run not found")
	}
}
