package lint

import (
	"math/rand/v2"
	"testing"
)

// TestResultDirtyBits: result.setDirty and dirtyBits keep one bit per
// entry of vals, for blocks of any size up to 64 at any offset (across
// the words of dirty), without touching the bits of other entries.
func TestResultDirtyBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r result
	r.dirty = make([]uint64, 8)
	model := make([]bool, 64*8)
	for range 20000 {
		k := rng.IntN(65)
		v0 := rng.IntN(len(model) - k + 1)
		got := r.dirtyBits(v0, k)
		for i := range k {
			if (got>>uint(i))&1 == 1 != model[v0+i] {
				t.Fatalf("dirtyBits(%d, %d) = %x: bit %d wrong", v0, k, got, i)
			}
		}
		if k < 64 && got>>uint(k) != 0 {
			t.Fatalf("dirtyBits(%d, %d) = %x: bits beyond k", v0, k, got)
		}
		b := rng.Uint64()
		if k < 64 {
			b &= 1<<uint(k) - 1
		}
		r.setDirty(v0, k, b)
		for i := range k {
			model[v0+i] = (b>>uint(i))&1 == 1
		}
		for i, m := range model {
			if ((r.dirty[i/64]>>uint(i%64))&1 == 1) != m {
				t.Fatalf("after setDirty(%d, %d, %x): entry %d is %v", v0, k, b, i, !m)
			}
		}
	}
}
