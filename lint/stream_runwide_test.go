package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// Per-agent and daily collector logs (seed 004 "File Naming Convention"): one
// trace spans several files.
var runWideLogs = map[string]string{
	// Yesterday's log of the pm agent starts the trace.
	"events-@pm-agent-2025-12-12.jsonl": lines(
		collectorRec(1, uuid(1)+span("trace-abc", "span-001", "")),
	),
	// Today's: a parent from yesterday, one from the architect's log (read
	// later), one later in this log, one nowhere.
	"events-@pm-agent-2025-12-13.jsonl": lines(
		collectorRec(2, uuid(2)+span("trace-abc", "span-003", "span-001")),
		collectorRec(3, uuid(3)+span("trace-abc", "span-005", "span-004")),
		collectorRec(4, uuid(4)+span("trace-abc", "span-006", "span-007")),
		collectorRec(5, uuid(5)+span("trace-abc", "span-007", "span-003")),
		collectorRec(6, uuid(6)+span("trace-abc", "span-008", "span-404")),
	),
	// The architect's: the pm agent's span; the same event_id as yesterday's
	// log (a per-agent and a daily log may both record an event: CL100 is
	// per log) and a repeat within this log.
	"events-@architect-agent-2025-12-13.jsonl": lines(
		collectorRec(1, uuid(1)+span("trace-abc", "span-004", "span-003")),
		collectorRec(2, uuid(9)+span("trace-xyz", "span-010", "span-001")),
		collectorRec(3, uuid(9)+span("trace-xyz", "span-011", "span-010")),
	),
}

// lintFiles lints the named files of dir in order and returns the output
// (each envelope as JSON, one a line) and the summary.
func lintFiles(t *testing.T, dir string, names []string, jobs int) (string, *Stats) {
	t.Helper()
	return lintCollector(t, dir, names, nil, jobs, 256)
}

// lintCollector lints the named collector logs of dir in order, each from
// logs[name] as a stream when logs has it, with read buffers of chunk
// bytes, and returns lintFiles' output and summary.
func lintCollector(t *testing.T, dir string, names []string, logs map[string][]byte, jobs, chunk int) (string, *Stats) {
	t.Helper()
	var out strings.Builder
	st, err := lintWithTimeout(t, func(yield func(Input) bool) {
		for _, n := range names {
			in := Input{Path: filepath.Join(dir, n), Kind: kind.Lookup("collector/event")}
			if data, ok := logs[n]; ok {
				in.Reader = bytes.NewReader(data)
			}
			if !yield(in) {
				return
			}
		}
	}, LintConfig{Jobs: jobs, ChunkSize: chunk, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
		Emit: func(e envelope.Envelope) error {
			b, err := json.Marshal(e)
			out.Write(append(b, '\n'))
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), st
}

// verdicts returns "file:line:RULE:severity" of every violation of out, sorted.
func verdicts(t *testing.T, dir, out string) []string {
	t.Helper()
	var vs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Details struct {
				File       string `json:"file"`
				Violations []struct {
					Rule, Severity string
					Line           int
				} `json:"violations"`
			} `json:"details"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, e.Details.File)
		for _, v := range e.Details.Violations {
			vs = append(vs, fmt.Sprintf("%s:%d:%s:%s", rel, v.Line, v.Rule, v.Severity))
		}
	}
	slices.Sort(vs)
	return vs
}

// TestRunWideCollectorRules: CL101 resolves parents across every log of
// the run, in either direction, and warns about the rest after the last
// file; CL100 stays within each log; the verdicts do not depend on the
// order of the files, and the output does not depend on -j.
func TestRunWideCollectorRules(t *testing.T) {
	dir := t.TempDir()
	for n, data := range runWideLogs {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pm12, pm13, arch := "events-@pm-agent-2025-12-12.jsonl", "events-@pm-agent-2025-12-13.jsonl", "events-@architect-agent-2025-12-13.jsonl"
	want := []string{
		arch + ":2:CL101:warning", // span-001 is of trace-abc, not trace-xyz
		arch + ":3:CL100:error",
		pm13 + ":5:CL101:warning", // span-404: nowhere
	}
	for _, order := range [][]string{{pm12, pm13, arch}, {arch, pm13, pm12}, {pm13, arch, pm12}} {
		out1, st := lintFiles(t, dir, order, 1)
		out2, _ := lintFiles(t, dir, order, 2)
		if out1 != out2 {
			t.Errorf("order %v: output differs between -j 1 and -j 2:\n%s\n---\n%s", order, out1, out2)
		}
		if got := verdicts(t, dir, out1); !slices.Equal(got, want) {
			t.Errorf("order %v: verdicts\n%v\nwant\n%v", order, got, want)
		}
		if st.Denied != 1 || st.Warnings != 2 || st.Groups["trace_id"] != 2 {
			t.Errorf("order %v: denied %d warnings %d groups %v", order, st.Denied, st.Warnings, st.Groups)
		}
		// Run-wide findings come after the last file's envelopes.
		ls := strings.Split(strings.TrimSpace(out1), "\n")
		if last := ls[len(ls)-1]; !strings.Contains(last, "CL101") {
			t.Errorf("order %v: the last envelope is not a CL101 finding: %s", order, last)
		}
	}
	// Today's log alone: yesterday's parent and the architect's are not in
	// the run; a warning each, no denial.
	out, st := lintFiles(t, dir, []string{pm13}, 2)
	if got, want := verdicts(t, dir, out), []string{pm13 + ":1:CL101:warning", pm13 + ":2:CL101:warning", pm13 + ":5:CL101:warning"}; !slices.Equal(got, want) {
		t.Errorf("today alone: %v, want %v", got, want)
	}
	if st.Denied != 0 {
		t.Errorf("today alone: %d denied, want 0", st.Denied)
	}
}

// TestDuplicateIDReread: in a file the engine can read again, CL100 keeps
// a hash and an offset per event_id and confirms a repeat by reading the
// earlier record; the findings (lines, first_line) equal those of the same
// bytes read from a reader that cannot be re-read (whole keys), with a
// byte-order mark, CRLF endings, blank lines, a line too long to be a
// record and repeats more than 32 records apart.
func TestDuplicateIDReread(t *testing.T) {
	var b strings.Builder
	b.WriteString("\ufeff")
	for i := 1; i <= 120; i++ {
		id := i
		switch i {
		case 70:
			id = 3
		case 90, 91:
			id = 50
		}
		rec := collectorRec(i%60, uuid(id))
		if i == 70 {
			rec = strings.Replace(rec, "6f1c2a3e-0b4d-4c8e-9a71", "6F1C2A3E-0B4D-4C8E-9A71", 1)
		}
		b.WriteString(rec)
		if i%7 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		if i%11 == 0 {
			b.WriteString("\n")
		}
		if i == 40 {
			b.WriteString(`{"x":"` + strings.Repeat("a", 3000) + `"}` + "\n")
		}
	}
	data := b.String()
	path := filepath.Join(t.TempDir(), "events-2026-02-14.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(in Input) []string {
		var got []string
		_, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(in) },
			LintConfig{Jobs: 2, ChunkSize: 1024, MaxLine: 2048, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
				Emit: func(e envelope.Envelope) error {
					vs, _ := e.Details["violations"].([]envelope.Violation)
					for _, v := range vs {
						if v.Rule == "CL100" || v.Rule == "AL009" {
							got = append(got, fmt.Sprintf("%d:%s:%v", v.Line, v.Rule, v.Extra["first_line"]))
						}
					}
					return nil
				}})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	fromFile := run(Input{Path: path, Kind: kind.Lookup("collector/event")})
	fromReader := run(Input{Path: path, Reader: strings.NewReader(data), Kind: kind.Lookup("collector/event")})
	// Line numbers: 120 records, a blank line after every 11th, the long
	// line after record 40.
	lineOf := func(i int) int {
		n := i + (i-1)/11
		if i > 40 {
			n++
		}
		return n
	}
	want := []string{
		fmt.Sprintf("%d:AL009:<nil>", lineOf(40)+1),
		fmt.Sprintf("%d:CL100:%d", lineOf(70), lineOf(3)),
		fmt.Sprintf("%d:CL100:%d", lineOf(90), lineOf(50)),
		fmt.Sprintf("%d:CL100:%d", lineOf(91), lineOf(50)),
	}
	if !slices.Equal(fromFile, want) || !slices.Equal(fromReader, want) {
		t.Errorf("from the file %v\nfrom a reader %v\nwant %v", fromFile, fromReader, want)
	}
}
