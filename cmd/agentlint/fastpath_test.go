package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateFastPath: every validate command line gives the same exit
// status, standard output, standard error and --output files through
// validateFast as through the cobra command tree, whether validateFast
// takes the command line or leaves it to cobra (help, usage errors, flags
// that do not parse).
func TestValidateFastPath(t *testing.T) {
	seeds := filepath.Join("..", "..", "testdata", "seeds")
	asg := filepath.Join(seeds, "operator", "assignment.json")
	res := filepath.Join(seeds, "operator", "result.json")
	events := filepath.Join(demoDir, "collector", "events-2026-02-14.jsonl")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version":"2.0.0","event_type":"Lifecycle.Started"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "out.xml")
	lines := [][]string{
		{"validate", asg},
		{"validate", res},
		{"validate", "--assignment", asg, res},
		{"validate", "--assignment=" + asg, res},
		{"validate", bad},
		{"validate", "--kind", "collector/event", bad},
		{"validate", "--kind=collector/event", "--strict", bad},
		{"validate", "--kind", "nope/nope", bad},
		{"validate", "--kind", "collector/event", events},
		{"validate", "--format", "text", "--color", "always", bad},
		{"validate", "--format=sarif", bad},
		{"validate", "--format", "junit", asg},
		{"validate", "--format", "markdown", bad},
		{"validate", "--format", "github", bad},
		{"validate", "--format", "nope", bad},
		{"validate", "--color", "sometimes", bad},
		{"validate", "--now", "2026-02-14T20:00:00Z", "--max-skew", "5m", asg},
		{"validate", "--now", "yesterday", asg},
		{"validate", "--max-skew", "soon", asg},
		{"validate", "--max-skew", "-1s", asg},
		{"validate", "--engine", "nope", asg},
		{"validate", "-j", "2", "--quiet", "--max-warnings", "0", asg},
		{"validate", "-j", "two", asg},
		{"validate", "--base", "HEAD", asg},
		{"validate", "--config", filepath.Join(dir, "missing.toml"), asg},
		{"validate", "--output", "junit=" + junit, bad},
		{"validate", "--output", "nope", bad},
		{"validate", asg, res},
		{"validate", "--", asg},
		{"validate", "-", "--strict"},
		{"validate", filepath.Join(dir, "missing.json")},
		{"validate", "--help"},
		{"validate", "-h", asg},
		{"validate", "--version", asg},
		{"validate", "--nope", asg},
		{"validate", "-x", asg},
		{"validate", "--kind"},
		{"validate", "help"},
		{"--strict", "validate", asg},
	}
	for _, args := range lines {
		run := func(noFast bool) string {
			os.Remove(junit)
			var out, errb bytes.Buffer
			a := &app{stdin: strings.NewReader(`{"version":"1.0.0"}`), stdout: &out, stderr: &errb, noFastPath: noFast}
			code := a.run(args)
			written, _ := os.ReadFile(junit)
			return strings.Join([]string{"exit " + string(rune('0'+code)), out.String(), errb.String(), string(written)}, "\n--\n")
		}
		if fast, slow := run(false), run(true); fast != slow {
			t.Errorf("agentlint %s:\nfast path:\n%s\ncobra:\n%s", strings.Join(args, " "), fast, slow)
		}
	}
}
