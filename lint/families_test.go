package lint

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

var updateFamilies = flag.Bool("update", false, "rewrite testdata/families/*/want.txt and testdata/families/vermas/invalid.golden from the actual findings")

// lintTree lints every file under dir whose kind is detected (glob, then
// sniffing) and returns one line per violation, file:line:col: CODE
// severity RULE pointer, relative to dir, in walk order.
func lintTree(t *testing.T, dir string, strict bool) (lines []string, denied map[string]bool) {
	t.Helper()
	denied = map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "want.txt" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		k := kind.ByGlob(rel)
		if k == nil {
			k = kind.Sniff(data)
		}
		if k == nil {
			t.Errorf("%s: k not detected", rel)
			return nil
		}
		emit := func(e envelope.Envelope) error {
			vs, _ := e.Details["violations"].([]envelope.Violation)
			for _, v := range vs {
				lines = append(lines, fmt.Sprintf("%s:%d:%d: %s %s %s %s", rel, v.Line, v.Column, v.Code, v.Severity, v.Rule, v.Pointer))
				if v.Severity == envelope.SeverityError {
					denied[fmt.Sprintf("%s:%d", rel, v.Line)] = true
				}
			}
			return nil
		}
		lintOne(t, strict, k, rel, bytes.NewReader(data), emit)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, denied
}

// TestFamilies: every record of the seed examples (testdata/seeds/{ledger,
// collector,idle}) and of testdata/families/*/valid is allowed; every record
// of testdata/families/*/invalid is denied or warned, and the findings are
// those of testdata/families/<family>/want.txt (go test ./lint -run
// TestFamilies -update rewrites them).
func TestFamilies(t *testing.T) {
	for _, fam := range []string{"ledger", "collector", "idle"} {
		t.Run(fam, func(t *testing.T) {
			for _, dir := range []string{filepath.Join("..", "testdata", "seeds", fam), filepath.Join("..", "testdata", "families", fam, "valid")} {
				for _, strict := range []bool{false, true} {
					if _, denied := lintTree(t, dir, strict); len(denied) > 0 {
						t.Errorf("%s (strict=%v): records denied: %v", dir, strict, denied)
					}
				}
			}
			dir := filepath.Join("..", "testdata", "families", fam)
			lines, _ := lintTree(t, filepath.Join(dir, "invalid"), false)
			got := strings.Join(lines, "\n") + "\n"
			want := filepath.Join(dir, "want.txt")
			if *updateFamilies {
				if err := os.WriteFile(want, []byte(got), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(b) != got {
				t.Errorf("findings of %s/invalid differ from want.txt (run with -update to accept):\n--- got\n%s--- want\n%s", dir, got, b)
			}
		})
	}
}

// lintOne lints one file's content r of kind as file name rel with the
// engine of `agentlint lint` (one worker, --now 2026-02-14T20:00:00Z) and
// passes every envelope to emit; it returns the run's counts.
func lintOne(t *testing.T, strict bool, k *kind.Kind, rel string, r io.Reader, emit func(envelope.Envelope) error) *Stats {
	t.Helper()
	st, err := Lint(func(yield func(Input) bool) {
		yield(Input{Path: rel, Reader: r, Kind: k})
	}, LintConfig{Options: record.Options{Strict: strict, Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}, Jobs: 1, Emit: emit})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
