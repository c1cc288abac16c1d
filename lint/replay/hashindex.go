package replay

// hashIndex is the D2 index of a stream that can be read again (seed 001
// "Ledger Delta Application Semantics", D2; lint/replay/README.md): for every
// distinct delta_id, the position in the stream of the first delta that
// carried it, found by a 64-bit hash of the id. It holds no id and no
// digest: a slot is 8 bytes, 32 bits of the id's hash and the position, so
// a hash match is only a possible repeat, which the caller confirms by
// reading the earlier delta again and comparing the ids' bytes (exact).
//
// The table is split into hashShards shards by the hash's top bits, each an
// open-addressing array (linear probing, load ≤ 7/8) whose size grows by
// half when full, so that growing one shard never holds two copies of the
// whole table (the peak stays within a few percent of the live size) and
// the slots are 1.14–1.7 per entry (9.1–13.7 bytes per id). Shards of
// mapMin bytes and more are mapped outside the Go heap (allocWords) and
// given back when they grow and by release. A slot's home is the low 32
// bits of the hash scaled to the shard's size (fastrange), so growing needs
// only the slots, never the ids. Positions are at most 2^32-2.
type hashIndex struct {
	shards [hashShards][]uint64 // 0: empty; otherwise tag<<32 | position+1
	mapped [hashShards]bool     // the shard's words come from allocWords' mmap
	used   [hashShards]int32    // entries per shard
	n      int
}

const (
	hashShardBits = 8
	hashShards    = 1 << hashShardBits
)

// hashSlot is where find stopped: the shard and slot of an insertion.
type hashSlot struct {
	shard, slot int
}

// shardOf returns the shard and tag of hash h.
func shardOf(h uint64) (int, uint32) { return int(h >> (64 - hashShardBits)), uint32(h) }

// home returns the first slot of tag in an array of n slots.
func home(tag uint32, n int) int { return int(uint64(tag) * uint64(n) >> 32) }

// find calls match for the position of every entry whose hash agrees with h
// (in 32 bits), in insertion order of the probe sequence, until match
// returns true: then it returns that position and true. Otherwise it returns
// the slot where an entry for h goes (valid until the next insert).
func (t *hashIndex) find(h uint64, match func(pos uint32) bool) (uint32, hashSlot, bool) {
	s, tag := shardOf(h)
	if int(t.used[s]+1)*8 > len(t.shards[s])*7 {
		t.grow(s)
	}
	slots := t.shards[s]
	n := len(slots)
	for i := home(tag, n); ; {
		e := slots[i]
		if e == 0 {
			return 0, hashSlot{s, i}, false
		}
		if uint32(e>>32) == tag && match(uint32(e)-1) {
			return uint32(e) - 1, hashSlot{}, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// touch reads the home slots of hashes hs and returns a value that
// depends on them. Its loads do not depend on each other, so the processor
// overlaps their cache misses; find then mostly hits the cache (a batch's
// deltas are looked up right after).
func (t *hashIndex) touch(hs []uint64) uint64 {
	var x uint64
	for _, h := range hs {
		s, tag := shardOf(h)
		if slots := t.shards[s]; len(slots) > 0 {
			x += slots[home(tag, len(slots))]
		}
	}
	return x
}

// lookup is find without the preparation for an insertion.
func (t *hashIndex) lookup(h uint64, match func(pos uint32) bool) (uint32, bool) {
	s, tag := shardOf(h)
	slots := t.shards[s]
	n := len(slots)
	if n == 0 {
		return 0, false
	}
	for i := home(tag, n); ; {
		e := slots[i]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag && match(uint32(e)-1) {
			return uint32(e) - 1, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// insert adds position pos for hash h at slot at (from find).
func (t *hashIndex) insert(at hashSlot, h uint64, pos uint32) {
	_, tag := shardOf(h)
	t.shards[at.shard][at.slot] = uint64(tag)<<32 | uint64(pos+1)
	t.used[at.shard]++
	t.n++
}

// grow enlarges shard s by half (at least 16 slots) and places every entry
// again from its tag.
func (t *hashIndex) grow(s int) {
	old, oldMapped := t.shards[s], t.mapped[s]
	n := max(16, len(old)+len(old)/2)
	slots, mapped := allocWords(n)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := home(uint32(e>>32), n)
		for slots[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		slots[i] = e
	}
	t.shards[s], t.mapped[s] = slots, mapped
	releaseWords(old, oldMapped)
}

// release gives back the shards' memory; the index is empty afterwards.
func (t *hashIndex) release() {
	for s := range t.shards {
		releaseWords(t.shards[s], t.mapped[s])
		t.shards[s], t.mapped[s], t.used[s] = nil, false, 0
	}
	t.n = 0
}

// len returns the number of entries.
func (t *hashIndex) len() int { return t.n }
