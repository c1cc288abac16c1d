package idtab

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTableAgreesWithMap inserts keys (by Insert, or by Cursor.Put after
// an unsuccessful probe) with many repeats into a table of
// 2-word entries and a Go map and compares membership and values, across
// many growths of every shard (entries beyond the mapped threshold too).
func TestTableAgreesWithMap(t *testing.T) {
	hash := func(e []uint32) uint64 { return Hash(uint64(e[0]), 0) }
	tab := New(2, hash)
	defer tab.Free()
	ref := map[uint32]uint32{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= 300000; i++ {
		k := uint32(r.IntN(200000)) + 1
		h := Hash(uint64(k), 0)
		c := tab.Probe(h)
		var got []uint32
		for e := c.Next(); e != nil; e = c.Next() {
			if e[0] == k {
				got = e
				break
			}
		}
		want, ok := ref[k]
		if (got != nil) != ok || (ok && got[1] != want) {
			t.Fatalf("key %d: table %v, map %d %v", k, got, want, ok)
		}
		if !ok {
			ref[k] = uint32(i)
			if i%2 == 0 {
				tab.Insert(h, []uint32{k, uint32(i)})
			} else {
				c.Put([]uint32{k, uint32(i)}) // where the probe stopped
			}
		}
	}
	if tab.Len() != len(ref) {
		t.Fatalf("Len %d, want %d", tab.Len(), len(ref))
	}
}

// TestStrings numbers strings in order of first addition and finds them
// again, including the empty string and strings sharing prefixes.
func TestStrings(t *testing.T) {
	s := NewStrings()
	defer s.Free()
	var keys [][]byte
	keys = append(keys, []byte{})
	for i := 0; i < 50000; i++ {
		keys = append(keys, fmt.Appendf(nil, "trace-%x", i), binary.BigEndian.AppendUint32([]byte("p"), uint32(i)))
	}
	for i, k := range keys {
		if n, added := s.Add(k); !added || n != uint32(i+1) {
			t.Fatalf("Add(%q) = %d, %v; want %d, true", k, n, added, i+1)
		}
	}
	for i, k := range keys {
		if n, added := s.Add(k); added || n != uint32(i+1) {
			t.Fatalf("second Add(%q) = %d, %v", k, n, added)
		}
		if got := s.At(uint32(i + 1)); string(got) != string(k) {
			t.Fatalf("At(%d) = %q, want %q", i+1, got, k)
		}
	}
	if s.Get([]byte("trace-none")) != 0 || s.Len() != len(keys) {
		t.Fatalf("Get of a missing string or Len wrong: %d", s.Len())
	}
}

// TestReserve: entries survive a Reserve, and a table reserved for n
// entries takes them without growing.
func TestReserve(t *testing.T) {
	hash := func(e []uint32) uint64 { return Hash(uint64(e[0]), 0) }
	tab := New(3, hash)
	defer tab.Free()
	for k := uint32(1); k <= 1000; k++ {
		tab.Insert(Hash(uint64(k), 0), []uint32{k, 1, 2})
	}
	tab.Reserve(200000)
	before := tab.Bytes()
	for k := uint32(1001); k <= 200000; k++ {
		tab.Insert(Hash(uint64(k), 0), []uint32{k, 1, 2})
	}
	if tab.Bytes() != before {
		t.Errorf("grew after Reserve: %d -> %d bytes", before, tab.Bytes())
	}
	for k := uint32(1); k <= 200000; k += 97 {
		c := tab.Probe(Hash(uint64(k), 0))
		found := false
		for e := c.Next(); e != nil; e = c.Next() {
			found = found || e[0] == k
		}
		if !found {
			t.Fatalf("key %d lost", k)
		}
	}
}

// TestSeekAgreesWithMap is TestTableAgreesWithMap through Seek, on entries
// of 3 and 4 words whose key is two words (the first of them masked:
// its low 4 bits are not key) at offsets 0 and 1, with colliding
// hashes (few home buckets) so that sequences cross buckets and wrap, a
// key that matches an entry's masked words but not its last one
// (Seek goes on past it), and Put where Seek stopped.
func TestSeekAgreesWithMap(t *testing.T) {
	for _, w := range []int{3, 4} {
		for at := 0; at+1 < w-1; at++ {
			at, w := at, w
			t.Run(fmt.Sprint(w, at), func(t *testing.T) {
				keyOf := func(e []uint32) uint64 { return uint64(e[at]&^15) | uint64(e[at+1])<<32 }
				hash := func(e []uint32) uint64 { return Hash(keyOf(e)%997, 0) }
				tab := New(w, hash)
				defer tab.Free()
				ref := map[[2]uint64]uint32{}
				r := rand.New(rand.NewPCG(3, uint64(w)))
				for i := 1; i <= 100000; i++ {
					e := make([]uint32, w)
					e[at] = uint32(r.IntN(300)) << 4
					e[at+1] = uint32(r.IntN(50))
					e[at] |= uint32(r.IntN(16)) // not key: masked out
					e[w-1] = uint32(r.IntN(3)) + 1
					key := keyOf(e)
					c := tab.Probe(Hash(key%997, 0))
					var got []uint32
					for x := c.Seek(at, w-1, ^uint32(15), e[at]&^15, e[at+1]); x != nil; x = c.Seek(at, w-1, ^uint32(15), e[at]&^15, e[at+1]) {
						if keyOf(x) != key {
							t.Fatalf("Seek returned %v for key %x", x, key)
						}
						if x[w-1] == e[w-1] {
							got = x
							break
						}
					}
					want, ok := ref[[2]uint64{key, uint64(e[w-1])}]
					if (got != nil) != ok || ok && got[0] != want && at != 0 {
						t.Fatalf("entry %v: table %v, map %d %v", e, got, want, ok)
					}
					if !ok {
						if at != 0 {
							e[0] = uint32(i)
						}
						ref[[2]uint64{key, uint64(e[w-1])}] = e[0]
						c.Put(e)
					}
				}
				if tab.Len() != len(ref) {
					t.Fatalf("Len %d, want %d", tab.Len(), len(ref))
				}
			})
		}
	}
}

// TestClear: a cleared table holds nothing, keeps its memory, and takes
// the same entries again.
func TestClear(t *testing.T) {
	hash := func(e []uint32) uint64 { return Hash(uint64(e[0]), 0) }
	tab := New(3, hash)
	defer tab.Free()
	tab.Reserve(5000)
	for round := 0; round < 3; round++ {
		for k := uint32(1); k <= 5000; k++ {
			c := tab.Probe(Hash(uint64(k), 0))
			if e := c.Seek(0, 0, ^uint32(0), k, 7); e != nil {
				t.Fatalf("round %d: key %d present before its insertion", round, k)
			}
			c.Put([]uint32{k, 7, uint32(round)})
		}
		if tab.Len() != 5000 {
			t.Fatalf("round %d: Len %d", round, tab.Len())
		}
		before := tab.Bytes()
		tab.Clear()
		if tab.Len() != 0 || tab.Bytes() != before {
			t.Fatalf("round %d: after Clear, Len %d, %d -> %d bytes", round, tab.Len(), before, tab.Bytes())
		}
	}
}

// TestSeek3AgreesWithSeek: on a table of 3-word entries with colliding
// hashes (few home buckets: sequences cross buckets and wrap), Seek3
// returns the entries Seek(0, 0, ^0, …) returns, in the same order, from
// every slot a cursor can start at, and leaves the cursor where Seek does,
// so that Put inserts at the same slot.
func TestSeek3AgreesWithSeek(t *testing.T) {
	hash := func(e []uint32) uint64 { return Hash(uint64(e[0])%97, 0) }
	a, b := New(3, hash), New(3, hash)
	defer a.Free()
	defer b.Free()
	r := rand.New(rand.NewPCG(5, 6))
	for i := 1; i <= 50000; i++ {
		e := []uint32{uint32(r.IntN(40)) + 1, uint32(r.IntN(6)), uint32(r.IntN(4))}
		h := hash(e)
		ca, cb := a.Probe(h), b.Probe(h)
		found := false
		for {
			xa := ca.Seek(0, 0, ^uint32(0), e[0], e[1])
			xb := cb.Seek3(e[0], e[1])
			if (xa == nil) != (xb == nil) || xa != nil && !slices.Equal(xa, xb) {
				t.Fatalf("entry %v: Seek %v, Seek3 %v", e, xa, xb)
			}
			if xa == nil {
				break
			}
			if xa[2] == e[2] {
				found = true
				break
			}
		}
		if !found {
			pa, pb := ca.Put(e), cb.Put(e)
			if !slices.Equal(pa, pb) || ca.b != cb.b || ca.k != cb.k {
				t.Fatalf("entry %v: Put after Seek at %d/%d, after Seek3 at %d/%d", e, ca.b, ca.k, cb.b, cb.k)
			}
		}
	}
	if a.Len() != b.Len() {
		t.Fatalf("Len %d and %d", a.Len(), b.Len())
	}
	var ea, eb []uint32
	a.Each(func(e []uint32) { ea = append(ea, e...) })
	b.Each(func(e []uint32) { eb = append(eb, e...) })
	if !slices.Equal(ea, eb) {
		t.Fatal("the tables differ")
	}
}
