//go:build !unix

package idtab

// alloc returns n zeroed words from the Go heap (no mmap here).
func alloc(n int) ([]uint32, bool) { return make([]uint32, n), false }

func release([]uint32, bool) {}
