package timefmt

import (
	"math/rand/v2"
	"testing"
)

// isUUIDBytes is IsUUID byte by byte: the reference of TestIsUUIDWords.
func isUUIDBytes(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// TestIsUUIDWords holds IsUUID, which reads the hex digits eight at a
// time, to isUUIDBytes: every byte at every position of a UUID, two bytes
// changed at random, and lengths around 36.
func TestIsUUIDWords(t *testing.T) {
	const canon = "3f56dc4d-35cf-4F97-925c-0b04a6fe8bf4"
	for at := 0; at < 36; at++ {
		for c := 0; c < 256; c++ {
			b := []byte(canon)
			b[at] = byte(c)
			if got, want := IsUUID(string(b)), isUUIDBytes(string(b)); got != want {
				t.Fatalf("IsUUID(%q) = %v, want %v", b, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(36, 4))
	for n := 0; n < 200000; n++ {
		b := []byte(canon)
		for k := 0; k < 2; k++ {
			b[rng.IntN(36)] = byte(rng.IntN(256))
		}
		if got, want := IsUUID(string(b)), isUUIDBytes(string(b)); got != want {
			t.Fatalf("IsUUID(%q) = %v, want %v", b, got, want)
		}
	}
	for _, s := range []string{"", canon[:35], canon + "0", canon + "-"} {
		if IsUUID(s) {
			t.Errorf("IsUUID(%q) = true", s)
		}
	}
}

// isHex is the byte model of a hex digit of either case.
func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
