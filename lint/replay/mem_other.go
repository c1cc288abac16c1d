//go:build !unix

package replay

// allocWords returns n zeroed words from the Go heap (no mmap here).
func allocWords(n int) ([]uint64, bool) { return make([]uint64, n), false }

// releaseWords does nothing: the garbage collector frees the words.
func releaseWords([]uint64, bool) {}
