package rules

import (
	"cmp"
	"slices"
	"sort"
)

// Sequential access to the runs of an idRuns, for a rule that decides its
// references after its last record by one merge join instead of a search
// per reference (CL101, seed 004 "Correlation Object": a parent_span_id
// names a span anywhere in the run), and runs merged by fan-in: a new run
// is added, and once fan runs of about its size are at the end of the
// list they are merged into one, fan at a time, so that every entry is
// written about log_fan(entries / run size) times instead of log2 (write's
// pairs) and at most fan-1 runs of each size remain.

// writeFan is write with merges by fan-in fan: the entries ents (in any
// order; sorted here) go to a new run and to the Bloom filter, for has and
// find; false when the run cannot be written (the caller keeps the
// entries, and spills no more).
func (d *idRuns) writeFan(ents []idEntry, fan int) bool {
	if d.failed {
		return false
	}
	sortEntries(ents)
	d.filter(ents)
	return d.addRun(ents, fan)
}

// addSorted adds ents, whose keys are runKey values in increasing order,
// as a new run merged by fan-in fan, without a Bloom filter: has and find
// must not be called on d (a scan reads the runs). It returns false when
// the run cannot be written (the caller keeps the entries, and adds no
// more runs).
func (d *idRuns) addSorted(ents []idEntry, fan int) bool {
	if d.failed {
		return false
	}
	return d.addRun(ents, fan)
}

// addRun writes ents (in key order) as a new run, then merges the last
// fan runs while they are of about the same size.
func (d *idRuns) addRun(ents []idEntry, fan int) bool {
	if !d.writeRun(ents) {
		return false
	}
	for n := len(d.runs); n >= fan && d.runs[n-fan].n < 2*d.runs[n-1].n; n = len(d.runs) {
		if !d.mergeTail(fan) {
			break
		}
	}
	return true
}

// mergeTail replaces the last k runs by one holding their entries in key
// order; false when it cannot (they stay).
func (d *idRuns) mergeTail(k int) bool {
	tail := d.runs[len(d.runs)-k:]
	n := 0
	for _, r := range tail {
		n += r.n
	}
	w, ok := d.create(n)
	if ok {
		sc := d.scanRuns(tail, nil)
		for e, ok := sc.next(); ok; e, ok = sc.next() {
			w.put(e)
		}
		if sc.err != nil {
			w.err = sc.err
		}
	}
	r, ok := w.close()
	if !ok {
		return false
	}
	for _, t := range tail {
		t.free()
	}
	clear(tail)
	d.runs = append(d.runs[:len(d.runs)-k], r)
	return true
}

// runScan reads the entries of some runs of an idRuns (each through a
// runReader of its own buffer), and of one sorted slice in memory, in key
// order: a merge of the sorted sources through a heap of those not done,
// by their next entry's key. err is the first error of a run's file (a
// run that cannot be read ends early; d.err says why too).
type runScan struct {
	d    *idRuns
	srcs []scanSource
	heap []scanHead
	err  error
}

// scanHead is an entry of runScan's heap: a source's next key.
type scanHead struct {
	key uint64
	src int
}

// scanSource is one sorted source of a runScan: a run (rd) or the slice
// mem; head is its next entry when ok.
type scanSource struct {
	rd   *runReader
	mem  []idEntry
	head idEntry
	ok   bool
}

// scanBytes is the read buffer of a runScan, shared by its runs (each
// 4 KiB to runIO).
const scanBytes = 1 << 20

// scan returns a scan of the entries of every run of d and of mem (sorted
// by key, in runKey values as the runs are).
func (d *idRuns) scan(mem []idEntry) *runScan { return d.scanRuns(d.runs, mem) }

// scanRuns is scan over the runs runs of d.
func (d *idRuns) scanRuns(runs []*idRun, mem []idEntry) *runScan {
	return d.scanFrom(runs, mem, 0, scanBytes)
}

// scanFrom is scanRuns over the entries of key at least from (runKey
// values), through read buffers of about size bytes in all: each run is
// read from the page (firsts) that holds its first such entry, mem from its
// first such entry. The runs' read errors go to d, which need not be the
// idRuns that wrote them: scans of two key ranges of the same runs may run
// at once on two goroutines, each with an idRuns of its own for its errors.
func (d *idRuns) scanFrom(runs []*idRun, mem []idEntry, from uint64, size int) *runScan {
	s := &runScan{d: d}
	size = min(max(size/(len(runs)+1), 4<<10), runIO) &^ 15
	for _, r := range runs {
		start := 0
		if from > 0 {
			start = max(sort.Search(len(r.firsts), func(i int) bool { return r.firsts[i] >= from })-1, 0) * runPage
		}
		rd := &runReader{d: d, f: r.f, buf: make([]byte, 0, min(size, 16*(r.n-start))), off: int64(start) * 16, left: int64(r.n-start) * 16}
		s.srcs = append(s.srcs, scanSource{rd: rd})
	}
	if from > 0 {
		mem = mem[sort.Search(len(mem), func(i int) bool { return mem[i].key >= from }):]
	}
	if len(mem) > 0 {
		s.srcs = append(s.srcs, scanSource{mem: mem})
	}
	for i := range s.srcs {
		src := &s.srcs[i]
		for s.advance(src); src.ok && src.head.key < from; s.advance(src) {
		}
		if src.ok {
			s.heap = append(s.heap, scanHead{src.head.key, i})
		}
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
	return s
}

// advance moves src to its next entry (ok false: it has none).
func (s *runScan) advance(src *scanSource) {
	if src.rd == nil {
		src.ok = len(src.mem) > 0
		if src.ok {
			src.head, src.mem = src.mem[0], src.mem[1:]
		}
		return
	}
	if src.head, src.ok = src.rd.next(); !src.ok && src.rd.err != nil && s.err == nil {
		s.err = src.rd.err
	}
}

// down moves heap entry i down to its place.
func (s *runScan) down(i int) {
	h := s.heap
	x := h[i]
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].key < h[c].key {
			c++
		}
		if x.key <= h[c].key {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// next returns the entry of smallest key among the sources' next ones;
// false when every source is done.
func (s *runScan) next() (idEntry, bool) {
	if len(s.heap) == 0 {
		return idEntry{}, false
	}
	top := &s.heap[0]
	src := &s.srcs[top.src]
	e := src.head
	if s.advance(src); src.ok {
		if top.key = src.head.key; len(s.heap) == 1 || top.key <= s.heap[1].key && (len(s.heap) == 2 || top.key <= s.heap[2].key) {
			return e, true // still the smallest: a run of keys from one source
		}
	} else {
		s.heap[0] = s.heap[len(s.heap)-1]
		s.heap = s.heap[:len(s.heap)-1]
		if len(s.heap) == 0 {
			return e, true
		}
	}
	s.down(0)
	return e, true
}

// sortByKey sorts ents by key (runKey values of hashes: uniform), through
// tmp (at least as long; returned, ents then holds what tmp held): a
// counting sort by the keys' top 16 bits, then an insertion sort of what
// is left out of order (a few entries a bucket).
func sortByKey(ents, tmp []idEntry, counts *[1 << 16]int32) ([]idEntry, []idEntry) {
	if len(ents) < 1<<12 {
		slices.SortFunc(ents, func(a, b idEntry) int { return cmp.Compare(a.key, b.key) })
		return ents, tmp
	}
	clear(counts[:])
	for _, e := range ents {
		counts[e.key>>48]++
	}
	sum := int32(0)
	for i, c := range counts {
		counts[i] = sum
		sum += c
	}
	out := tmp[:len(ents)]
	for _, e := range ents {
		b := e.key >> 48
		out[counts[b]] = e
		counts[b]++
	}
	for i := 1; i < len(out); i++ {
		e := out[i]
		j := i
		for j > 0 && out[j-1].key > e.key {
			out[j] = out[j-1]
			j--
		}
		out[j] = e
	}
	return out, ents[:0]
}

// line returns the first word of the filter block that has would read for
// key (nil when it would read none), for a batch of lookups that loads
// their cache lines together first (idtab.LoadLines).
func (d *idRuns) line(key uint64) *uint32 {
	if d.n == 0 || d.all || d.bloom == nil {
		return nil
	}
	return d.bloom.Line(runKey(key))
}
