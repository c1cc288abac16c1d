package rules

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"sort"

	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// idRuns holds the older entries of a recordIDs (VerMAS event_id and
// process_id: seed 000 "Base Event", VM100 and VM104; "Process Events",
// VM114) on disk instead of memory, so that memory does not grow with the
// ids (lint/bench/README.md, Runs: RSS 3M / 1M ≤ 1.3): each
// entry is 16 bytes, an id's hash key and the byte offset of the record
// that carries it, written in runs sorted by key, each run a temporary
// file removed as soon as it is created where the system allows it (Unix:
// it vanishes when closed, even if the process is killed), otherwise when
// the run is freed; never a file the user named. Two runs of about the
// same size are merged into one (as a binary counter: at most log2 of
// the entries / runEntries runs). In memory: a blocked Bloom filter of
// every key on disk (12 bits a key), and the first key of every page of
// runPage entries of each run. A key the filter rules out is not on disk;
// one it admits is searched in each run (one ReadAt of a page each), and
// every offset found under it is a candidate for the caller to confirm by
// reading the record again.
//
// When a run cannot be created or written, the entries stay in the
// caller's memory (write returns false); when a run cannot be read back,
// err says why and the search goes on without it (the caller reports that
// its checks are incomplete).
type idRuns struct {
	runs    []*idRun
	bloom   *idtab.Bloom
	plan    int   // entries the caller expects in all (Expect); 0: unknown
	n       int   // entries on disk
	failed  bool  // a run could not be written: spill no more
	all     bool  // the filter could not be made: every key may be on disk
	err     error // the first run that could not be read back
	page    []byte
	dirName string // where to create the files ("": the system's temporary directory)
}

// idRun is one sorted run: n entries in f, firsts the key of entry
// k*runPage at firsts[k].
type idRun struct {
	f      *os.File
	name   string // removed by free when it could not be removed while open
	n      int
	firsts []uint64
}

// idEntry is one entry of a run: the id's hash key and the offset.
type idEntry struct{ key, off uint64 }

// runKey is the order of entries in a run: a permutation of a key's bits
// (its top 6, then its low 32, then the 26 between), the order in which
// idtab.Table.Each visits the entries of a table placed by that key (by
// shard, then home bucket), so that a table's entries come nearly sorted.
func runKey(key uint64) uint64 {
	return key>>58<<58 | uint64(uint32(key))<<26 | key>>32&(1<<26-1)
}

// sortEntries sorts ents by runKey of their keys (key replaced by it):
// an insertion sort, quick on entries taken from an idtab.Table in order
// (a few displaced by probing), then any that came too far out of order
// are still placed exactly.
func sortEntries(ents []idEntry) {
	for i := range ents {
		ents[i].key = runKey(ents[i].key)
	}
	for i := 1; i < len(ents); i++ {
		e := ents[i]
		j := i
		for j > 0 && ents[j-1].key > e.key {
			ents[j] = ents[j-1]
			j--
		}
		ents[j] = e
	}
}

// runPage is the number of entries of one page of a run (16 bytes each:
// 4 KiB), the unit read by a search.
const runPage = 256

// has reports whether key may be on disk.
func (d *idRuns) has(key uint64) bool { return d.n > 0 && (d.all || d.bloom.Has(runKey(key))) }

// find calls fn with the offset of every entry of key on disk until fn
// returns true; found is fn's last answer.
func (d *idRuns) find(key uint64, fn func(off uint64) bool) bool {
	key = runKey(key)
	for _, r := range d.runs {
		// key's entries start in the page before the first that begins
		// with key or a larger one (or in that page): read pages from
		// there until a key beyond it.
		p := max(sort.Search(len(r.firsts), func(i int) bool { return r.firsts[i] >= key })-1, 0)
		for ; p < len(r.firsts) && r.firsts[p] <= key; p++ {
			ents, ok := d.readPage(r, p)
			if !ok {
				break
			}
			beyond := false
			for i := 0; i < len(ents); i += 16 {
				k := binary.LittleEndian.Uint64(ents[i:])
				if k == key && fn(binary.LittleEndian.Uint64(ents[i+8:])) {
					return true
				}
				if k > key {
					beyond = true
					break
				}
			}
			if beyond {
				break
			}
		}
	}
	return false
}

// readPage reads page p of r into d.page.
func (d *idRuns) readPage(r *idRun, p int) ([]byte, bool) {
	cnt := min(runPage, r.n-p*runPage)
	if d.page == nil {
		d.page = make([]byte, runPage*16)
	}
	b := d.page[:cnt*16]
	if _, err := r.f.ReadAt(b, int64(p)*runPage*16); err != nil {
		if d.err == nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			d.err = err
		}
		return nil, false
	}
	return b, true
}

// write adds the entries ents (in any order; sorted here) as a new run
// and merges runs of about the same size; false when the run cannot be
// written (the caller keeps the entries, and spills no more).
func (d *idRuns) write(ents []idEntry) bool {
	if d.failed {
		return false
	}
	sortEntries(ents)
	d.filter(ents)
	r, ok := d.create(func(w *bufio.Writer, emit func(idEntry) error) error {
		for _, e := range ents {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	}, len(ents))
	if !ok {
		d.failed = true
		return false
	}
	d.runs = append(d.runs, r)
	d.n += len(ents)
	for len(d.runs) >= 2 && d.runs[len(d.runs)-2].n < 2*d.runs[len(d.runs)-1].n {
		if !d.merge() {
			break
		}
	}
	return true
}

// filter adds the keys of ents (runKey values, in order: the filter's
// blocks are written in order) to the filter, making a larger one from
// every run when the filter would pass its plan.
func (d *idRuns) filter(ents []idEntry) {
	if d.bloom != nil && d.bloom.Len()+len(ents) <= d.bloom.Plan() {
		for _, e := range ents {
			d.bloom.Add(e.key)
		}
		return
	}
	// The caller's plan with a margin for its estimate (Expect: the
	// first batch's bytes per record), else twice what the filter holds.
	plan := max(d.plan+d.plan/4, 2*(d.n+len(ents)), 4*len(ents))
	if d.bloom != nil {
		plan = max(plan, 2*d.bloom.Plan())
		d.bloom.Free()
	}
	d.bloom = idtab.NewBloom(plan)
	for _, r := range d.runs {
		if !d.each(r, func(e idEntry) { d.bloom.Add(e.key) }) {
			// A run that cannot be read: every key may be on disk, so
			// that a search meets the error (d.err) rather than a wrong
			// "absent".
			d.all = true
			return
		}
	}
	for _, e := range ents {
		d.bloom.Add(e.key)
	}
}

// create writes a new run of n entries that gen emits in key order.
func (d *idRuns) create(gen func(*bufio.Writer, func(idEntry) error) error, n int) (*idRun, bool) {
	f, err := os.CreateTemp(d.dirName, "agentlint-ids-*")
	if err != nil {
		return nil, false
	}
	r := &idRun{f: f, n: n, firsts: make([]uint64, 0, (n+runPage-1)/runPage)}
	if os.Remove(f.Name()) != nil {
		r.name = f.Name()
	}
	w := bufio.NewWriterSize(f, 64<<10)
	var b [16]byte
	k := 0
	err = gen(w, func(e idEntry) error {
		if k%runPage == 0 {
			r.firsts = append(r.firsts, e.key)
		}
		k++
		binary.LittleEndian.PutUint64(b[:], e.key)
		binary.LittleEndian.PutUint64(b[8:], e.off)
		_, err := w.Write(b[:])
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil || k != n {
		r.free()
		return nil, false
	}
	return r, true
}

// each calls fn with every entry of r, in key order; false when r cannot
// be read (d.err says why).
func (d *idRuns) each(r *idRun, fn func(idEntry)) bool {
	rd := bufio.NewReaderSize(io.NewSectionReader(r.f, 0, int64(r.n)*16), 64<<10)
	var b [16]byte
	for range r.n {
		if _, err := io.ReadFull(rd, b[:]); err != nil {
			if d.err == nil {
				d.err = err
			}
			return false
		}
		fn(idEntry{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])})
	}
	return true
}

// merge replaces the last two runs by one; false when it cannot (both
// stay).
func (d *idRuns) merge() bool {
	a, b := d.runs[len(d.runs)-2], d.runs[len(d.runs)-1]
	ra := bufio.NewReaderSize(io.NewSectionReader(a.f, 0, int64(a.n)*16), 64<<10)
	rb := bufio.NewReaderSize(io.NewSectionReader(b.f, 0, int64(b.n)*16), 64<<10)
	next := func(rd *bufio.Reader, left *int) (idEntry, bool, error) {
		if *left == 0 {
			return idEntry{}, false, nil
		}
		var x [16]byte
		if _, err := io.ReadFull(rd, x[:]); err != nil {
			return idEntry{}, false, err
		}
		*left--
		return idEntry{binary.LittleEndian.Uint64(x[:]), binary.LittleEndian.Uint64(x[8:])}, true, nil
	}
	na, nb := a.n, b.n
	r, ok := d.create(func(_ *bufio.Writer, emit func(idEntry) error) error {
		ea, oka, err := next(ra, &na)
		if err != nil {
			return err
		}
		eb, okb, err := next(rb, &nb)
		if err != nil {
			return err
		}
		for oka || okb {
			if oka && (!okb || ea.key <= eb.key) {
				if err := emit(ea); err != nil {
					return err
				}
				if ea, oka, err = next(ra, &na); err != nil {
					return err
				}
			} else {
				if err := emit(eb); err != nil {
					return err
				}
				if eb, okb, err = next(rb, &nb); err != nil {
					return err
				}
			}
		}
		return nil
	}, a.n+b.n)
	if !ok {
		return false
	}
	a.free()
	b.free()
	d.runs = append(d.runs[:len(d.runs)-2], r)
	return true
}

// free closes and removes r's file.
func (r *idRun) free() {
	r.f.Close()
	if r.name != "" {
		os.Remove(r.name)
	}
	r.firsts = nil
}

// free releases every run and the filter.
func (d *idRuns) free() {
	for _, r := range d.runs {
		r.free()
	}
	if d.bloom != nil {
		d.bloom.Free()
	}
	*d = idRuns{dirName: d.dirName}
}
