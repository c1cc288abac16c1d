package idtab

import "runtime"

// Bloom is a blocked Bloom filter of 64-bit hashes, in front of the ids
// a rule keeps on disk (VerMAS event_id and caused_by, seed 000 "Base
// Event": VM100, VM104; work order and message ids): one 64-byte block
// (512 bits) per lookup, bloomK bits set in it per hash, bloomBits bits of
// filter per planned hash (about 0.5 % false positives at its planned
// size, more beyond). Has never misses a hash that was added: a negative
// answer is exact, a positive one must be confirmed. Blocks of 64 KiB and
// more are mapped outside the Go heap like a Table's shards. Not safe for
// concurrent use.
type Bloom struct {
	m     *bloomMem
	n     int    // hashes added
	plan  int    // hashes planned
	nb    uint32 // blocks
	words []uint32
}

type bloomMem struct {
	raw    []uint32
	mapped bool
}

const (
	bloomBits = 12 // bits per planned hash
	bloomK    = 8  // bits set per hash
)

// Add sets the bloomK bits unrolled: it must be changed with bloomK.
var _ = [1]struct{}{}[bloomK-8]

// NewBloom returns an empty filter planned for n hashes (at least 1):
// bloomBits bits each, rounded up to whole 64-byte blocks.
func NewBloom(n int) *Bloom {
	n = max(n, 1)
	nb := uint32((n*bloomBits + 511) / 512)
	raw, mapped := alloc(int(nb)*bucketWords + bucketWords)
	m := &bloomMem{raw: raw, mapped: mapped}
	f := &Bloom{m: m, plan: n, nb: nb, words: aligned(raw, int(nb)*bucketWords)}
	runtime.AddCleanup(f, func(m *bloomMem) { m.free() }, m)
	return f
}

func (m *bloomMem) free() {
	release(m.raw, m.mapped)
	m.raw = nil
}

// Len returns the number of hashes added.
func (f *Bloom) Len() int { return f.n }

// Plan returns the number of hashes the filter was planned for (past it,
// the filter answers "maybe" more often: make a larger one).
func (f *Bloom) Plan() int { return f.plan }

// Bytes returns the memory the filter takes, in bytes.
func (f *Bloom) Bytes() int { return len(f.m.raw) * 4 }

// block returns the 16 words of h's block and the hash that picks its bits.
func (f *Bloom) block(h uint64) ([]uint32, uint32) {
	// h is a hash already: its high half picks the block (hashes added in
	// increasing order fill the blocks in order), its low half the bits
	// in it.
	b := uint32((uint64(uint32(h>>32)) * uint64(f.nb)) >> 32)
	return f.words[b*bucketWords : b*bucketWords+bucketWords : b*bucketWords+bucketWords], uint32(h)
}

// bit returns the i-th bit position (0-511) of x.
func bit(x uint32, i int) uint32 {
	return (x * [bloomK]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}[i]) >> 23
}

// Add adds hash h (64 bits, at least 26 of them random in each half).
func (f *Bloom) Add(h uint64) {
	w, x := f.block(h)
	b := (*[bucketWords]uint32)(w)
	// The bloomK bits of bit(x, 0..7), unrolled.
	p0, p1, p2, p3 := bit(x, 0), bit(x, 1), bit(x, 2), bit(x, 3)
	p4, p5, p6, p7 := bit(x, 4), bit(x, 5), bit(x, 6), bit(x, 7)
	b[p0>>5&15] |= 1 << (p0 & 31)
	b[p1>>5&15] |= 1 << (p1 & 31)
	b[p2>>5&15] |= 1 << (p2 & 31)
	b[p3>>5&15] |= 1 << (p3 & 31)
	b[p4>>5&15] |= 1 << (p4 & 31)
	b[p5>>5&15] |= 1 << (p5 & 31)
	b[p6>>5&15] |= 1 << (p6 & 31)
	b[p7>>5&15] |= 1 << (p7 & 31)
	f.n++
}

// Has reports whether h may have been added (false: it was not).
func (f *Bloom) Has(h uint64) bool {
	w, x := f.block(h)
	b := (*[bucketWords]uint32)(w)
	for i := range bloomK {
		p := bit(x, i)
		if b[p>>5&15]&(1<<(p&31)) == 0 {
			return false
		}
	}
	return true
}

// Line returns the first word of the block of hash h, which Add and Has
// read, so that a batch of lookups can load their blocks together
// (LoadLines) before they probe.
func (f *Bloom) Line(h uint64) *uint32 {
	w, _ := f.block(h)
	return &w[0]
}

// Free releases the filter's memory; it must not be used afterwards.
func (f *Bloom) Free() {
	f.m.free()
	f.words, f.nb = nil, 0
}
