package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/bench"
)

// TestLintJobsByteIdentical: `agentlint lint -j 1` and `-j 8` print the
// same bytes on a tree of many files: generated worklogs with defects (and
// so stream-rule findings), documents, undetectable files and blank lines,
// in JSON and in text.
func TestLintJobsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: lint of the repository at several -j (~2.5 s) runs in `make test`")
	}
	root := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 24; i++ {
		var b bytes.Buffer
		if _, err := bench.Generate(&b, bench.Config{Kind: bench.KindWorklog, Lines: 100 + 700*(i%3), Seed: uint64(i)}); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			// A blank line, and an entry older than the previous one (OP080).
			b.WriteString("\n  \n")
			b.WriteString(`{"timestamp":"2020-01-01T00:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-1","actor":"a","action":"b","files_touched":[],"decision":"c","result":"d","next_step":"e"}` + "\n")
		}
		write(fmt.Sprintf("team%d/worklogs/T-%d.jsonl", i%3, i), b.Bytes())
		write(fmt.Sprintf("team%d/locks-%d.json", i%3, i), []byte(fmt.Sprintf(`{"locks":[{"task_id":"T-%d","resource":"src/%d","active":%v}]}`, i, i%2, i%7 != 0)))
		write(fmt.Sprintf("team%d/notes-%d.txt", i%3, i), []byte("not data"))
	}
	for _, format := range []string{"json", "text", "sarif", "junit", "markdown"} {
		var outs [2]string
		for k, jobs := range []string{"1", "8"} {
			var stdout, stderr bytes.Buffer
			code := run([]string{"lint", "--format", format, "--color", "never", "-j", jobs, root}, strings.NewReader(""), &stdout, &stderr)
			if code != exitDeny {
				t.Fatalf("-j %s: exit %d, stderr %s", jobs, code, stderr.String())
			}
			outs[k] = stdout.String()
		}
		if outs[0] != outs[1] {
			t.Fatalf("%s: -j 1 and -j 8 differ", format)
		}
		if !strings.Contains(outs[0], "OP080") || strings.Count(outs[0], "\n") < 30 {
			t.Fatalf("%s: output too small to prove anything:\n%.2000s", format, outs[0])
		}
	}
}
