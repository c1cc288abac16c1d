// Package idtab holds the exact sets of the stream rules that remember
// every distinct id of a run (issue 12, "exact id rules in bounded
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

// HashBytes returns a 64-bit hash of b.
func HashBytes(b []byte) uint64 {
	h := uint64(len(b))
	for len(b) >= 16 {
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
// Not safe for concurrent use.
type Table struct {
	w    int
	hash func(e []uint32) uint64 // to rehash an entry when a shard grows
	m    *mem
	n    int
}

type mem struct {
	shards [nShards]shard
}

type shard struct {
	words  []uint32 // cap*w words
	cap    uint32   // slots
	n      uint32
	mapped bool
}

// New returns an empty table of entries of w words; hash must return, for
// an entry, the hash it was inserted with.
func New(w int, hash func(e []uint32) uint64) *Table {
	t := &Table{w: w, hash: hash, m: &mem{}}
	runtime.AddCleanup(t, func(m *mem) { m.free() }, t.m)
	return t
}

// Len returns the number of entries.
func (t *Table) Len() int { return t.n }

// Bytes returns the memory the table's slots take.
func (t *Table) Bytes() int {
	n := 0
	for i := range t.m.shards {
		n += len(t.m.shards[i].words) * 4
	}
	return n
}

// Free releases the table's memory; the table is empty afterwards.
func (t *Table) Free() {
	t.m.free()
	t.n = 0
}

func (m *mem) free() {
	for i := range m.shards {
		s := &m.shards[i]
		release(s.words, s.mapped)
		*s = shard{}
	}
}

// Cursor walks the occupied slots of one hash's probe sequence.
type Cursor struct {
	t    *Table
	h    uint64
	s    *shard
	w    uint32
	i    uint32
	done bool
}

func (t *Table) shard(h uint64) *shard { return &t.m.shards[h>>(64-shardBits)] }

// home is the first slot of h in a shard of c slots.
func home(h uint64, c uint32) uint32 { return uint32((uint64(uint32(h)) * uint64(c)) >> 32) }

// Probe returns a cursor over the entries that may equal an entry of hash h.
func (t *Table) Probe(h uint64) Cursor {
	s := t.shard(h)
	if s.cap == 0 {
		return Cursor{t: t, h: h, done: true}
	}
	return Cursor{t: t, h: h, s: s, w: uint32(t.w), i: home(h, s.cap)}
}

// Put inserts entry e (len W, not all zero) of the cursor's hash after
// Next returned nil (no entry of the sequence equals e): into the empty
// slot the cursor stopped at, without probing again, or through Insert
// when the shard must grow first. It returns the stored entry.
func (c *Cursor) Put(e []uint32) []uint32 {
	t, s := c.t, c.s
	if s == nil || (s.n+1)*16 > s.cap*maxLoad16 {
		return t.Insert(c.h, e)
	}
	dst := s.words[c.i*c.w : (c.i+1)*c.w : (c.i+1)*c.w]
	copy(dst, e)
	s.n++
	t.n++
	c.done = true
	return dst
}

// Next returns the next occupied slot (its words, which may be modified
// except for the key), or nil when the sequence reaches an empty slot.
func (c *Cursor) Next() []uint32 {
	if c.done {
		return nil
	}
	e := c.s.words[c.i*c.w : (c.i+1)*c.w : (c.i+1)*c.w]
	if empty(e) {
		c.done = true
		return nil
	}
	c.i++
	if c.i == c.s.cap {
		c.i = 0
	}
	return e
}

func empty(e []uint32) bool {
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
	if (s.n+1)*16 > s.cap*maxLoad16 {
		t.grow(s)
	}
	w := uint32(t.w)
	i := home(h, s.cap)
	for !empty(s.words[i*w : (i+1)*w]) {
		i++
		if i == s.cap {
			i = 0
		}
	}
	dst := s.words[i*w : (i+1)*w : (i+1)*w]
	copy(dst, e)
	s.n++
	t.n++
	return dst
}

// grow replaces s by a larger shard holding the same entries.
func (t *Table) grow(s *shard) {
	c := s.cap * 2
	switch {
	case c == 0:
		c = 16
	case s.cap >= 1<<14:
		c = s.cap + s.cap/2
	}
	w := uint32(t.w)
	words, mapped := alloc(int(c * w))
	for i := uint32(0); i < s.cap; i++ {
		e := s.words[i*w : (i+1)*w]
		if empty(e) {
			continue
		}
		j := home(t.hash(e), c)
		for !empty(words[j*w : (j+1)*w]) {
			j++
			if j == c {
				j = 0
			}
		}
		copy(words[j*w:(j+1)*w], e)
	}
	release(s.words, s.mapped)
	s.words, s.cap, s.mapped = words, c, mapped
}
