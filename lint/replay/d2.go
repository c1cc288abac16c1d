package replay

import (
	"bytes"
	"math"
)

// posTable keeps, for every delta position of a stream that can be read
// again, the delta's byte offset in the input and two bits: entry (the
// first delta of its delta_id, D2) and applied. Positions are added in
// order, in chunks of posChunkN that never move: 4 bytes of offset per
// delta while a chunk's deltas lie within 4 GiB of its first (8 otherwise),
// plus 2 bits.
type posTable struct {
	chunks []*posChunk
	n      int // positions
}

const (
	posChunkBits = 12
	posChunkN    = 1 << posChunkBits
)

type posChunk struct {
	wide    *[posChunkN]int64 // offsets, when rel cannot hold them
	base    int64             // offset of the chunk's first delta
	rel     [posChunkN]uint32 // offset - base
	entry   [posChunkN / 64]uint64
	applied [posChunkN / 64]uint64
}

// add records the offset of the next position (pos must be p.n).
func (p *posTable) add(pos int, off int64) {
	j := pos & (posChunkN - 1)
	if j == 0 {
		p.chunks = append(p.chunks, &posChunk{base: off})
	}
	c := p.chunks[len(p.chunks)-1]
	switch d := off - c.base; {
	case c.wide != nil:
		c.wide[j] = off
	case d >= 0 && d <= math.MaxUint32:
		c.rel[j] = uint32(d)
	default:
		c.wide = new([posChunkN]int64)
		for k := range j {
			c.wide[k] = c.base + int64(c.rel[k])
		}
		c.wide[j] = off
	}
	p.n = pos + 1
}

func (p *posTable) chunk(pos int) (*posChunk, int) {
	return p.chunks[pos>>posChunkBits], pos & (posChunkN - 1)
}

// offset returns the byte offset of the delta at pos.
func (p *posTable) offset(pos int) int64 {
	c, j := p.chunk(pos)
	if c.wide != nil {
		return c.wide[j]
	}
	return c.base + int64(c.rel[j])
}

func (p *posTable) setEntry(pos int) {
	c, j := p.chunk(pos)
	c.entry[j/64] |= 1 << (j % 64)
}

func (p *posTable) isEntry(pos int) bool {
	c, j := p.chunk(pos)
	return c.entry[j/64]&(1<<(j%64)) != 0
}

func (p *posTable) setApplied(pos int) {
	c, j := p.chunk(pos)
	c.applied[j/64] |= 1 << (j % 64)
}

func (p *posTable) isApplied(pos int) bool {
	c, j := p.chunk(pos)
	return c.applied[j/64]&(1<<(j%64)) != 0
}

// The D2 record of a stream (seed 001 "Ledger Delta Application
// Semantics", D2; lint/replay/README.md) is one of two forms. A stream that
// can be read again (rereadable: a regular file, or a document held whole)
// keeps a hashIndex of positions and a posTable of offsets, and confirms
// every possible repeat by reading the earlier delta again (rereadAt); its
// digests are computed only then. A stream that cannot (standard input from
// a pipe) keeps a seenTable of ids and digests. Both are exact.

// rereadable reports whether the stream's D2 record is a hashIndex.
func (s *stream) rereadable() bool { return s.reread }

// fail records the first error of reading the stream again; the replay
// returns it (as an *InputError) when it ends.
func (s *stream) fail(err error) {
	if s.err == nil {
		s.err = rereadError(s.name, err)
	}
}

// rereadID returns the delta_id of the delta at position pos, read again
// (the delta read last is kept, its text too: a repeat's id is compared,
// then its text or digest asked for). ok is false when it cannot be read
// again (s.err says why).
func (s *stream) rereadID(pos uint32) (id []byte, ok bool) {
	if s.last.ok && s.last.pos == pos {
		return s.last.id, true
	}
	s.last = rereadDelta{}
	text, err := s.rr.at(s.pos.offset(int(pos)))
	if err != nil {
		s.fail(err)
		return nil, false
	}
	var d delta
	s.rdd.buf = s.rdd.buf[:0]
	if err := s.rdd.decodeInto(text, &d); err != nil {
		s.fail(errChanged)
		return nil, false
	}
	s.last = rereadDelta{pos: pos, id: d.deltaID, text: text, ok: true}
	return d.deltaID, true
}

// rereadAt is rereadID with the delta's digest.
func (s *stream) rereadAt(pos uint32) (id []byte, dg digest, ok bool) {
	if id, ok = s.rereadID(pos); !ok {
		return nil, digest{}, false
	}
	if !s.last.hasDigest {
		s.cdd.buf = s.cdd.buf[:0]
		d, err := s.cdd.read(s.last.text)
		if err != nil {
			s.fail(errChanged)
			return nil, digest{}, false
		}
		s.last.dg, s.last.hasDigest = d.digest, true
	}
	return id, s.last.dg, true
}

// sameID reports whether the delta at position pos, an entry whose hash
// agrees with h in a hashIndex slot, has delta_id id. A delta read again
// whose id no longer hashes to its slot means the input changed (s.err).
func (s *stream) sameID(pos uint32, id []byte, h uint64) bool {
	other, ok := s.rereadID(pos)
	if !ok {
		return false
	}
	if bytes.Equal(other, id) {
		return true
	}
	if hs, tag := shardOf(s.hash(other)); hs != int(h>>(64-hashShardBits)) || tag != uint32(h) {
		s.fail(errChanged)
	}
	return false
}

// digestOf returns the digest of a delta's text (read before).
func (s *stream) digestOf(raw []byte) digest {
	s.cdd.buf = s.cdd.buf[:0]
	d, err := s.cdd.read(raw)
	if err != nil {
		s.fail(errChanged)
	}
	return d.digest
}

// d2Find looks delta d (text raw) up in the stream's D2 record: the
// position of the first delta with its delta_id and that delta's digest
// (ok false: a new id; at is then where insert adds it). It also returns
// d's own digest when the id is known (computing it when the decoder did
// not).
func (s *stream) d2Find(d *delta, raw []byte) (first int, firstDg, dg digest, at hashSlot, ok bool) {
	if !s.rereadable() {
		ref, slot, found := s.seen.locate(d.deltaID, d.hash)
		s.seenSlot = slot
		if !found {
			return 0, digest{}, d.digest, hashSlot{}, false
		}
		return s.seen.index(ref), s.seen.digest(ref), d.digest, hashSlot{}, true
	}
	pos, at, found := s.idx.find(d.hash, func(p uint32) bool { return s.sameID(p, d.deltaID, d.hash) })
	if !found {
		return 0, digest{}, digest{}, at, false
	}
	if s.rereadID(pos); bytes.Equal(s.last.text, raw) {
		// The same bytes: the same content, whatever its digest.
		return int(pos), digest{}, digest{}, at, true
	}
	_, firstDg, _ = s.rereadAt(pos)
	return int(pos), firstDg, s.digestOf(raw), at, true
}

// d2Insert records delta d at position index as the first with its
// delta_id (at: from d2Find) and returns its reference (origin.ref).
func (s *stream) d2Insert(d *delta, at hashSlot, index int) uint32 {
	if !s.rereadable() {
		return s.seen.insert(s.seenSlot, d.deltaID, d.digest, index)
	}
	s.idx.insert(at, d.hash, uint32(index))
	s.pos.setEntry(index)
	return uint32(index)
}

// setApplied records that the delta of reference ref (position index) was
// applied.
func (s *stream) setApplied(ref uint32, index int) {
	if s.rereadable() {
		s.pos.setApplied(index)
		return
	}
	s.seen.setApplied(ref)
}

// deltaID returns the delta_id of the stream's delta with reference ref
// (position index) as a string ("" when it cannot be read again).
func (s *stream) deltaID(ref uint32, index int) string {
	if s.rereadable() {
		id, _ := s.rereadID(uint32(index))
		return string(id)
	}
	return string(s.seen.id(ref))
}

// d2Entry is the first delta of a delta_id in a stream, as streams are
// compared (D2 across streams): its id, position and id hash, and its
// text when the stream is read again (then its digest is computed only when
// asked for, by entryDigest) or its digest when the stream keeps them. id
// and text are valid until the stream is read again.
type d2Entry struct {
	id, text []byte
	h        uint64
	index    int
	dg       digest
	hasDg    bool
}

// entryDigest returns the digest of entry e (read last from s).
func (s *stream) entryDigest(e d2Entry) digest {
	if e.hasDg {
		return e.dg
	}
	_, dg, _ := s.rereadAt(uint32(e.index))
	return dg
}

// sameContent reports whether entry e of s and entry fe of f have the same
// content: the same bytes, or else the same digest.
func sameContent(s *stream, e d2Entry, f *stream, fe d2Entry) bool {
	if e.text != nil && fe.text != nil && bytes.Equal(e.text, fe.text) {
		return true
	}
	return s.entryDigest(e) == f.entryDigest(fe)
}

// entries calls fn for the first delta of every delta_id of the stream, in
// the order of the stream. It stops early when the stream cannot be read
// again.
func (s *stream) entries(fn func(e d2Entry)) {
	if !s.rereadable() {
		s.seen.each(func(ref uint32) {
			id := s.seen.id(ref)
			fn(d2Entry{id: id, h: s.hash(id), index: s.seen.index(ref), dg: s.seen.digest(ref), hasDg: true})
		})
		return
	}
	for p := range s.pos.n {
		if !s.pos.isEntry(p) {
			continue
		}
		id, ok := s.rereadID(uint32(p))
		if !ok {
			return
		}
		fn(d2Entry{id: id, text: s.last.text, h: s.hash(id), index: p})
	}
}

// lookup returns the first delta of the stream with delta_id id (hash h).
func (s *stream) lookup(id []byte, h uint64) (d2Entry, bool) {
	if !s.rereadable() {
		ref, found := s.seen.lookupHash(id, h)
		if !found {
			return d2Entry{}, false
		}
		return d2Entry{id: s.seen.id(ref), h: h, index: s.seen.index(ref), dg: s.seen.digest(ref), hasDg: true}, true
	}
	pos, found := s.idx.lookup(h, func(p uint32) bool { return s.sameID(p, id, h) })
	if !found {
		return d2Entry{}, false
	}
	fid, _ := s.rereadID(pos)
	return d2Entry{id: fid, text: s.last.text, h: h, index: int(pos)}, true
}

// appliedEntries calls fn for every applied delta of the stream, with its
// delta_id (valid during the call) and digest.
func (s *stream) appliedEntries(fn func(id []byte, dg digest)) {
	if !s.rereadable() {
		s.seen.each(func(ref uint32) {
			if s.seen.applied(ref) {
				fn(s.seen.id(ref), s.seen.digest(ref))
			}
		})
		return
	}
	for p := range s.pos.n {
		if !s.pos.isApplied(p) {
			continue
		}
		id, dg, ok := s.rereadAt(uint32(p))
		if !ok {
			return
		}
		fn(id, dg)
	}
}
