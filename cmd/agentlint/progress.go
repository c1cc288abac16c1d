package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/cheggaaa/pb/v3/termutil"

	"github.com/agentlint/agentlint/lint"
)

// defaultProgressDelay: a lint that ends sooner shows no progress at all.
const defaultProgressDelay = time.Second

// progressTemplate is the cheggaaa/pb template of the progress line: what
// was linked so far (files, records, records per second), bytes read of the
// total, a bar and the time left once the total is known.
const progressTemplate = `{{string . "prefix"}} {{counters . }}{{if gt .Total 0}} {{bar . "[" "=" ">" " " "]"}} {{percent . }} {{rtime . "ETA %s"}}{{end}}`

// progressWidth is the width of the progress line: the terminal's, at most
// 120 columns; 100 when the terminal does not say (a pseudo-terminal of
// width 0, as `script` makes, would otherwise cut the line to nothing).
func progressWidth() int {
	if w, err := termutil.TerminalWidth(); err == nil && w >= 40 {
		return min(w, 120)
	}
	return 100
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
	bar     *pb.ProgressBar
	w       io.Writer // stderr, where the bar is drawn
	prog    *lint.Progress
	start   time.Time
	shown   bool
	files   atomic.Int64 // total inputs; -1 until the sizing walk ends
	bytes   atomic.Int64 // total bytes to read; -1 until known
	maxSet  bool
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// startProgress starts the progress display of a lint run, or returns nil
// when there is none: --quiet, stderr not a terminal, or a delay below 0.
// It shows after a.progressDelay, then every 100 ms.
func (a *app) startProgress(resolved []lintArg, det *lint.Detector, walker *lint.Walker) *progressView {
	if a.g.quiet || a.progressDelay < 0 || !isTerminal(a.stderr) {
		return nil
	}
	v := &progressView{w: a.stderr, prog: &lint.Progress{}, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	v.files.Store(-1)
	v.bytes.Store(-1)
	// Static: the bar never draws on its own; our ticker calls Write under
	// v.mu, so a stdout write can clear the line first (clearingWriter).
	v.bar = pb.New64(0).
		SetWriter(a.stderr).
		SetTemplateString(progressTemplate).
		SetWidth(progressWidth()).
		Set(pb.Bytes, true).
		Set(pb.Static, true).
		Set(pb.Terminal, true).
		Set(pb.ReturnSymbol, "\r").
		Start()
	go v.size(resolved, det, walker)
	go v.tick(a.progressDelay)
	return v
}

// size walks the inputs as the run will (without reading them) and records
// how many there are and how many bytes will be read: files a glob names
// or that are sniffed. Standard input has no known size.
func (v *progressView) size(resolved []lintArg, det *lint.Detector, walker *lint.Walker) {
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
		case r.dir != "":
			w.Walk(r.dir, func(in lint.Input) bool {
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
		case r.in.Path == "-":
			files++
			bytes = -1 << 62 // unknown
		default:
			add(r.in.Path)
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

// draw renders the current counts.
func (v *progressView) draw() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if total := v.bytes.Load(); total > 0 && !v.maxSet {
		v.bar.SetTotal(total)
		v.maxSet = true
	}
	files := fmt.Sprintf("files %d", v.prog.Files.Load())
	if n := v.files.Load(); n >= 0 {
		files += fmt.Sprintf("/%d", n)
	}
	recs := v.prog.Records.Load()
	rate := float64(recs) / max(time.Since(v.start).Seconds(), 1e-3)
	v.bar.Set("prefix", fmt.Sprintf("%s, %d records, %.0f records/s", files, recs, rate))
	done := v.prog.Bytes.Load()
	if v.maxSet {
		done = min(done, v.bar.Total())
	}
	v.bar.SetCurrent(done)
	v.bar.Write()
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
