package rules

import (
	"bytes"
	"sort"

	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// recordIDs is the exact set of the string ids one field of a file's
// records carries (VerMAS event_id: VM100, VM104), each with the line of
// the record that first carried it, in compact entries:
//
//   - an id of a record the engine can read again (StreamRecord.Source) is
//     an entry of the record's byte offset and 59 bits of the id's hash:
//     the last hotMax of them in memory (offs: 12 bytes each, outside the
//     Go heap when large), the older ones on disk (disk: sorted runs in
//     temporary files behind a Bloom filter of 12 bits an id, idRuns); a
//     possible repeat (same hash bits) is confirmed by reading the earlier
//     record again and comparing its id exactly, and its line is counted
//     from the nearest of the marks kept every 64 records (lineMarks);
//   - an id of a record that cannot be read again (standard input, offsets
//     beyond 64 GiB) is kept whole (whole: its bytes and ~21 bytes more);
//   - the last ids added are also kept whole in a small direct-mapped cache
//     (recent), so that a reference to a recent record (caused_by names the
//     event that triggered this one, usually a few hundred lines back) is
//     found without reading the file again.
//
// Every answer is exact: a hash match alone never decides.
type recordIDs struct {
	field      []Field // the id's field, for Source.Values (one slice: Source caches by it)
	hash       func([]byte) uint64
	offs       *idtab.Table // the last hotMax entries: offset+1 (36 bits), idKey of the hash
	hotMax     int          // entries of offs beyond which they go to disk
	disk       idRuns       // the older entries
	ents       []idEntry    // offs's entries on their way to disk
	whole      *idtab.Strings
	wholeLines []uint32 // line of whole's string n at wholeLines[n-1]
	src        Source
	marks      *lineMarks // of the file's records, noted by the caller
	recent     []recentID
	vals       [1]Value
	e          [3]uint32
}

// hotIDs is recordIDs.hotMax: 65,536 entries in memory (about 1 MiB).
const hotIDs = 1 << 16

// recentID is a slot of recordIDs.recent: an id of up to 36 bytes (a
// UUID's text), n its length plus one (0: empty), and its first line.
type recentID struct {
	line uint32
	n    uint8
	id   [36]byte
}

// recentSlots is the size of recordIDs.recent (a power of two): 16,384
// slots of 44 bytes.
const recentSlots = 1 << 14

// newRecordIDs returns an empty set of the ids of field (a one-element
// slice kept by the caller: Source caches its extractor by it); the
// caller notes every record of the file in marks (lineMarks.note).
func newRecordIDs(field []Field, marks *lineMarks) *recordIDs {
	return &recordIDs{
		field:  field,
		marks:  marks,
		hash:   idtab.HashBytes,
		offs:   idtab.New(3, func(e []uint32) uint64 { return uint64(e[2])<<32 | uint64(e[1]&^15) }),
		hotMax: hotIDs,
		whole:  idtab.NewStrings(),
		recent: make([]recentID, recentSlots),
	}
}

// idKey is the key of an id of hash h in offs and on disk: 59 bits of
// the hash, with bit 4 set, so that word 1 of every entry of offs is
// nonzero (idtab.Cursor.Seek) whatever its offset.
func idKey(h uint64) uint64 { return h&^31 | 16 }

// len returns the number of distinct ids.
func (s *recordIDs) len() int { return s.offs.Len() + s.disk.n + s.whole.Len() }

// err returns why entries on disk could not be read back (nil: none).
func (s *recordIDs) err() error { return s.disk.err }

// find reports whether a record carried id (hash h): the line of the
// first one, or, when it was read again, its offset (off >= 0; line 0);
// c is where id's entry goes when it is new.
func (s *recordIDs) find(id []byte, h uint64) (line int, off int64, found bool, c idtab.Cursor) {
	if len(s.recent) > 0 && len(id) <= len(recentID{}.id) {
		r := &s.recent[h&uint64(len(s.recent)-1)]
		if int(r.n) == len(id)+1 && bytes.Equal(r.id[:len(id)], id) {
			return int(r.line), -1, true, c
		}
	}
	if s.whole.Len() > 0 {
		if n := s.whole.Get(id); n > 0 {
			return int(s.wholeLines[n-1]), -1, true, c
		}
	}
	// The offs table places an entry by the 60 hash bits it stores (so that
	// it can grow without reading records again); the runs on disk sort
	// them by the same key.
	key := idKey(h)
	c = s.offs.Probe(key)
	if s.offs.Len() > 0 {
		for e := c.Seek(1, 1, ^uint32(15), uint32(key), uint32(key>>32)); e != nil; e = c.Seek(1, 1, ^uint32(15), uint32(key), uint32(key>>32)) {
			if off := int64(e[0]) | int64(e[1]&15)<<32 - 1; s.is(off, id) {
				return 0, off, true, c
			}
		}
	}
	if s.disk.has(key) {
		off := int64(-1)
		if s.disk.find(key, func(o uint64) bool { off = int64(o) - 1; return s.is(off, id) }) {
			return 0, off, true, c
		}
	}
	return 0, -1, false, c
}

// is reports whether the record at off carries id.
func (s *recordIDs) is(off int64, id []byte) bool {
	return s.src.Values(off, s.field, s.vals[:]) && s.vals[0].Type == ValueString && bytes.Equal(s.vals[0].Str, id)
}

// has reports whether a record of the file carried id.
func (s *recordIDs) has(id []byte) bool { return s.hasHashed(id, s.hash(id)) }

// hasHashed is has of id whose hash (s.hash) is h.
func (s *recordIDs) hasHashed(id []byte, h uint64) bool {
	_, _, found, _ := s.find(id, h)
	return found
}

// recentLine appends to ls the first word of the cache slot of hash h
// (recent), the line that has and add read first.
func (s *recordIDs) recentLine(h uint64, ls *[]*uint32) {
	if len(s.recent) > 0 {
		*ls = append(*ls, &s.recent[h&uint64(len(s.recent)-1)].line)
	}
}

// lines appends to ls the first words of the cache lines that add of an
// id of hash h reads (its cache slot, the home bucket of offs, the block
// of the filter of the entries on disk), so that a batch of adds can load
// them together (idtab.LoadLines) before it adds.
func (s *recordIDs) lines(h uint64, ls *[]*uint32) {
	s.recentLine(h, ls)
	if p := s.offs.Line(idKey(h)); p != nil {
		*ls = append(*ls, p)
	}
	if s.disk.n > 0 && !s.disk.all {
		*ls = append(*ls, s.disk.bloom.Line(runKey(idKey(h))))
	}
}

// add records that rec carries id; it returns the line of the record that
// first carried it and whether that was an earlier record.
func (s *recordIDs) add(rec *StreamRecord, id []byte) (first int, dup bool) {
	return s.addHashed(rec, id, s.hash(id))
}

// addHashed is add of id whose hash (s.hash) is h.
func (s *recordIDs) addHashed(rec *StreamRecord, id []byte, h uint64) (first int, dup bool) {
	first, off, dup, c := s.find(id, h)
	if dup && off >= 0 {
		first = s.marks.lineAt(s.src, off)
	}
	if dup {
		return first, true
	}
	if off := rec.Offset; rec.Source != nil && off >= 0 && off < offMax {
		s.src = rec.Source
		o := uint64(off + 1)
		key := idKey(h)
		s.e[0], s.e[1], s.e[2] = uint32(o), uint32(o>>32)|uint32(key), uint32(key>>32)
		c.Put(s.e[:])
		if s.offs.Len() >= s.hotMax {
			s.spill()
		}
	} else {
		s.whole.Add(id)
		s.wholeLines = append(s.wholeLines, uint32(rec.Line))
	}
	if len(s.recent) > 0 && len(id) <= len(recentID{}.id) {
		r := &s.recent[h&uint64(len(s.recent)-1)]
		r.line, r.n = uint32(rec.Line), uint8(len(id)+1)
		copy(r.id[:], id)
	}
	return rec.Line, false
}

// spill moves the entries of offs to a new run on disk; when it cannot,
// they stay (and offs grows from then on).
func (s *recordIDs) spill() {
	s.ents = s.ents[:0]
	s.offs.Each(func(e []uint32) {
		s.ents = append(s.ents, idEntry{key: uint64(e[2])<<32 | uint64(e[1]&^15), off: uint64(e[0]) | uint64(e[1]&15)<<32})
	})
	if !s.disk.writeFan(s.ents, idFan) {
		s.hotMax = int(^uint(0) >> 1)
		return
	}
	s.offs.Free()
	s.offs.Reserve(s.hotMax)
}

// expect makes room for the ids of a file of records records, in
// proportion to the ids of the records noted so far (Expecter): the
// table in memory up to hotMax entries, the filter of the entries on disk
// for the rest.
func (s *recordIDs) expect(records int) {
	if s.marks == nil || s.marks.seen == 0 || s.offs.Len() == 0 {
		return
	}
	n := int(int64(records) * int64(s.offs.Len()) / int64(s.marks.seen))
	s.offs.Reserve(min(n, s.hotMax))
	s.disk.plan = n
}

// free releases the set's memory; it must not be used afterwards.
func (s *recordIDs) free() {
	s.offs.Free()
	s.disk.free()
	s.whole.Free()
	s.wholeLines, s.recent, s.src, s.marks = nil, nil, nil, nil
}

// lineMarks finds the line of an earlier record of a file from its byte
// offset: it keeps the line and offset of every markEvery-th record (16
// bytes each, in pages of markPage marks, so that the marks never move
// and their memory grows by one page at a time, never by a doubled copy)
// and counts the newlines between the nearest mark and the record.
type lineMarks struct {
	pages [][]lineMark
	n     int // marks in pages
	seen  int
	buf   []byte
}

// markEvery is the number of records between two marks: a lookup reads
// at most the bytes of that many records once (lineAt), and a million
// records keep 250 KiB of marks.
const markEvery = 64

// markPage is the number of marks of one page (64 KiB).
const markPage = 4096

// lineMark is the line of the record at a byte offset.
type lineMark struct {
	off  int64
	line int
}

// note counts rec, marking it when it is the markEvery-th since the last
// mark; call it for every record of the file, in order.
func (m *lineMarks) note(rec *StreamRecord) {
	if m.seen%markEvery == 0 && rec.Offset >= 0 {
		if m.n%markPage == 0 {
			m.pages = append(m.pages, make([]lineMark, 0, markPage))
		}
		p := &m.pages[len(m.pages)-1]
		*p = append(*p, lineMark{off: rec.Offset, line: rec.Line})
		m.n++
	}
	m.seen++
}

// mark returns the i-th mark.
func (m *lineMarks) mark(i int) lineMark { return m.pages[i/markPage][i%markPage] }

// lineAt returns the line of the record at off of src: the line of the
// nearest mark at or before it plus the newlines between them (0 when no
// mark precedes it).
func (m *lineMarks) lineAt(src Source, off int64) int {
	i := sort.Search(m.n, func(i int) bool { return m.mark(i).off > off }) - 1
	if i < 0 {
		return 0
	}
	mk := m.mark(i)
	if m.buf == nil {
		m.buf = make([]byte, 32<<10)
	}
	line := mk.line
	for pos := mk.off; pos < off; {
		n, err := src.ReadAt(m.buf[:min(int64(len(m.buf)), off-pos)], pos)
		line += bytes.Count(m.buf[:n], []byte{'\n'})
		pos += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return line
}

// idFan is the fan-in of the merges of a recordIDs' runs on disk
// (idRuns.writeFan): each entry is written about log4 of the spills
// times instead of log2, and at most three runs of each size remain.
const idFan = 4
