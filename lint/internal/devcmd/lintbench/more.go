//go:build devtools

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentlint/agentlint/lint/bench"
	"github.com/agentlint/agentlint/lint/envelope"
)

var (
	ajvDir       string
	startupRuns  int
	replayDeltas int
	replayTasks  int
	replayBefore string
)

// ajvLenient are the generated defects that the JSON Schema `agentlint
// schema export` writes for the kind lets through, as ajv reads it, and the
// agentlint does not: a duplicate member name (JSON.parse keeps the last;
// agentlint reads RFC 7493 I-JSON, README, Codes and precedence) and a
// secret in a worklog decision (README, Codes and precedence,
// UNTRUSTED_CONTEXT_BLOCK: no JSON Schema keyword scans for secrets).
var ajvLenient = map[string]bool{"duplicate key": true, "secret in decision": true}

// checkAjv compares ajv's count of invalid lines with the defects it should
// find (every error defect but ajvLenient's).
func checkAjv(summary []byte, defects []bench.Defect) string {
	var r struct {
		Lines, Invalid int
	}
	if err := json.Unmarshal(summary, &r); err != nil {
		return "no result: " + err.Error()
	}
	want := 0
	for _, d := range defects {
		if d.Severity == envelope.SeverityError && !ajvLenient[d.Name] {
			want++
		}
	}
	if r.Invalid == want {
		return fmt.Sprintf("ajv: %d invalid = agentlint's denied minus agentlint's stricter clauses", r.Invalid)
	}
	return fmt.Sprintf("MISMATCH: ajv finds %d invalid lines, want %d", r.Invalid, want)
}

// startup times `agentlint validate` of one collector event against a
// hello-world Go binary built here with the same flags as `make build`, and
// against hello world linked with every third-party package agentlint links
// (lint/internal/devcmd/hellodeps: the floor those dependencies set): median wall
// time of startupRuns runs of each, interleaved.
func startup(bin, dir string) error {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		return err
	}
	hello, deps := filepath.Join(src, "hello"), filepath.Join(src, "hellodeps")
	for _, b := range []struct{ out, pkg, dir string }{
		{hello, ".", src},
		{deps, "github.com/agentlint/agentlint/lint/internal/devcmd/hellodeps", ""},
	} {
		build := exec.Command("go", "build", "-tags", "devtools", "-trimpath", "-ldflags", "-s -w", "-o", b.out, b.pkg)
		build.Dir, build.Stderr = b.dir, os.Stderr
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as `make build`
		if err := build.Run(); err != nil {
			return fmt.Errorf("building %s: %v", b.pkg, err)
		}
	}
	rec := filepath.Join(dir, "one.json")
	if err := os.WriteFile(rec, []byte(`{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T09:30:00Z","agent_id":"@backend-engineer","session_id":"pipeline-014","message":"Token bucket in place"}`+"\n"), 0o644); err != nil {
		return err
	}
	cmds := [][]string{{hello}, {deps}, {bin, "validate", "--kind", "collector/event", rec}}
	times := make([][]time.Duration, len(cmds))
	for i := 0; i < startupRuns; i++ {
		for c, argv := range cmds {
			start := time.Now()
			if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
				return fmt.Errorf("%v: %v", argv, err)
			}
			times[c] = append(times[c], time.Since(start))
		}
	}
	med := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	h, d, v := med(times[0]), med(times[1]), med(times[2])
	ms := func(t time.Duration) float64 { return float64(t.Microseconds()) / 1000 }
	fmt.Printf("start-up, median of %d runs each: hello world %.2f ms; hello world linking agentlint's dependencies %.2f ms (%.2fx); agentlint validate (one record) %.2f ms: %.2fx hello world (no bar: orchestrators use validate --stream or serve)\n",
		startupRuns, ms(h), ms(d), d.Seconds()/h.Seconds(), ms(v), v.Seconds()/h.Seconds())
	return nil
}

// replayBench times `agentlint replay` of replayDeltas deltas over
// replayTasks tasks (faster of two runs) and prints deltas/s and peak RSS;
// with replayBefore, the same for that binary first, and the ratios.
func replayBench(bin, dir string, keep bool) error {
	base, stream := filepath.Join(dir, "replay-base.jsonl"), filepath.Join(dir, "replay-deltas.jsonl")
	bf, err := os.Create(base)
	if err != nil {
		return err
	}
	sf, err := os.Create(stream)
	if err != nil {
		bf.Close()
		return err
	}
	err = bench.GenerateDeltas(bf, sf, replayTasks, replayDeltas)
	for _, f := range []*os.File{bf, sf} {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if !keep {
		defer os.Remove(base)
		defer os.Remove(stream)
	}
	measure := func(bin, label string) (measurement, error) {
		m, err := measureCmd(bin, "replay", "--ledger", base, stream)
		if err != nil {
			return m, err
		}
		var env struct {
			Allow bool
			Code  string
		}
		verdict := "no envelope"
		if json.Unmarshal(m.summary, &env) == nil {
			verdict = fmt.Sprintf("allow=%v code=%s", env.Allow, env.Code)
		}
		fmt.Printf("replay%s, %d deltas over %d tasks: %.3f s, %.0f deltas/s, peak RSS %.1f MiB (bar: >= 1M deltas/s, <= 64 MiB); %s\n",
			label, replayDeltas, replayTasks, m.wall.Seconds(), float64(replayDeltas)/m.wall.Seconds(), float64(m.rssKiB)/1024, verdict)
		return m, nil
	}
	if replayBefore == "" {
		_, err = measure(bin, "")
		return err
	}
	before, err := measure(replayBefore, " (before: "+replayBefore+")")
	if err != nil {
		return err
	}
	after, err := measure(bin, " (after: "+bin+")")
	if err != nil {
		return err
	}
	fmt.Printf("replay after/before: %.2fx deltas/s, %.2fx peak RSS\n",
		before.wall.Seconds()/after.wall.Seconds(), float64(after.rssKiB)/float64(before.rssKiB))
	return nil
}
