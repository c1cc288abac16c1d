//go:build devtools && !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// maxRSS: no getrusage on this system.
func maxRSS(*os.ProcessState) int64 { return 0 }
