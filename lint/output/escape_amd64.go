package output

// copyEscape16 copies src[:n] to dst, which has room bytes, as
// appendString writes it, as long as it holds only printable ASCII: each
// 16-byte block is stored at the place of its first byte in dst and then
// checked; a '"' or '\\' is escaped with a backslash when room-o >= n-i+18
// (so that the caller's room for the rest stays), any other byte to escape
// stops it. The last fewer than 16 bytes may be left to the caller (the
// assembly reads them as a block when that does not cross a page). It
// returns the index i in src of the byte it stopped at (n: all done), and
// the index o in dst where that byte goes; bytes of dst after o may have
// been written. src must point at n readable bytes, dst at room writable
// ones, and room >= n+17.
//
//go:noescape
func copyEscape16(dst *byte, room int, src *byte, n int) (i, o int)

// unalignedWords reports whether same may read a word at any address.
const unalignedWords = true
