package swar

import "testing"

// TestInRange8: every byte below 0x80 in every lane, against the plain
// comparison, for the ranges the callers use and single-byte ones.
func TestInRange8(t *testing.T) {
	ranges := [][2]byte{{'0', '9'}, {'a', 'f'}, {'a', 'z'}, {'A', 'Z'}, {' ', ' '}, {0, 0x7f}, {0x7f, 0x7f}}
	for _, r := range ranges {
		for c := 0; c < 0x80; c++ {
			for lane := 0; lane < 8; lane++ {
				// The other lanes hold bytes just outside and inside the range.
				var x uint64
				for k := 0; k < 8; k++ {
					b := uint64((c + 37*k) & 0x7f)
					if k == lane {
						b = uint64(c)
					}
					x |= b << (8 * k)
				}
				got := InRange8(x, r[0], r[1])
				for k := 0; k < 8; k++ {
					b := byte(x >> (8 * k))
					want := b >= r[0] && b <= r[1]
					if (got>>(8*k+7))&1 == 1 != want {
						t.Fatalf("range %q-%q, byte %#x in lane %d of %#x: got %v", r[0], r[1], b, k, x, !want)
					}
				}
			}
		}
	}
}
