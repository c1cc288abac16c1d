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
//     an 8-byte entry of the record's byte offset and 28 bits of the id's
//     hash (offs, outside the Go heap); a possible repeat (same hash bits)
//     is confirmed by reading the earlier record again and comparing its
//     id exactly, and its line is counted from the nearest of the marks
//     kept every 32 records (lineMarks);
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
	offs       *idtab.Table
	whole      *idtab.Strings
	wholeLines []uint32 // line of whole's string n at wholeLines[n-1]
	src        Source
	marks      *lineMarks // of the file's records, noted by the caller
	recent     []recentID
	vals       [1]Value
	e          [2]uint32
}

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
		offs:   idtab.New(2, func(e []uint32) uint64 { return uint64(e[1] &^ 15) }),
		whole:  idtab.NewStrings(),
		recent: make([]recentID, recentSlots),
	}
}

// len returns the number of distinct ids.
func (s *recordIDs) len() int { return s.offs.Len() + s.whole.Len() }

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
	// The offs table places an entry by the 28 hash bits it stores (so that
	// it can grow without reading records again), in the shard of h.
	p := uint32(h) &^ 15
	c = s.offs.Probe(h&^(1<<32-1) | uint64(p))
	if s.offs.Len() == 0 {
		return 0, -1, false, c
	}
	for e := c.Next(); e != nil; e = c.Next() {
		if e[1]&^15 != p {
			continue
		}
		off := int64(e[0]) | int64(e[1]&15)<<32 - 1
		if s.src.Values(off, s.field, s.vals[:]) && s.vals[0].Type == ValueString && bytes.Equal(s.vals[0].Str, id) {
			return 0, off, true, c
		}
	}
	return 0, -1, false, c
}

// has reports whether a record of the file carried id.
func (s *recordIDs) has(id []byte) bool {
	_, _, found, _ := s.find(id, s.hash(id))
	return found
}

// add records that rec carries id; it returns the line of the record that
// first carried it and whether that was an earlier record.
func (s *recordIDs) add(rec *StreamRecord, id []byte) (first int, dup bool) {
	h := s.hash(id)
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
		s.e[0], s.e[1] = uint32(o), uint32(o>>32)|uint32(h)&^15
		c.Put(s.e[:])
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

// expect makes room for the ids of a file of records records, in
// proportion to the ids of the records noted so far (Expecter).
func (s *recordIDs) expect(records int) {
	if s.marks == nil || s.marks.seen == 0 || s.offs.Len() == 0 {
		return
	}
	s.offs.Reserve(int(int64(records) * int64(s.offs.Len()) / int64(s.marks.seen)))
}

// free releases the set's memory; it must not be used afterwards.
func (s *recordIDs) free() {
	s.offs.Free()
	s.whole.Free()
	s.wholeLines, s.recent, s.src, s.marks = nil, nil, nil, nil
}

// lineMarks finds the line of an earlier record of a file from its byte
// offset: it keeps the line and offset of every 32nd record (16 bytes) and
// counts the newlines between the nearest mark and the record.
type lineMarks struct {
	marks []lineMark
	seen  int
	buf   []byte
}

// lineMark is the line of the record at a byte offset.
type lineMark struct {
	off  int64
	line int
}

// note counts rec, marking it when it is the 32nd since the last mark;
// call it for every record of the file, in order.
func (m *lineMarks) note(rec *StreamRecord) {
	if m.seen%32 == 0 && rec.Offset >= 0 {
		m.marks = append(m.marks, lineMark{off: rec.Offset, line: rec.Line})
	}
	m.seen++
}

// lineAt returns the line of the record at off of src: the line of the
// nearest mark at or before it plus the newlines between them (0 when no
// mark precedes it).
func (m *lineMarks) lineAt(src Source, off int64) int {
	i := sort.Search(len(m.marks), func(i int) bool { return m.marks[i].off > off }) - 1
	if i < 0 {
		return 0
	}
	mk := m.marks[i]
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
