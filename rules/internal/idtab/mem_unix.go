//go:build unix

package idtab

import (
	"syscall"
	"unsafe"
)

// mapMin is the size from which a shard is mapped outside the Go heap.
const mapMin = 64 << 10

// alloc returns n zeroed words; mapped says they come from mmap.
func alloc(n int) ([]uint32, bool) {
	if n*4 < mapMin {
		return make([]uint32, n), false
	}
	b, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return make([]uint32, n), false
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n), true
}

// release returns the words of alloc.
func release(w []uint32, mapped bool) {
	if mapped && len(w) > 0 {
		_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4))
	}
}
