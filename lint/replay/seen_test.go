package replay

import (
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"testing"

	"pgregory.net/rapid"
)

// TestSeenTable holds the D2 table to a Go map of the same ids: every id
// found is one added (bytes equal), with its digest, position and applied
// mark, across slot growth and chunk boundaries, with ids of one length
// (chunks without offsets) or of many; ids that share a prefix or differ in
// one byte are distinct entries.
func TestSeenTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tab := newSeenTable(testHash())
		want := map[string]int{} // id → position of the first add
		var order []string
		n := rapid.IntRange(0, 3*seenChunkN).Draw(t, "n")
		mod := rapid.IntRange(1, 2*n+1).Draw(t, "mod")
		// fixed: every id has one length (a chunk keeps no offsets); else
		// lengths vary, from the first entries of a chunk or later.
		fixed := rapid.Bool().Draw(t, "fixed")
		for i := range n {
			id := fmt.Sprintf("d-%d", rapid.IntRange(0, mod).Draw(t, "id"))
			switch {
			case fixed:
				id = fmt.Sprintf("d-%07d", rapid.IntRange(0, mod).Draw(t, "id"))
			case i%7 == 0:
				id += "\x00é"
			}
			sum := sha256.Sum256([]byte(id))
			dg := digest(sum[:16])
			ref, slot, ok := tab.locate([]byte(id), tab.hash([]byte(id)))
			if _, dup := want[id]; ok != dup {
				t.Fatalf("id %q: found %v, added before %v", id, ok, dup)
			}
			if !ok {
				want[id] = i
				order = append(order, id)
				ref = tab.insert(slot, []byte(id), dg, i)
				if i%3 == 0 {
					tab.setApplied(ref)
				}
			}
			if got := string(tab.id(ref)); got != id {
				t.Fatalf("entry of %q holds %q", id, got)
			}
			if tab.digest(ref) != dg || tab.index(ref) != want[id] {
				t.Fatalf("entry of %q: digest %s index %d, want %s %d", id, tab.digest(ref), tab.index(ref), dg, want[id])
			}
			if tab.applied(ref) != (want[id]%3 == 0) {
				t.Fatalf("entry of %q: applied %v", id, tab.applied(ref))
			}
		}
		if tab.len() != len(want) {
			t.Fatalf("%d entries, want %d", tab.len(), len(want))
		}
		k := 0
		tab.each(func(ref uint32) {
			if string(tab.id(ref)) != order[k] {
				t.Fatalf("entry %d is %q, want %q (insertion order)", k, tab.id(ref), order[k])
			}
			k++
		})
		if _, ok := tab.lookup([]byte("absent")); ok {
			t.Fatal("absent id found")
		}
	})
}

// TestLineMap: the line of every delta position, with jumps (blank lines,
// invalid records) anywhere.
func TestLineMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m lineMap
		var lines []int
		line := 0
		for i := range rapid.IntRange(0, 200).Draw(t, "n") {
			line += 1 + rapid.IntRange(0, 2).Draw(t, "skip")*rapid.IntRange(0, 1).Draw(t, "jump")
			m.set(i, line)
			lines = append(lines, line)
		}
		for i, want := range lines {
			if got := m.get(i); got != want {
				t.Fatalf("delta %d: line %d, want %d", i, got, want)
			}
		}
	})
}

// TestSeenTableDensePositions: positions of a run of distinct ids take no
// memory per entry until a gap; every position reads back across the gap
// and chunk boundaries.
func TestSeenTableDensePositions(t *testing.T) {
	tab := newSeenTable(testHash())
	want := map[uint32]int{}
	pos := 0
	for i := range 3 * seenChunkN {
		if i == seenChunkN+100 || i == 2*seenChunkN+7 {
			pos += 3 // deltas that were not new ids
		}
		id := []byte(fmt.Sprintf("d-%d", i))
		_, slot, ok := tab.locate(id, tab.hash(id))
		if ok {
			t.Fatalf("%s found before it was added", id)
		}
		want[tab.insert(slot, id, digest{}, pos)] = pos
		pos++
	}
	if tab.chunks[0].index != nil {
		t.Error("a chunk of consecutive positions stores them")
	}
	for ref, p := range want {
		if got := tab.index(ref); got != p {
			t.Fatalf("entry %d: position %d, want %d", ref, got, p)
		}
	}
}

// testHash returns a delta_id hash as a replay's (maphash, a new seed).
func testHash() func([]byte) uint64 {
	seed := maphash.MakeSeed()
	return func(id []byte) uint64 { return maphash.Bytes(seed, id) }
}
