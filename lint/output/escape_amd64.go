package output

// copyPlain16 stores each whole 16-byte block of src[:n] at the same offset
// of dst and returns the index in src[:n] of the first byte appendString
// does not copy as it is (outside printable ASCII, '"' or '\\'); when the
// whole blocks hold none, the length of the whole blocks (n rounded down to
// a multiple of 16): the caller copies the rest. src must point at n
// readable bytes and dst at as many writable ones; bytes of dst from the
// index returned on up to the end of its block may have been written.
//
//go:noescape
func copyPlain16(dst, src *byte, n int) int
