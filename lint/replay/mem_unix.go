//go:build unix

package replay

import (
	"syscall"
	"unsafe"
)

// mapMin is the size in bytes from which a hashIndex shard is mapped
// outside the Go heap (mmap): its memory then counts once in the resident
// set, not twice as the garbage collector's heap goal would have it, and
// is returned to the system as soon as the shard grows.
const mapMin = 16 << 10

// allocWords returns n zeroed words; mapped says they come from mmap and
// must be given back with releaseWords.
func allocWords(n int) (w []uint64, mapped bool) {
	if n*8 < mapMin {
		return make([]uint64, n), false
	}
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint64, n), false
	}
	w = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	// Write to every page first: a page whose first access is a read maps
	// the shared zero page, and the write that follows is then a
	// copy-on-write fault that flushes the TLB of every processor running
	// the replay (an interrupt for each; ~5% of a replay's time).
	for i := 0; i < n; i += pageWords {
		w[i] = 0
	}
	return w, true
}

// pageWords is the number of words in a page.
var pageWords = max(1, syscall.Getpagesize()/8)

// releaseWords gives back the words of allocWords (nothing when not mapped).
func releaseWords(w []uint64, mapped bool) {
	if mapped && len(w) > 0 {
		_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8))
	}
}
