package lint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// danglingLog returns n collector records whose parent_span_id names no
// span of the run: every third one an OpenTelemetry span id (16 hex
// digits), every third a long span_id (kept as a string key), the others
// short ones, so that every record gets a CL101 warning decided after the
// last file.
func danglingLog(tag string, n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		var sp, parent string
		switch i % 3 {
		case 0:
			sp, parent = fmt.Sprintf("%s%015x", tag[:1], i), fmt.Sprintf("%s%015x", tag[:1], i+1<<40)
		case 1:
			sp, parent = fmt.Sprintf("%s-span-%012d", tag, i), fmt.Sprintf("%s-missing-parent-%012d", tag, i)
		default:
			sp, parent = fmt.Sprintf("s%07d", i%10000000), fmt.Sprintf("p%07d", i%10000000)
		}
		fmt.Fprintf(&b, `{"version":"1.0.0","event_type":"activity.thinking","timestamp":"2025-12-13T%02d:%02d:%02d.000Z","agent_id":"@pm-agent",`+
			`"event_id":"6f1c2a3e-0b4d-4c8e-9a71-%012d","session_id":"s-1","message":"m","correlation":{"trace_id":"trace-%s-%d","span_id":%q,"parent_span_id":%q}}`+"\n",
			i/3600, i/60%60, i%60, i, tag, i/20, sp, parent)
	}
	return b.Bytes()
}

// TestDanglingParentsHeldCompactly: the CL101 findings that wait for the
// end of the run (a parent may be in a log read later) are kept as a few
// fixed-size bytes each, not as findings, and rendered when they are
// written: the live heap while they are written grows by far less than a
// finding's size per finding, whatever the span_ids' length.
func TestDanglingParentsHeldCompactly(t *testing.T) {
	const n = 30000 // records per log, each with a dangling parent
	dir := t.TempDir()
	names := []string{"events-a.jsonl", "events-b.jsonl"}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), danglingLog(strings.TrimSuffix(strings.TrimPrefix(name, "events-"), ".jsonl"), n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	written := 0
	_, err := lintWithTimeout(t, func(yield func(Input) bool) {
		for _, name := range names {
			if !yield(Input{Path: filepath.Join(dir, name), Kind: kind.Lookup("collector/event")}) {
				return
			}
		}
	}, LintConfig{Jobs: 2, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
		Emit: func(e envelope.Envelope) error {
			if written++; written%2000 == 1000 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if written != 2*n {
		t.Fatalf("%d envelopes written, want one per record (%d)", written, 2*n)
	}
	// A finding rendered is ~800 bytes; the run's spans and pending
	// references take a few dozen bytes a record.
	const perRecord, fixed = 96, 8 << 20
	if grew := int64(peak) - int64(base); grew > fixed+perRecord*2*n {
		t.Errorf("live heap grew by %d bytes while the findings were written (%d a record), want at most %d + %d a record",
			grew, grew/(2*n), fixed, perRecord)
	}
}

// TestDanglingParentsRereadAsStreamed: the findings CL101 renders from
// records read again are exactly those of the same logs read once from
// streams (which keep the parents' text).
func TestDanglingParentsRereadAsStreamed(t *testing.T) {
	dir := t.TempDir()
	names := []string{"events-a.jsonl", "events-b.jsonl", "events-a.jsonl"}
	logs := map[string][]byte{}
	for _, name := range names[:2] {
		logs[name] = danglingLog(strings.TrimSuffix(strings.TrimPrefix(name, "events-"), ".jsonl"), 700)
		if err := os.WriteFile(filepath.Join(dir, name), logs[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(stream bool, jobs int) string {
		streams := logs
		if !stream {
			streams = nil
		}
		out, _ := lintCollector(t, dir, names, streams, jobs, 128)
		return out
	}
	want := run(true, 1)
	if c := strings.Count(want, `"CL101"`); c != 3*700 {
		t.Fatalf("%d CL101 findings from streams, want %d", c, 3*700)
	}
	for _, jobs := range []int{1, 2} {
		if got := run(false, jobs); got != want {
			t.Errorf("-j %d: findings from files read again differ from streams':\n%s", jobs, firstDiff(got, want))
		}
	}
}

// TestDanglingParentsCountedQuiet: a run that prints no finding (Quiet)
// counts CL101's findings, which it does not render, exactly as a run that
// prints them.
func TestDanglingParentsCountedQuiet(t *testing.T) {
	dir := t.TempDir()
	names := []string{"events-a.jsonl", "events-b.jsonl", "events-a.jsonl"}
	for _, name := range names[:2] {
		if err := os.WriteFile(filepath.Join(dir, name), danglingLog(strings.TrimSuffix(strings.TrimPrefix(name, "events-"), ".jsonl"), 500), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(quiet bool) *Stats {
		st, err := lintWithTimeout(t, func(yield func(Input) bool) {
			for _, name := range names {
				if !yield(Input{Path: filepath.Join(dir, name), Kind: kind.Lookup("collector/event")}) {
					return
				}
			}
		}, LintConfig{Jobs: 2, ChunkSize: 128, Quiet: quiet, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
			Render: render, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	printed, quiet := run(false), run(true)
	if printed.ByRule["CL101"] != 3*500 || fmt.Sprint(quiet) != fmt.Sprint(printed) {
		t.Fatalf("quiet run counts %+v, printing run %+v (want %d CL101)", quiet, printed, 3*500)
	}
}
