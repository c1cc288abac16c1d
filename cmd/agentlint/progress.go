package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/kind"
)

// defaultProgressDelay: a lint that ends sooner shows no progress at all.
const defaultProgressDelay = time.Second

// progressWidth is the width of the progress line: the terminal's (w's),
// at most 120 columns; 100 when the terminal does not say (a
// pseudo-terminal of width 0, as `script` makes, would otherwise cut the
// line to nothing).
func progressWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, ok := terminalWidth(f); ok && cols >= 40 {
			return min(cols, 120)
		}
	}
	return 100
}

// renderProgress renders the progress line, width columns (the text is
// ASCII): prefix (files, records, records per second), the bytes read, and
// once the total is known (total > 0) the total, a bar, the percentage and
// the time left at the mean rate so far ("?" before any byte), padded with
// blanks to width or, when that is too narrow for a bar, cut to it. The
// layout is cheggaaa/pb's, which drew it before (pb opened
// /dev/tty and set up five packages at every process start).
func renderProgress(prefix string, done, total int64, elapsed time.Duration, width int) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteByte(' ')
	b.WriteString(formatBytes(done))
	if total <= 0 {
		return pad(b.String(), width)
	}
	b.WriteString(" / ")
	b.WriteString(formatBytes(total))
	head := b.String()
	eta := "?"
	if rate := float64(done) / elapsed.Seconds(); done > 0 && elapsed > 0 {
		eta = "ETA " + (time.Duration(float64(total-done)/rate) * time.Second).String()
	}
	tail := fmt.Sprintf(" %.02f%% %s", float64(done)/(float64(total)/100), eta)
	inner := width - len(head) - len(tail) - 3 // " [" and "]"
	if inner < 0 {
		line := head + " " + tail
		return line[:min(len(line), width)]
	}
	fill := 0
	if done > 0 {
		fill = int(math.Ceil(float64(min(done, total)) / float64(total) * float64(inner)))
	}
	bar := strings.Repeat("=", max(fill-1, 0)) + strings.Repeat(">", min(fill, 1)) + strings.Repeat(" ", inner-fill)
	return pad(head+" ["+bar+"]"+tail, width)
}

// pad fills s with blanks up to width columns.
func pad(s string, width int) string {
	if len(s) < width {
		return s + strings.Repeat(" ", width-len(s))
	}
	return s
}

// formatBytes is a byte count as the progress line shows it: 512 B,
// 64.20 KiB, 1.50 MiB, 2.00 GiB, 1.00 TiB.
func formatBytes(n int64) string {
	const k = 1024
	switch {
	case n >= k*k*k*k:
		return fmt.Sprintf("%.02f TiB", float64(n)/(k*k*k*k))
	case n >= k*k*k:
		return fmt.Sprintf("%.02f GiB", float64(n)/(k*k*k))
	case n >= k*k:
		return fmt.Sprintf("%.02f MiB", float64(n)/(k*k))
	case n >= k:
		return fmt.Sprintf("%.02f KiB", float64(n)/k)
	}
	return fmt.Sprintf("%d B", n)
}

// eraseLine clears the terminal line the progress was drawn on.
const eraseLine = "\x1b[2K\r"

// progressView draws the progress of a lint run on stderr (a terminal):
// files done of the total, records and records per second, bytes read, and
// once the total is known a bar, percent and time left. A ticker reads the
// engine's atomic counters (lint.Progress); a background walk sums the sizes
// of the inputs meanwhile, so the total appears once known. Stop clears the
// line.
type progressView struct {
	mu      sync.Mutex // serializes drawing, clearing and stdout writes
	w       io.Writer  // stderr, where the line is drawn
	width   int
	prog    *lint.Progress
	start   time.Time
	shown   bool
	files   atomic.Int64 // total inputs; -1 until the sizing walk ends
	bytes   atomic.Int64 // total bytes to read; -1 until known
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// startProgress starts the progress display of a lint run, or returns nil
// when there is none: --quiet, stderr not a terminal, or a delay below 0.
// It shows after a.progressDelay, then every 100 ms.
func (a *app) startProgress(resolved []lint.Arg, det *kind.Detector, walker *lint.Walker) *progressView {
	if a.g.quiet || a.progressDelay < 0 || !isTerminal(a.stderr) {
		return nil
	}
	v := &progressView{w: a.stderr, prog: &lint.Progress{}, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	v.files.Store(-1)
	v.bytes.Store(-1)
	v.width = progressWidth(a.stderr)
	go v.size(resolved, det, walker)
	go v.tick(a.progressDelay)
	return v
}

// size walks the inputs as the run will (without reading them) and records
// how many there are and how many bytes will be read: files a glob names
// or that are sniffed. Standard input has no known size.
func (v *progressView) size(resolved []lint.Arg, det *kind.Detector, walker *lint.Walker) {
	var files, bytes int64
	w := &lint.Walker{Config: walker.Config}
	add := func(path string) {
		files++
		if det.ByName(path) == nil && !det.Sniffs(path) {
			return
		}
		if st, err := os.Stat(path); err == nil {
			bytes += st.Size()
		}
	}
	for _, r := range resolved {
		select {
		case <-v.stop:
			return
		default:
		}
		switch {
		case r.Dir != "":
			w.Walk(r.Dir, func(in lint.Input) bool {
				if in.Err == nil && in.Skipped == "" {
					add(in.Path)
				} else if in.Err != nil {
					files++
				}
				select {
				case <-v.stop:
					return false
				default:
					return true
				}
			})
		case r.Input.Path == "-":
			files++
			bytes = -1 << 62 // unknown
		default:
			add(r.Input.Path)
		}
	}
	v.files.Store(files)
	if bytes >= 0 {
		v.bytes.Store(bytes)
	}
}

func (v *progressView) tick(delay time.Duration) {
	defer close(v.stopped)
	if delay > 0 {
		select {
		case <-v.stop:
			return
		case <-time.After(delay):
		}
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		v.draw()
		select {
		case <-v.stop:
			return
		case <-t.C:
		}
	}
}

// draw renders the current counts; the line is redrawn in place.
func (v *progressView) draw() {
	v.mu.Lock()
	defer v.mu.Unlock()
	files := fmt.Sprintf("files %d", v.prog.Files.Load())
	if n := v.files.Load(); n >= 0 {
		files += fmt.Sprintf("/%d", n)
	}
	recs := v.prog.Records.Load()
	elapsed := time.Since(v.start)
	rate := float64(recs) / max(elapsed.Seconds(), 1e-3)
	done, total := v.prog.Bytes.Load(), v.bytes.Load()
	if total > 0 {
		done = min(done, total)
	}
	line := renderProgress(fmt.Sprintf("%s, %d records, %.0f records/s", files, recs, rate), done, total, elapsed, v.width)
	_, _ = io.WriteString(v.w, "\r"+line)
	v.shown = true
}

// clear erases the progress line; the caller holds v.mu.
func (v *progressView) clear() {
	if v.shown {
		_, _ = io.WriteString(v.w, eraseLine)
		v.shown = false
	}
}

// Stop ends the display and clears its line; nil-safe, idempotent.
func (v *progressView) Stop() {
	if v == nil {
		return
	}
	v.once.Do(func() {
		close(v.stop)
		<-v.stopped
		v.mu.Lock()
		defer v.mu.Unlock()
		v.clear()
	})
}

// Progress returns the counters the engine advances; nil for no display.
func (v *progressView) Progress() *lint.Progress {
	if v == nil {
		return nil
	}
	return v.prog
}

// Writer wraps out (stdout) so that, when stdout is the same terminal,
// the progress line is cleared before output is written and redrawn at the
// next tick; otherwise it returns out as it is.
func (v *progressView) Writer(out io.Writer) io.Writer {
	if v == nil || !isTerminal(out) {
		return out
	}
	return &clearingWriter{v: v, w: out}
}

type clearingWriter struct {
	v *progressView
	w io.Writer
}

func (c *clearingWriter) Write(b []byte) (int, error) {
	c.v.mu.Lock()
	defer c.v.mu.Unlock()
	c.v.clear()
	return c.w.Write(b)
}
