//go:build !amd64

package output

// copyPlain16 is copyPlain16Go where no assembly version exists.
func copyPlain16(dst, src *byte, n int) int { return copyPlain16Go(dst, src, n) }
