package replay

import (
	"bytes"
	"math"
)

// seenTable is a D2 table (seed 001 "Ledger Delta Application Semantics",
// D2; lint/replay/README.md): every distinct delta_id of a stream that cannot
// be read again (standard input from a pipe; a stream that can keeps a
// hashIndex instead, see d2.go) or of BASE's x_agentlint_applied_deltas,
// with the digest of the first delta that carried it, its position in the
// stream and whether it was applied. Ids are hashed by the run's hash
// (run.hashID), which the decoding workers apply once per delta.
//
// It is compact and exact: the ids' bytes are kept in per-chunk byte arenas
// (no Go string per id), the other columns in fixed-size per-chunk arrays,
// and an open-addressing table of uint32 entry references (linear probing,
// load ≤ 3/4) finds an id by its maphash and confirms it by comparing the
// id's bytes, so a hit is an equal id, never a hash collision. Chunks never
// move, so growing the table leaves no garbage but the old slot array. Cost
// per distinct id: 16 bytes of digest, 0 or 4 of arena offset (0 while a
// chunk's ids have one length), 0 or 4 of position, the id's bytes and
// 5–13.3 bytes of slots and tags (about 28 bytes plus the id in all, against
// ~140 for a Go map of strings). References are 32 bits: a table holds at
// most 2^32 entries (some 150 GB of ids and digests).
type seenTable struct {
	hash   func([]byte) uint64 // the ids' hash (the run's: see run.hashID)
	chunks []*seenChunk
	slots  []uint32 // 0: empty; otherwise entry reference + 1
	tags   []uint8  // per slot: 8 bits of the id's hash, to skip most comparisons
	tag    uint8    // the tag of the id locate last looked for
	n      int      // entries
}

// seenChunkBits is log2 of the entries of a chunk.
const (
	seenChunkBits = 12
	seenChunkN    = 1 << seenChunkBits
)

// seenChunk holds seenChunkN entries; an entry's reference is its chunk's
// number << seenChunkBits | its position in the chunk.
type seenChunk struct {
	ids []byte // first: the garbage collector scans only this prefix
	// index holds each entry's position in the stream (-1: BASE's
	// record); nil while the positions are first, first+1, … (a stream of
	// distinct ids), which costs nothing per entry.
	index *[seenChunkN]int32
	// off holds each entry's offset in ids (entry j is ids[off[j]:off[j+1]]);
	// nil while every id of the chunk has idLen bytes (ids of one form,
	// "d-0000001" or UUIDs, the common case), which costs nothing per entry.
	off     *[seenChunkN + 1]uint32
	idLen   uint32
	first   int32
	digest  [seenChunkN]digest
	applied [seenChunkN / 64]uint64
	n       int // entries used
	sealed  bool
}

// newSeenTable returns an empty table whose ids are hashed by hash.
func newSeenTable(hash func([]byte) uint64) *seenTable { return &seenTable{hash: hash} }

func (t *seenTable) chunk(ref uint32) (*seenChunk, int) {
	return t.chunks[ref>>seenChunkBits], int(ref & (seenChunkN - 1))
}

// id returns the delta_id of entry ref (valid as long as the table).
func (t *seenTable) id(ref uint32) []byte {
	c, j := t.chunk(ref)
	if c.off == nil {
		lo, hi := uint32(j)*c.idLen, uint32(j+1)*c.idLen
		return c.ids[lo:hi:hi]
	}
	return c.ids[c.off[j]:c.off[j+1]:c.off[j+1]]
}

// digest returns the digest recorded with entry ref.
func (t *seenTable) digest(ref uint32) digest {
	c, j := t.chunk(ref)
	return c.digest[j]
}

// index returns the stream position recorded with entry ref.
func (t *seenTable) index(ref uint32) int {
	c, j := t.chunk(ref)
	if c.index == nil {
		return int(c.first) + j
	}
	return int(c.index[j])
}

// applied reports whether the delta of entry ref was applied.
func (t *seenTable) applied(ref uint32) bool {
	c, j := t.chunk(ref)
	return c.applied[j/64]&(1<<(j%64)) != 0
}

// setApplied records that the delta of entry ref was applied.
func (t *seenTable) setApplied(ref uint32) {
	c, j := t.chunk(ref)
	c.applied[j/64] |= 1 << (j % 64)
}

// len returns the number of entries.
func (t *seenTable) len() int {
	if t == nil {
		return 0
	}
	return t.n
}

// each calls fn for every entry, in the order they were added.
func (t *seenTable) each(fn func(ref uint32)) {
	if t == nil {
		return
	}
	for k, c := range t.chunks {
		for j := range c.n {
			fn(uint32(k<<seenChunkBits | j))
		}
	}
}

// lookup returns the entry of id.
func (t *seenTable) lookup(id []byte) (ref uint32, ok bool) {
	if t == nil || t.n == 0 {
		return 0, false
	}
	return t.lookupHash(id, t.hash(id))
}

// lookupHash is lookup of id whose hash is h.
func (t *seenTable) lookupHash(id []byte, h uint64) (ref uint32, ok bool) {
	if t == nil || t.n == 0 {
		return 0, false
	}
	ref, _, ok = t.find(id, h)
	return ref, ok
}

// find returns the entry of id (hash h), or the slot where it would go.
func (t *seenTable) find(id []byte, h uint64) (ref uint32, slot int, ok bool) {
	mask, tag := len(t.slots)-1, uint8(h>>56)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if t.tags[i] == tag && bytes.Equal(t.id(s-1), id) {
			return s - 1, i, true
		}
	}
}

// locate returns the entry of id (whose hash is h) or, when there is
// none, the slot that insert takes to add it (valid until the next insert).
func (t *seenTable) locate(id []byte, h uint64) (ref uint32, slot int, ok bool) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	t.tag = uint8(h >> 56)
	return t.find(id, h)
}

// insert adds an entry for id, with digest dg and stream position index, at
// the slot that locate returned for it.
func (t *seenTable) insert(slot int, id []byte, dg digest, index int) uint32 {
	ref := t.add(id, dg, index)
	t.slots[slot], t.tags[slot] = ref+1, t.tag
	return ref
}

// put adds an entry for id unless there is one.
func (t *seenTable) put(id []byte, dg digest, index int) {
	if _, slot, ok := t.locate(id, t.hash(id)); !ok {
		t.insert(slot, id, dg, index)
	}
}

// add appends an entry (without indexing it).
func (t *seenTable) add(id []byte, dg digest, index int) uint32 {
	var c *seenChunk
	if k := len(t.chunks); k > 0 {
		c = t.chunks[k-1]
	}
	// A chunk's arena offsets are uint32: a chunk whose ids would pass
	// 4 GiB is sealed early (its remaining entries stay unused).
	if c == nil || c.n == seenChunkN || c.sealed || uint64(len(c.ids))+uint64(len(id)) > math.MaxUint32 {
		size := 16 * seenChunkN // the arena's first capacity: the previous chunk's size
		if c != nil {
			c.sealed = true
			size = len(c.ids) + len(c.ids)/16
		}
		c = &seenChunk{ids: make([]byte, 0, max(size, len(id)))}
		t.chunks = append(t.chunks, c)
	}
	j := c.n
	switch {
	case j == 0:
		c.first = int32(index)
	case c.index == nil && int(c.first)+j != index:
		c.index = new([seenChunkN]int32)
		for k := range j {
			c.index[k] = c.first + int32(k)
		}
	}
	if c.index != nil {
		c.index[j] = int32(index)
	}
	switch {
	case j == 0:
		c.idLen = uint32(len(id))
	case c.off == nil && uint32(len(id)) != c.idLen:
		c.off = new([seenChunkN + 1]uint32)
		for k := 1; k <= j; k++ {
			c.off[k] = uint32(k) * c.idLen
		}
	}
	c.digest[j] = dg
	c.ids = append(c.ids, id...)
	if c.off != nil {
		c.off[j+1] = uint32(len(c.ids))
	}
	c.n++
	t.n++
	return uint32((len(t.chunks)-1)<<seenChunkBits | j)
}

// grow doubles the slot array and indexes every entry again.
func (t *seenTable) grow() {
	n := max(64, 2*len(t.slots))
	t.slots, t.tags = make([]uint32, n), make([]uint8, n)
	mask := n - 1
	t.each(func(ref uint32) {
		h := t.hash(t.id(ref))
		i := int(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i], t.tags[i] = ref+1, uint8(h>>56)
	})
}

// lineMap maps the position of a delta in a JSON Lines stream to its line,
// storing only the positions where the line is not the one after the
// previous delta's (blank lines, skipped lines, invalid records).
type lineMap struct {
	index, line []int32
}

// set records that delta index (set in increasing order) is on line.
func (m *lineMap) set(index, line int) {
	want := index + 1 // the line after the previous delta's
	if k := len(m.index) - 1; k >= 0 {
		want = int(m.line[k]) + index - int(m.index[k])
	}
	if want != line {
		m.index = append(m.index, int32(index))
		m.line = append(m.line, int32(line))
	}
}

// get returns the line of delta index.
func (m *lineMap) get(index int) int {
	lo, hi := 0, len(m.index) // the last k with m.index[k] <= index
	for lo < hi {
		mid := (lo + hi) / 2
		if int(m.index[mid]) <= index {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return index + 1
	}
	return int(m.line[lo-1]) + index - int(m.index[lo-1])
}
