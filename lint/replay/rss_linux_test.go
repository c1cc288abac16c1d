package replay

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// peakRSSKB returns this process's peak resident set size in KiB since its
// exec (VmHWM of /proc/self/status; ru_maxrss would include the parent's
// pages at fork), or 0 when unknown.
func peakRSSKB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
