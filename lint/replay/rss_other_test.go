//go:build !linux

package replay

// peakRSSKB is not measured on this platform.
func peakRSSKB() int64 { return 0 }
