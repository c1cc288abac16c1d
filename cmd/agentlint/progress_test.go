package main

import (
	"strings"
	"testing"
	"time"
)

// TestRenderProgress: the progress line before the total is known, with a
// bar, at the end, and cut when the terminal is too narrow for a bar.
func TestRenderProgress(t *testing.T) {
	const p = "files 1/3, 10 records, 5 records/s"
	cases := []struct {
		done, total int64
		elapsed     time.Duration
		width       int
		want        string
	}{
		{0, -1, 0, 60, p + " 0 B"},
		{2048, 0, time.Second, 40, p + " 2.00 KiB"}, // longer than the width: no bar to give up
		{0, 4 << 20, time.Second, 100, p + " 0 B / 4.00 MiB [" + strings.Repeat(" ", 40) + "] 0.00% ?"},
		{1 << 20, 4 << 20, 2 * time.Second, 100, p + " 1.00 MiB / 4.00 MiB [=======>" + strings.Repeat(" ", 21) + "] 25.00% ETA 6s"},
		{4 << 20, 4 << 20, 2 * time.Second, 100, p + " 4.00 MiB / 4.00 MiB [" + strings.Repeat("=", 27) + ">] 100.00% ETA 0s"},
		{1 << 20, 4 << 20, 2 * time.Second, 60, (p + " 1.00 MiB / 4.00 MiB  25.00% ETA 6s")[:60]},
	}
	for _, c := range cases {
		got := renderProgress(p, c.done, c.total, c.elapsed, c.width)
		want := c.want + strings.Repeat(" ", max(c.width-len(c.want), 0))
		if got != want {
			t.Errorf("renderProgress(%d, %d, %v, %d) =\n%q, want\n%q", c.done, c.total, c.elapsed, c.width, got, want)
		}
		if len(got) != max(c.width, len(c.want)) {
			t.Errorf("renderProgress(%d, %d, %v, %d) has %d columns", c.done, c.total, c.elapsed, c.width, len(got))
		}
	}
	if got := formatBytes(1536 << 30); got != "1.50 TiB" {
		t.Errorf("formatBytes = %q", got)
	}
}
