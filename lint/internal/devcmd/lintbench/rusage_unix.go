//go:build devtools && (linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the child's ru_maxrss in KiB (bytes on darwin, converted); 0
// when unknown.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
