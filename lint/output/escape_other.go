//go:build !amd64

package output

// copyEscape16 is copyEscape16Go where no assembly version exists.
func copyEscape16(dst *byte, room int, src *byte, n int) (i, o int) {
	return copyEscape16Go(dst, room, src, n)
}

// unalignedWords reports whether same may read a word at any address (not
// assumed where there is no assembly).
const unalignedWords = false
