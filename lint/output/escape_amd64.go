package output

// copyEscape16 copies the whole 16-byte blocks of src[:n] to dst, which
// has room bytes, as appendString writes them, as long as they hold only
// printable ASCII: each block is stored at the place of its first byte in
// dst and then checked; a '"' or '\\' is escaped with a backslash when
// room-o >= n-i+10 (so that the caller's room for the rest stays), any
// other byte to escape stops it. It returns the index i in src of the byte
// it stopped at, or of the first byte after the last whole block, and the
// index o in dst where that byte goes; bytes of dst after o may have been
// written. src must point at n readable bytes, dst at room writable ones,
// and room >= n+9.
//
//go:noescape
func copyEscape16(dst *byte, room int, src *byte, n int) (i, o int)

// unalignedWords reports whether same may read a word at any address.
const unalignedWords = true
