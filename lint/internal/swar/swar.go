// Package swar holds the word-at-a-time byte tests that several packages
// share: eight bytes of a little-endian uint64 tested in their lanes of
// the word, with no branch per byte.
package swar

// Lsb and Msb are the low and the top bit of each of a word's eight bytes.
const (
	Lsb = 0x0101010101010101
	Msb = 0x8080808080808080
)

// InRange8 returns the top bit of each byte of x that lies in lo..hi
// (lo <= hi < 0x80), for x without a byte of 0x80 or more (check x&Msb
// first: such a byte's result is meaningless). Adding 0x80-c to a byte
// below 0x80 sets its top bit exactly when the byte is at least c, and no
// sum carries into the next byte. With constant bounds it compiles to two
// additions, an and-not and a mask.
func InRange8(x uint64, lo, hi byte) uint64 {
	return (x + Lsb*uint64(0x80-lo)) &^ (x + Lsb*uint64(0x80-hi-1)) & Msb
}
