package rules

import (
	"cmp"
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
	wbuf    []byte    // runWriter's buffer
	rbuf    [2][]byte // runReader's buffers
	dirName string    // where to create the files ("": the system's temporary directory)
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
	if !d.writeRun(ents) {
		return false
	}
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
		rd := d.reader(r, 0)
		for e, ok := rd.next(); ok; e, ok = rd.next() {
			d.bloom.Add(e.key)
		}
		if rd.err != nil {
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

// runIO is the size in bytes of the buffers through which runs are
// written and read whole (4,096 entries), one ReadAt or Write each.
const runIO = 64 << 10

// runWriter writes the entries of a new run, in key order, through a
// buffer of runIO bytes.
type runWriter struct {
	d   *idRuns
	r   *idRun
	buf []byte
	pos int
	k   int // entries put
	off int64
	err error
}

// create starts a new run of n entries; false when its file cannot be
// created (close then says so too).
func (d *idRuns) create(n int) (*runWriter, bool) {
	if d.wbuf == nil {
		d.wbuf = make([]byte, runIO)
	}
	w := &runWriter{d: d, buf: d.wbuf}
	f, err := os.CreateTemp(d.dirName, "agentlint-ids-*")
	if err != nil {
		w.err = err
		return w, false
	}
	w.r = &idRun{f: f, n: n, firsts: make([]uint64, 0, (n+runPage-1)/runPage)}
	if os.Remove(f.Name()) != nil {
		w.r.name = f.Name()
	}
	return w, true
}

// put appends e to the run.
func (w *runWriter) put(e idEntry) {
	if w.k%runPage == 0 {
		w.r.firsts = append(w.r.firsts, e.key)
	}
	w.k++
	if w.pos == len(w.buf) {
		w.flush()
	}
	b := w.buf[w.pos : w.pos+16 : w.pos+16]
	binary.LittleEndian.PutUint64(b, e.key)
	binary.LittleEndian.PutUint64(b[8:], e.off)
	w.pos += 16
}

// flush writes the buffered entries at the end of the run's file.
func (w *runWriter) flush() {
	if w.pos > 0 && w.err == nil {
		_, w.err = w.r.f.WriteAt(w.buf[:w.pos], w.off)
		w.off += int64(w.pos)
	}
	w.pos = 0
}

// close finishes the run: false (and its file removed) when it could not
// be written whole.
func (w *runWriter) close() (*idRun, bool) {
	if w.r == nil {
		return nil, false
	}
	w.flush()
	if w.err != nil || w.k != w.r.n {
		w.r.free()
		return nil, false
	}
	return w.r, true
}

// runReader reads the entries of a run in key order through a buffer of
// runIO bytes; err is why it stopped early (nil at the run's end).
type runReader struct {
	d    *idRuns
	f    *os.File
	buf  []byte
	pos  int
	off  int64 // of the next read
	left int64 // bytes of the run not yet read into buf
	err  error
}

// reader returns a reader of r through read buffer i (0 or 1: a merge
// reads two runs at once).
func (d *idRuns) reader(r *idRun, i int) *runReader {
	if d.rbuf[i] == nil {
		d.rbuf[i] = make([]byte, runIO)
	}
	return &runReader{d: d, f: r.f, buf: d.rbuf[i][:0], left: int64(r.n) * 16}
}

// next returns the next entry; false at the run's end or on an error of
// its file (rd.err, and d.err when it is the first).
func (rd *runReader) next() (idEntry, bool) {
	if rd.pos == len(rd.buf) && !rd.fill() {
		return idEntry{}, false
	}
	b := rd.buf[rd.pos : rd.pos+16 : rd.pos+16]
	rd.pos += 16
	return idEntry{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}, true
}

// fill reads the next part of the run into rd.buf.
func (rd *runReader) fill() bool {
	if rd.left == 0 || rd.err != nil {
		return false
	}
	n := min(int64(cap(rd.buf)), rd.left)
	b := rd.buf[:n]
	if _, err := rd.f.ReadAt(b, rd.off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		rd.err = err
		if rd.d.err == nil {
			rd.d.err = err
		}
		return false
	}
	rd.buf, rd.pos = b, 0
	rd.off += n
	rd.left -= n
	return true
}

// merge replaces the last two runs by one; false when it cannot (both
// stay).
func (d *idRuns) merge() bool {
	a, b := d.runs[len(d.runs)-2], d.runs[len(d.runs)-1]
	w, ok := d.create(a.n + b.n)
	if ok {
		ra, rb := d.reader(a, 0), d.reader(b, 1)
		ea, oka := ra.next()
		eb, okb := rb.next()
		for oka && okb {
			if ea.key <= eb.key {
				w.put(ea)
				ea, oka = ra.next()
			} else {
				w.put(eb)
				eb, okb = rb.next()
			}
		}
		for ; oka; ea, oka = ra.next() {
			w.put(ea)
		}
		for ; okb; eb, okb = rb.next() {
			w.put(eb)
		}
		if ra.err != nil || rb.err != nil {
			w.err = cmp.Or(ra.err, rb.err)
		}
	}
	r, ok := w.close()
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

// writeRun writes ents (in key order) as a new run at the end of d.runs
// and counts them; false, with d.failed set, when the run cannot be
// written.
func (d *idRuns) writeRun(ents []idEntry) bool {
	w, ok := d.create(len(ents))
	if ok {
		for _, e := range ents {
			w.put(e)
		}
	}
	r, ok := w.close()
	if !ok {
		d.failed = true
		return false
	}
	d.runs = append(d.runs, r)
	d.n += len(ents)
	return true
}
