// Package idtab holds the exact sets of the stream rules that remember
// every distinct id of a run ("exact id rules in bounded
// memory"): open-addressing hash tables of fixed-size entries of W uint32
// words, instead of Go maps of strings (a map entry costs about twice its
// key, and a growing map leaves its old buckets to the garbage collector).
//
// Entries are compared exactly by the caller (no probabilistic answer).
// A table is split into 64 shards by the hash's top bits; each shard grows
// on its own (by half its size once large), so that growing copies at most
// 1/64 of the table at a time. Shards of 64 KiB and more are mapped from
// the operating system (mmap on Unix) outside the Go heap and unmapped as
// soon as they are replaced: peak RSS is what the entries need, not twice
// the live heap. Free (or, failing that, the garbage collector) returns
// them.
//
// An all-zero entry marks an empty slot: callers never insert one.
package idtab

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"unsafe"
)

const (
	shardBits = 6
	nShards   = 1 << shardBits
	// maxLoad is the load (entries per slot, in 1/16) above which a shard grows.
	maxLoad16 = 13 // 0.8125
)

// seed makes the hash of a process unpredictable (no hash flooding by a
// crafted log); verdicts do not depend on it.
var seed = rand.Uint64() | 1

// Hash returns a 64-bit hash of a and b (wyhash's multiply-fold).
func Hash(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^seed, b^0xe7037ed1a0b428db)
	hi, lo = bits.Mul64(hi^lo^0xa0761d6478bd642f, lo^seed)
	return hi ^ lo
}

// HashBytes returns a 64-bit hash of b: one round of Hash per 16 bytes,
// the last block (1 to 16 bytes, or none for an empty b) padded with
// zeros, and b's length mixed into the first.
func HashBytes(b []byte) uint64 {
	h := uint64(len(b))
	for len(b) > 16 {
		h = Hash(h^le64(b), le64(b[8:]))
		b = b[16:]
	}
	var t [16]byte
	copy(t[:], b)
	return Hash(h^le64(t[:]), le64(t[8:]))
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Table is a set of entries of W uint32 words with a caller-given hash.
// Its slots are grouped in buckets of one 64-byte cache line (16 words:
// 16/W entries, the rest unused), probed bucket after bucket from the
// hash's home bucket: a lookup reads one cache line in the common case,
// however long the table (linear probing over single slots read two or
// three lines, each a cache miss once the table outgrows the caches).
// Not safe for concurrent use.
type Table struct {
	w    int
	per  uint32                  // entries per bucket: 16/w
	hash func(e []uint32) uint64 // to rehash an entry when a shard grows
	m    *mem
	n    int
}

type mem struct {
	shards [nShards]shard
}

type shard struct {
	words  []uint32 // nb buckets of bucketWords words, 64-byte aligned
	raw    []uint32 // the allocation words lies in
	nb     uint32   // buckets
	n      uint32   // entries
	mapped bool
}

// bucketWords is the size of a bucket in words: one 64-byte cache line.
const bucketWords = 16

// New returns an empty table of entries of w words (1 to 16); hash must
// return, for an entry, the hash it was inserted with (its low 32 bits
// place it within its shard).
func New(w int, hash func(e []uint32) uint64) *Table {
	t := &Table{w: w, per: uint32(bucketWords / w), hash: hash, m: &mem{}}
	runtime.AddCleanup(t, func(m *mem) { m.free() }, t.m)
	return t
}

// Len returns the number of entries.
func (t *Table) Len() int { return t.n }

// Bytes returns the memory the table's slots take.
func (t *Table) Bytes() int {
	n := 0
	for i := range t.m.shards {
		n += len(t.m.shards[i].raw) * 4
	}
	return n
}

// Free releases the table's memory; the table is empty afterwards.
func (t *Table) Free() {
	t.m.free()
	t.n = 0
}

// Clear empties the table and keeps its memory (each shard its size):
// for a table refilled to about the same size, as when its entries went
// to disk, instead of Free and Reserve.
func (t *Table) Clear() {
	for i := range t.m.shards {
		s := &t.m.shards[i]
		clear(s.words)
		s.n = 0
	}
	t.n = 0
}

func (m *mem) free() {
	for i := range m.shards {
		s := &m.shards[i]
		release(s.raw, s.mapped)
		*s = shard{}
	}
}

func (t *Table) shard(h uint64) *shard { return &t.m.shards[h>>(64-shardBits)] }

// home is the first bucket of h in a shard of nb buckets.
func home(h uint64, nb uint32) uint32 { return uint32((uint64(uint32(h)) * uint64(nb)) >> 32) }

// full reports whether one more entry would take s above the maximum load.
func (t *Table) full(s *shard) bool { return (s.n+1)*16 > s.nb*t.per*maxLoad16 }

// Cursor walks the occupied slots of one hash's probe sequence.
type Cursor struct {
	t    *Table
	h    uint64
	s    *shard
	b, k uint32 // bucket, and entry in it
	done bool
}

// Probe returns a cursor over the entries that may equal an entry of hash h.
func (t *Table) Probe(h uint64) Cursor {
	s := t.shard(h)
	if s.nb == 0 {
		return Cursor{t: t, h: h, done: true}
	}
	return Cursor{t: t, h: h, s: s, b: home(h, s.nb)}
}

// Line returns the first word of hash h's home bucket (nil when its shard
// is empty), so that a batch of lookups can load their cache lines
// together before they probe: the loads of a loop over Line results do not
// depend on each other, and their cache misses overlap.
func (t *Table) Line(h uint64) *uint32 {
	s := t.shard(h)
	if s.nb == 0 {
		return nil
	}
	return &s.words[home(h, s.nb)*bucketWords]
}

// LoadLines reads the first word of every line of lines (Line results) in
// one loop whose loads do not depend on each other, so that their cache
// misses overlap, and empties lines. It returns the sum of the words: add
// it to a field of the caller, so that the compiler keeps the loads.
func LoadLines(lines *[]*uint32) uint32 {
	var x uint32
	for _, p := range *lines {
		x += *p
	}
	clear(*lines)
	*lines = (*lines)[:0]
	return x
}

// Put inserts entry e (len W, not all zero) of the cursor's hash after
// Next returned nil (no entry of the sequence equals e): into the empty
// slot the cursor stopped at, without probing again, or through Insert
// when the shard must grow first. It returns the stored entry.
func (c *Cursor) Put(e []uint32) []uint32 {
	t, s := c.t, c.s
	if s == nil || t.full(s) {
		return t.Insert(c.h, e)
	}
	dst := s.slot(c.b, c.k, uint32(t.w))
	e = e[:len(dst)]
	for i := range dst { // a few words: no call to memmove
		dst[i] = e[i]
	}
	s.n++
	t.n++
	c.done = true
	return dst
}

// slot returns entry k of bucket b.
func (s *shard) slot(b, k, w uint32) []uint32 {
	i := b*bucketWords + k*w
	return s.words[i : i+w : i+w]
}

// Next returns the next occupied slot (its words, which may be modified
// except for the key), or nil when the sequence reaches an empty slot.
func (c *Cursor) Next() []uint32 {
	if c.done {
		return nil
	}
	w := uint32(c.t.w)
	e := c.s.slot(c.b, c.k, w)
	if empty(e) {
		c.done = true
		return nil
	}
	if c.k++; c.k == c.t.per {
		c.k = 0
		if c.b++; c.b == c.s.nb {
			c.b = 0
		}
	}
	return e
}

// Seek is Next until an entry whose word at, masked by mask, is k0 and
// whose word at+1 is k1 (at+1 < W): it returns that entry, or nil when the
// sequence reaches an empty slot (where Put then inserts). Word nz of
// every entry of the table must be nonzero (an empty slot is one whose
// word nz is 0). One loop over the bucket's words, for the lookups that
// compare a key of two words.
func (c *Cursor) Seek(at, nz int, mask, k0, k1 uint32) []uint32 {
	if c.done {
		return nil
	}
	s := c.s
	w, per, words := uint32(c.t.w), c.t.per, s.words
	a0, a1, z := uint32(at), uint32(at+1), uint32(nz)
	b, k := c.b, c.k
	for {
		// The bucket as an array: its words indexed below 16 (k*w+w <=
		// 16), masked so that the compiler drops the bounds checks.
		ws := (*[bucketWords]uint32)(words[b*bucketWords:])
		for i := k * w; k < per; k, i = k+1, i+w {
			if ws[(i+z)&(bucketWords-1)] == 0 {
				c.b, c.k, c.done = b, k, true
				return nil
			}
			if ws[(i+a0)&(bucketWords-1)]&mask == k0 && ws[(i+a1)&(bucketWords-1)] == k1 {
				if c.b, c.k = b, k+1; c.k == per {
					c.k = 0
					if c.b++; c.b == s.nb {
						c.b = 0
					}
				}
				return ws[i : i+w : i+w]
			}
		}
		k = 0
		if b++; b == s.nb {
			b = 0
		}
	}
}

// Seek3 is Seek(0, 0, ^uint32(0), k0, k1) on a table of 3-word entries
// (five a bucket) whose word 0 is never 0: the next entry whose words 0
// and 1 are k0 and k1, or nil when the sequence reaches an empty slot
// (where Put then inserts). A bucket is tested slot by slot at constant
// offsets, without a loop.
func (c *Cursor) Seek3(k0, k1 uint32) []uint32 {
	if c.done {
		return nil
	}
	if c.t.w != 3 {
		panic("idtab: Seek3 on a table of entries of other than 3 words")
	}
	s := c.s
	b, k := c.b, c.k
	for {
		ws := (*[bucketWords]uint32)(s.words[b*bucketWords:])
		// The first slot from k that is empty or holds the key (5: none).
		var at uint32
		switch {
		case k <= 0 && ws[0] == 0:
			at = 0
		case k <= 0 && ws[0] == k0 && ws[1] == k1:
			at = 0
		case k <= 1 && ws[3] == 0:
			at = 1
		case k <= 1 && ws[3] == k0 && ws[4] == k1:
			at = 1
		case k <= 2 && ws[6] == 0:
			at = 2
		case k <= 2 && ws[6] == k0 && ws[7] == k1:
			at = 2
		case k <= 3 && ws[9] == 0:
			at = 3
		case k <= 3 && ws[9] == k0 && ws[10] == k1:
			at = 3
		case ws[12] == 0:
			at = 4
		case ws[12] == k0 && ws[13] == k1:
			at = 4
		default:
			at = 5
		}
		if at < 5 {
			i := at * 3
			if ws[i] == 0 {
				c.b, c.k, c.done = b, at, true
				return nil
			}
			if c.b, c.k = b, at+1; c.k == 5 {
				c.k = 0
				if c.b++; c.b == s.nb {
					c.b = 0
				}
			}
			return ws[i : i+3 : i+3]
		}
		k = 0
		if b++; b == s.nb {
			b = 0
		}
	}
}

func empty(e []uint32) bool {
	if len(e) == 3 { // three-word entries (recordIDs, pagedStrings): no loop
		return e[0]|e[1]|e[2] == 0
	}
	var x uint32
	for _, v := range e {
		x |= v
	}
	return x == 0
}

// Insert adds entry e (len W, not all zero) of hash h; the caller has made
// sure no equal entry is present. It returns the stored entry.
func (t *Table) Insert(h uint64, e []uint32) []uint32 {
	s := t.shard(h)
	if t.full(s) {
		t.grow(s)
	}
	dst := t.place(s, home(h, s.nb))
	copy(dst, e)
	s.n++
	t.n++
	return dst
}

// place returns the first empty slot from bucket b on.
func (t *Table) place(s *shard, b uint32) []uint32 {
	w := uint32(t.w)
	for {
		for k := uint32(0); k < t.per; k++ {
			if e := s.slot(b, k, w); empty(e) {
				return e
			}
		}
		if b++; b == s.nb {
			b = 0
		}
	}
}

// Reserve makes room for n entries in all (the table's entries included),
// so that the table does not grow until it holds them: growing reads every
// entry again and writes it elsewhere. It never shrinks a shard.
func (t *Table) Reserve(n int) {
	per := (n + nShards - 1) / nShards // entries a shard expects on average
	per += per/16 + 64                 // and the spread between shards
	nb := uint32((per*16 + int(t.per)*maxLoad16 - 1) / (int(t.per) * maxLoad16))
	for i := range t.m.shards {
		if s := &t.m.shards[i]; s.nb < nb {
			t.resize(s, nb)
		}
	}
}

// grow replaces s by a larger shard holding the same entries.
func (t *Table) grow(s *shard) {
	nb := s.nb * 2
	switch {
	case nb == 0:
		nb = 4
	case s.nb >= 1<<11:
		nb = s.nb + s.nb/2
	}
	t.resize(s, nb)
}

// resize replaces s by a shard of nb buckets holding the same entries.
func (t *Table) resize(s *shard, nb uint32) {
	raw, mapped := alloc(int(nb*bucketWords) + bucketWords)
	old := *s
	s.words, s.raw, s.nb, s.mapped = aligned(raw, int(nb*bucketWords)), raw, nb, mapped
	w := uint32(t.w)
	for b := uint32(0); b < old.nb; b++ {
		for k := uint32(0); k < t.per; k++ {
			e := old.slot(b, k, w)
			if empty(e) {
				break
			}
			copy(t.place(s, home(t.hash(e), nb)), e)
		}
	}
	release(old.raw, old.mapped)
}

// aligned returns the n words of raw (n+bucketWords long) that start on a
// 64-byte boundary.
func aligned(raw []uint32, n int) []uint32 {
	off := int((64 - uintptr(unsafe.Pointer(&raw[0]))%64) % 64 / 4)
	return raw[off : off+n : off+n]
}

// Each calls fn with every entry (W words), shard by shard (the top 6
// bits of the hashes) and bucket by bucket from each shard's first; fn
// must not change the table. It serves the rules that move a table's
// entries to disk (VerMAS VM100, VM104: seed 000 "Base Event").
func (t *Table) Each(fn func(e []uint32)) {
	w := uint32(t.w)
	for i := range t.m.shards {
		s := &t.m.shards[i]
		for b := uint32(0); b < s.nb; b++ {
			// A bucket's entries are its first slots (an entry goes to the
			// first empty slot of its sequence, and none is removed).
			for k := uint32(0); k < t.per; k++ {
				e := s.slot(b, k, w)
				if empty(e) {
					break
				}
				fn(e)
			}
		}
	}
}
