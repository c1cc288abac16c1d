package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/rules"
)

// TestStreamTrees lints the golden trees of the rules that compare files
// (ISSUE4.md): testdata/stream/<family>/<rule-id>/{fail,pass}/ are walked and
// linted with the real engine, as `agentlint lint --format text DIR` would
// (paths relative to DIR, --now 2026-02-14T20:00:00Z), and the output is
// compared with the tree's want.txt (go test ./lint -run TestStreamTrees
// -update rewrites it). The fail tree must report its rule, the pass tree
// must not.
func TestStreamTrees(t *testing.T) {
	root := filepath.Join("..", "testdata", "stream")
	cases, err := filepath.Glob(filepath.Join(root, "*", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range cases {
		side := filepath.Base(dir)
		id := filepath.Base(filepath.Dir(dir))
		if side != "fail" && side != "pass" {
			continue
		}
		n++
		t.Run(id+"/"+side, func(t *testing.T) {
			if rules.Lookup(id) == nil {
				t.Fatalf("%s: no rule %s", dir, id)
			}
			got := lintTreeText(t, dir)
			reported := strings.Contains(got, " "+id+": ")
			if side == "fail" && !reported {
				t.Errorf("the fail tree does not report %s:\n%s", id, got)
			}
			if side == "pass" && reported {
				t.Errorf("the pass tree reports %s:\n%s", id, got)
			}
			want := filepath.Join(dir, "want.txt")
			if *updateFamilies {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			w, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(w) {
				t.Errorf("output differs from %s (-update rewrites it):\n got:\n%s\nwant:\n%s", want, got, w)
			}
		})
	}
	if n == 0 {
		t.Fatal("no golden trees under " + root)
	}
	// Every rule that compares files and has no single-file example has
	// its trees (agentlint explain points there).
	for _, r := range rules.All() {
		if _, tree := rules.Stream(r.ID).(rules.TreeRule); !tree || r.Example != "" || strings.HasPrefix(r.ID, "ZZ") {
			continue
		}
		family, _, _ := strings.Cut(r.Kinds[0], "/")
		for _, side := range []string{"fail", "pass"} {
			if _, err := os.Stat(filepath.Join(root, family, r.ID, side, "want.txt")); err != nil {
				t.Errorf("tree rule %s has no golden tree: %v", r.ID, err)
			}
		}
	}
}

// lintTreeText lints the directory dir like `agentlint lint --format text`
// and returns the output with paths relative to dir, summary included.
func lintTreeText(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	p := &output.Text{W: &out}
	st, err := lintWithTimeout(t, func(yield func(Input) bool) {
		(&Walker{}).Walk(dir, func(in Input) bool {
			return filepath.Base(in.Path) == "want.txt" || yield(in)
		})
	}, LintConfig{Jobs: 2, Detector: &Detector{}, Out: &out, Render: p.AppendRecord,
		Options: Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Summary(st.Summary()); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), filepath.ToSlash(dir)+"/", "")
}
