package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// treeLogs writes three collector logs to dir whose records name, besides
// their own span, a parent that is often nowhere in the run (CL101 at the
// end, thousands of envelopes: several batches of treeRender), and return
// their paths.
func treeLogs(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	n := 0
	for f := 0; f < 3; f++ {
		var b strings.Builder
		for i := 0; i < 1500; i++ {
			n++
			parent := fmt.Sprintf("span-%d", n-1) // resolved: the record before
			switch {
			case n%3 == 0:
				parent = fmt.Sprintf("gone-%d", n) // nowhere
			case n%7 == 0:
				parent = fmt.Sprintf("span-%d", n+4000) // another file, later
			}
			extra := uuid(n) + span(fmt.Sprintf("trace-%d", n%5), fmt.Sprintf("span-%d", n), parent)
			if n%11 == 0 {
				extra += `"x":"\u0001",` // a second finding on some lines: not a tree finding
			}
			b.WriteString(collectorRec(n%60, extra) + "\n")
		}
		p := filepath.Join(dir, fmt.Sprintf("events-%d.jsonl", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// lintPaths lints collector logs as `agentlint lint --format json` does
// (real rendering), with jobs workers, into w.
func lintPaths(t *testing.T, paths []string, jobs int, quiet bool, w io.Writer) (*Stats, error) {
	t.Helper()
	p := &output.JSON{}
	return lintWithTimeout(t, func(yield func(Input) bool) {
		for _, path := range paths {
			if !yield(Input{Path: path, Kind: kind.Lookup("collector/event")}) {
				return
			}
		}
	}, LintConfig{Jobs: jobs, ChunkSize: 4096, Quiet: quiet, Render: p.AppendRecord, Out: w,
		Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}})
}

// TestTreeRenderSameOutput: the end-of-run findings of an ordered tree
// rule (CL101), filled and rendered by several goroutines when there are
// several jobs, are written in the same order and bytes, with the same
// summary, as by the emitter alone (one job).
func TestTreeRenderSameOutput(t *testing.T) {
	paths := treeLogs(t, t.TempDir())
	var ref bytes.Buffer
	refStats, err := lintPaths(t, paths, 1, false, &ref)
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(ref.String(), `"CL101"`); c < 3*treeBatchFindings {
		t.Fatalf("%d CL101 findings: too few to fill several batches", c)
	}
	for _, jobs := range []int{2, 3, 8} {
		var got bytes.Buffer
		st, err := lintPaths(t, paths, jobs, false, &got)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != ref.String() {
			t.Fatalf("jobs %d: output differs from one job's:\n%s", jobs, firstDiff(got.String(), ref.String()))
		}
		if fmt.Sprint(st) != fmt.Sprint(refStats) {
			t.Fatalf("jobs %d: stats %+v, want %+v", jobs, st, refStats)
		}
	}
	st, err := lintPaths(t, paths, 2, true, io.Discard)
	if err != nil || fmt.Sprint(st) != fmt.Sprint(refStats) {
		t.Fatalf("quiet: stats %+v (%v), want %+v", st, err, refStats)
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		w.n = 0
		return 0, errors.New("broken pipe")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestTreeRenderWriteError: a write that fails while the end-of-run
// findings are written stops the run with that error (no hang, no lost
// error), whichever batch it hits.
func TestTreeRenderWriteError(t *testing.T) {
	paths := treeLogs(t, t.TempDir())
	var all bytes.Buffer
	if _, err := lintPaths(t, paths, 1, false, &all); err != nil {
		t.Fatal(err)
	}
	for _, frac := range []float64{0.5, 0.8, 0.99} {
		_, err := lintPaths(t, paths, 2, false, &failAfter{n: int(frac * float64(all.Len()))})
		if err == nil || !strings.Contains(err.Error(), "broken pipe") {
			t.Fatalf("failing after %.0f%% of the output: err = %v", 100*frac, err)
		}
	}
}

// TestRenderRecordSameOutput: a run whose format renders record envelopes
// straight from their violations (LintConfig.RenderRecord, as `agentlint
// lint --format json` does) writes the same bytes and summary as one that
// renders the envelopes Verdict builds (Render alone): worker findings,
// stream findings merged into a record's envelope, end-of-run tree findings
// (CL101) and documents, with one and several jobs.
func TestRenderRecordSameOutput(t *testing.T) {
	paths := treeLogs(t, t.TempDir())
	demo := filepath.Join("..", "testdata", "demo")
	run := func(jobs int, direct bool) (string, *Stats) {
		p := &output.JSON{}
		cfg := LintConfig{Jobs: jobs, ChunkSize: 4096, Render: p.AppendRecord, Out: &bytes.Buffer{},
			Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}}
		if direct {
			cfg.RenderRecord = p.AppendRecordVerdict
		}
		st, err := lintWithTimeout(t, func(yield func(Input) bool) {
			for _, path := range paths {
				if !yield(Input{Path: path, Kind: kind.Lookup("collector/event")}) {
					return
				}
			}
			(&Walker{}).Walk(demo, yield)
		}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Out.(*bytes.Buffer).String(), st
	}
	for _, jobs := range []int{1, 2, 4} {
		want, wst := run(jobs, false)
		got, gst := run(jobs, true)
		if got != want {
			t.Fatalf("jobs %d: RenderRecord output differs:\n%s", jobs, firstDiff(got, want))
		}
		if !reflect.DeepEqual(gst, wst) {
			t.Fatalf("jobs %d: summaries differ: %+v, want %+v", jobs, gst, wst)
		}
		if n := strings.Count(got, "\n"); n < 3*treeBatchFindings {
			t.Fatalf("jobs %d: only %d envelopes", jobs, n)
		}
	}
}

// TestTreeRenderAddFinding: findings queued one at a time form one
// envelope per file and line, in order; a batch is handed to the
// renderers once it holds treeBatchFindings findings, at the start of an
// envelope, never in the middle of one.
func TestTreeRenderAddFinding(t *testing.T) {
	tr := &treeRender{work: make(chan *treeBatch, 64), max: 64}
	a, b := &fileRun{path: "a.jsonl"}, &fileRun{path: "b.jsonl"}
	type env struct {
		f    *fileRun
		line int
		nf   int
	}
	var want []env
	add := func(f *fileRun, line, n int) {
		for range n {
			tr.addFinding(f, rules.StreamFinding{File: f.path, Line: line})
		}
		want = append(want, env{f, line, n})
	}
	add(a, 1, 2)
	add(a, 2, 1)
	add(b, 2, 3) // same line, another file: another envelope
	add(a, 2, 1)
	for line := 3; line < 3+treeBatchFindings; line++ {
		add(a, line, 1+line%2)
	}
	tr.submit()
	var got []env
	for i, bt := range tr.queue {
		if i < len(tr.queue)-1 && len(bt.fs) < treeBatchFindings {
			t.Fatalf("batch %d handed over with %d findings", i, len(bt.fs))
		}
		k := 0
		for _, g := range bt.groups {
			for _, f := range bt.fs[k : k+g.nf] {
				if f.File != g.f.path || f.Line != g.line {
					t.Fatalf("finding %s:%d in the envelope of %s:%d", f.File, f.Line, g.f.path, g.line)
				}
			}
			k += g.nf
			got = append(got, env{g.f, g.line, g.nf})
		}
		if k != len(bt.fs) {
			t.Fatalf("batch %d: envelopes of %d findings, %d queued", i, k, len(bt.fs))
		}
	}
	if len(tr.queue) < 2 {
		t.Fatalf("%d batches, want several", len(tr.queue))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("envelopes differ: got %d, want %d", len(got), len(want))
	}
}
