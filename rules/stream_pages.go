package rules

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"unsafe"

	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// Paged state: the replay state of a stream rule that grows with the
// distinct ids of a log (seed 000 "VerMAS Data Schemas": the work orders
// and messages replayed from events.jsonl, their texts) kept in pages of
// pageSize bytes, of which at most a few are in memory; the others are in
// a temporary file that the rule alone uses, so that memory does not grow
// with the work orders and messages (lint/bench/README.md, Runs: RSS 3M /
// 1M ≤ 1.3). The replay touches the work orders and
// messages of the last few hundred events (a work order is created, worked
// on and closed within a stretch of the log), so most accesses find their
// page in memory; a page that is not is read back with ReadAt. The file is
// removed as soon as it is created where the system allows it (Unix: it
// vanishes when closed, even if the process is killed), otherwise when
// close is called; it is never a file the user named. When the file cannot
// be created or written, the pages stay in memory (as before paging); when
// a page cannot be read back, the page reads as zeros and err says why
// (the rule reports that its checks are incomplete).

// pageSize is the size of a page in bytes (and of a page's slot in the
// temporary file).
const pageSize = 32 << 10

// residentPages is how many pages of one pagedBytes stay in memory (a
// variable for the tests).
var residentPages = 8

// pageFile is the temporary file of the pages of one rule's state: slots
// of pageSize bytes, allocated in order and never freed (a page keeps its
// slot once written).
type pageFile struct {
	f       *os.File
	name    string // removed by close when it could not be removed while open
	slots   int64  // slots allocated
	failed  bool   // the file could not be created or written: page out no more
	err     error  // the first page that could not be read back
	dirName string // where to create the file ("": the system's temporary directory)
}

// write writes page b (pageSize bytes or fewer) to slot *slot, allocating
// a slot when *slot < 0 (creating the file on first use); false when it
// cannot (the caller keeps the page in memory and pages out no more).
func (pf *pageFile) write(slot *int64, b []byte) bool {
	if pf.failed {
		return false
	}
	if pf.f == nil {
		f, err := os.CreateTemp(pf.dirName, "agentlint-state-*")
		if err != nil {
			pf.failed = true
			return false
		}
		pf.f = f
		if os.Remove(f.Name()) != nil {
			pf.name = f.Name()
		}
	}
	s := *slot
	if s < 0 {
		s = pf.slots
	}
	if _, err := pf.f.WriteAt(b, s*pageSize); err != nil {
		pf.failed = true
		return false
	}
	if *slot < 0 {
		*slot = s
		pf.slots++
	}
	return true
}

// read reads slot into b; on failure b is zeroed and pf.err set.
func (pf *pageFile) read(slot int64, b []byte) { pf.readAt(b, slot*pageSize) }

// readAt reads b at byte off of the file; on failure b is zeroed and
// pf.err set.
func (pf *pageFile) readAt(b []byte, off int64) {
	n, err := pf.f.ReadAt(b, off)
	if err == io.EOF && n == len(b) {
		err = nil
	}
	if err != nil {
		clear(b)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if pf.err == nil {
			pf.err = err
		}
	}
}

// close closes and removes the file; the pages written are lost.
func (pf *pageFile) close() {
	if pf.f != nil {
		pf.f.Close()
		if pf.name != "" {
			os.Remove(pf.name)
		}
	}
	*pf = pageFile{dirName: pf.dirName}
}

// pagedBytes is a growing byte space in pages of pageSize bytes: at most
// residentPages of them in memory (the least recently used goes to pf when
// another must come in), the others in pf's slots. Not safe for concurrent
// use.
type pagedBytes struct {
	pf    *pageFile
	pages []pageRef
	res   []uint32 // indexes of the pages in memory
	clock uint64
	n     int64 // bytes used
	spare []byte
	miss  int // the last page that read brought into memory
}

// pageRef is where page i is: in memory (mem) and/or in slot of the file
// (-1: never written); dirty when mem differs from the slot.
type pageRef struct {
	mem   []byte
	slot  int64
	used  uint64
	dirty bool
}

// page returns page i (which must exist) in memory; write marks it
// changed. The slice is valid until the next call on p.
func (p *pagedBytes) page(i int, write bool) []byte {
	r := &p.pages[i]
	p.clock++
	r.used = p.clock
	if r.mem == nil {
		r.mem = p.take()
		p.pf.read(r.slot, r.mem)
		p.res = append(p.res, uint32(i))
	}
	r.dirty = r.dirty || write
	return r.mem
}

// take returns a page buffer, making room first when residentPages are
// in memory: the least recently used page is written to the file (when
// changed since) and its buffer reused. When the file fails, every page
// stays in memory.
func (p *pagedBytes) take() []byte {
	if len(p.res) < residentPages || p.pf.failed {
		if b := p.spare; b != nil {
			p.spare = nil
			return b
		}
		return make([]byte, pageSize)
	}
	k := 0
	for j := range p.res {
		if p.pages[p.res[j]].used < p.pages[p.res[k]].used {
			k = j
		}
	}
	r := &p.pages[p.res[k]]
	if r.dirty && !p.pf.write(&r.slot, r.mem) {
		return make([]byte, pageSize)
	}
	b := r.mem
	r.mem, r.dirty = nil, false
	p.res[k] = p.res[len(p.res)-1]
	p.res = p.res[:len(p.res)-1]
	clear(b)
	return b
}

// grow adds pages until the space holds n bytes.
// While the space fits in one page, that page is only as long as needed
// (from 256 bytes, doubling), so that the state of a small log (a .work/
// directory's events.jsonl, kept for the tree rules) stays small.
func (p *pagedBytes) grow(n int64) {
	if len(p.pages) == 0 && n > 0 {
		p.pages = append(p.pages, pageRef{slot: -1, dirty: true})
		p.res = append(p.res, 0)
	}
	if len(p.pages) == 1 {
		if r := &p.pages[0]; int64(len(r.mem)) < min(n, pageSize) {
			size := max(256, 2*int64(len(r.mem)))
			for size < n {
				size *= 2
			}
			mem := make([]byte, min(size, pageSize))
			copy(mem, r.mem)
			r.mem = mem
		}
	}
	for int64(len(p.pages))*pageSize < n {
		if r := &p.pages[0]; len(p.pages) == 1 && len(r.mem) < pageSize {
			mem := make([]byte, pageSize)
			copy(mem, r.mem)
			r.mem = mem
		}
		p.pages = append(p.pages, pageRef{slot: -1, dirty: true})
		i := len(p.pages) - 1
		p.pages[i].mem = p.take()
		p.res = append(p.res, uint32(i))
	}
	p.n = n
}

// read copies the bytes [off, off+len(b)) into b.
// A page not in memory is brought in when it follows the last one read
// brings in (a scan); otherwise only the bytes asked for are read from the
// file (a lookup among old entries: no page copied, none written back).
func (p *pagedBytes) read(off int64, b []byte) {
	for len(b) > 0 {
		i := int(off / pageSize)
		r := &p.pages[i]
		n := min(int64(len(b)), pageSize-off%pageSize)
		if r.mem == nil && i != p.miss+1 {
			p.pf.readAt(b[:n], r.slot*pageSize+off%pageSize)
		} else {
			if r.mem == nil {
				p.miss = i
			}
			copy(b[:n], p.page(i, false)[off%pageSize:])
		}
		b, off = b[n:], off+n
	}
}

// append adds b at the end and returns its offset.
func (p *pagedBytes) append(b []byte) int64 {
	off := p.n
	p.grow(off + int64(len(b)))
	for o := off; len(b) > 0; {
		pg := p.page(int(o/pageSize), true)
		k := copy(pg[o%pageSize:], b)
		b, o = b[k:], o+int64(k)
	}
	return off
}

// free releases the pages in memory (the file is pf's).
func (p *pagedBytes) free() { *p = pagedBytes{pf: p.pf} }

// pagedArray is a growing array of fixed-size records of type T in
// pagedBytes; T must hold no pointers (vmWO, vmSent). A record never
// spans two pages.
type pagedArray[T any] struct {
	b       pagedBytes
	n       int
	size    int // bytes of a T
	perPage int
}

// newPagedArray returns an empty array whose pages go to pf.
func newPagedArray[T any](pf *pageFile) *pagedArray[T] {
	var zero T
	size := int(unsafe.Sizeof(zero))
	return &pagedArray[T]{b: pagedBytes{pf: pf}, size: size, perPage: pageSize / size}
}

// len returns the number of records.
func (a *pagedArray[T]) len() int { return a.n }

// at returns record i (0 <= i < len), which may be changed; the pointer
// is valid until the next call on a.
func (a *pagedArray[T]) at(i int) *T {
	pg := a.b.page(i/a.perPage, true)
	return (*T)(unsafe.Pointer(&pg[(i%a.perPage)*a.size]))
}

// get returns a copy of record i without marking its page changed.
func (a *pagedArray[T]) get(i int) T {
	var v T
	a.b.read(int64(i/a.perPage)*pageSize+int64((i%a.perPage)*a.size), unsafe.Slice((*byte)(unsafe.Pointer(&v)), a.size))
	return v
}

// push appends v.
func (a *pagedArray[T]) push(v T) {
	a.b.grow(int64(a.n/a.perPage)*pageSize + int64(a.n%a.perPage+1)*int64(a.size))
	a.n++
	*a.at(a.n - 1) = v
}

// free releases the records in memory.
func (a *pagedArray[T]) free() { a.b.free(); a.n = 0 }

// pagedStrings numbers byte strings: 1 for the first one added, 2 for
// the next, and so on, with the strings and their offsets in pages. An
// indexed set (work order and message ids) numbers each distinct string
// once and finds it again: its index holds a string's 64-bit hash and
// number, the last hotMax of them in memory (12 bytes each) and the older
// ones on disk (idRuns, behind a Bloom filter), and a hash match is
// confirmed by comparing the string's bytes. A set without an index
// (texts: titles, agents, subjects) numbers every string added, equal or
// not: in memory only the pages in use, whatever the strings.
type pagedStrings struct {
	idx    *idtab.Table // nil: no index
	hash   func([]byte) uint64
	hotMax int    // entries of idx beyond which they go to disk
	disk   idRuns // the older entries of the index: key the hash, off the number
	ents   []idEntry
	offs   *pagedArray[int64] // offset in arena of string n at n-1
	arena  pagedBytes         // each string: its length as a uvarint, then its bytes
	buf    []byte             // the last string At returned
	e      [3]uint32
}

// hotStrings is pagedStrings.hotMax: 16,384 entries in memory (about
// 300 KiB); a work order or message is named again within a few hundred
// events of its creation.
const hotStrings = 1 << 14

// newPagedStrings returns an empty set (indexed: each distinct string
// numbered once) whose pages go to pf.
func newPagedStrings(pf *pageFile, indexed bool) *pagedStrings {
	s := &pagedStrings{
		offs:   newPagedArray[int64](pf),
		arena:  pagedBytes{pf: pf},
		hotMax: hotStrings,
		hash:   idtab.HashBytes,
	}
	if indexed {
		s.idx = idtab.New(3, func(e []uint32) uint64 { return uint64(e[0]) | uint64(e[1])<<32 })
	}
	return s
}

// Len returns the number of strings.
func (s *pagedStrings) Len() int { return s.offs.len() }

// Get returns the number of b, or 0 when b was never added (always 0
// without an index).
func (s *pagedStrings) Get(b []byte) uint32 {
	if s.idx == nil {
		return 0
	}
	n, _ := s.find(b, s.hash(b))
	return n
}

func (s *pagedStrings) find(b []byte, h uint64) (uint32, idtab.Cursor) {
	// Word 2 of an entry, the string's number, is never 0 (Seek's
	// nonzero word).
	c := s.idx.Probe(h)
	for e := c.Seek(0, 2, ^uint32(0), uint32(h), uint32(h>>32)); e != nil; e = c.Seek(0, 2, ^uint32(0), uint32(h), uint32(h>>32)) {
		if bytes.Equal(s.At(e[2]), b) {
			return e[2], c
		}
	}
	if s.disk.has(h) {
		var n uint32
		if s.disk.find(h, func(off uint64) bool { n = uint32(off); return bytes.Equal(s.At(n), b) }) {
			return n, c
		}
	}
	return 0, c
}

// Add returns the number of b, numbering it when new (added true; always
// without an index).
func (s *pagedStrings) Add(b []byte) (n uint32, added bool) {
	var h uint64
	var c idtab.Cursor
	if s.idx != nil {
		h = s.hash(b)
		if n, c = s.find(b, h); n > 0 {
			return n, false
		}
	}
	var l [binary.MaxVarintLen64]byte
	off := s.arena.append(l[:binary.PutUvarint(l[:], uint64(len(b)))])
	s.arena.append(b)
	s.offs.push(off)
	n = uint32(s.offs.len())
	if s.idx != nil {
		s.e = [3]uint32{uint32(h), uint32(h >> 32), n}
		c.Put(s.e[:])
		if s.idx.Len() >= s.hotMax {
			s.spill()
		}
	}
	return n, true
}

// spill moves the entries of idx to a new run on disk; when it cannot,
// they stay (and idx grows from then on).
func (s *pagedStrings) spill() {
	s.ents = s.ents[:0]
	s.idx.Each(func(e []uint32) {
		s.ents = append(s.ents, idEntry{key: uint64(e[0]) | uint64(e[1])<<32, off: uint64(e[2])})
	})
	if !s.disk.write(s.ents) {
		s.hotMax = int(^uint(0) >> 1)
		return
	}
	s.idx.Free()
	s.idx.Reserve(s.hotMax)
}

// err returns why index entries on disk could not be read back (nil:
// none).
func (s *pagedStrings) err() error { return s.disk.err }

// At returns string n (1 <= n <= Len; otherwise, and when its page could
// not be read back, an empty string); it is valid until the next call on
// s: copy it to keep it.
func (s *pagedStrings) At(n uint32) []byte {
	if n == 0 || int(n) > s.offs.len() {
		return nil
	}
	off := s.offs.get(int(n) - 1)
	var l [binary.MaxVarintLen64]byte
	s.arena.read(off, l[:min(int64(len(l)), s.arena.n-off)])
	ln, k := binary.Uvarint(l[:])
	if k <= 0 || ln > uint64(s.arena.n-off-int64(k)) {
		return nil
	}
	if uint64(cap(s.buf)) < ln {
		s.buf = make([]byte, ln)
	}
	s.buf = s.buf[:ln]
	s.arena.read(off+int64(k), s.buf)
	return s.buf
}

// Free releases the set's memory; it is empty afterwards.
func (s *pagedStrings) Free() {
	if s.idx != nil {
		s.idx.Free()
	}
	s.disk.free()
	s.ents = nil
	s.offs.free()
	s.arena.free()
	s.buf = nil
}
