package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// lintTreeText lints the directory dir as `agentlint lint --format text dir`
// does (Walker, the real engine, every rule) and returns the output with
// dir's path removed, so that goldens do not depend on where the
// repository lies.
func lintTreeText(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	p := &output.Text{W: &out}
	st, err := lintWithTimeout(t, func(yield func(Input) bool) { (&Walker{}).Walk(dir, yield) },
		LintConfig{Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}, Jobs: 2, Render: p.AppendRecord, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Summary(st.Summary()); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
}

// TestTreeRuleExamples lints the golden trees of every rule that has one
// (Rule.ExampleTree: <dir>/fail and <dir>/pass) and compares the output
// with the want.txt of each tree (go test ./lint -run TestTreeRuleExamples
// -update rewrites them). The failing tree must violate the rule and the
// passing one must give no finding at all.
func TestTreeRuleExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.ExampleTree == "" {
			continue
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			for _, side := range []string{"fail", "pass"} {
				dir := filepath.Join("..", filepath.FromSlash(r.ExampleTree), side)
				got := lintTreeText(t, dir)
				want := filepath.Join(dir, "want.txt")
				if *updateFamilies {
					if err := os.WriteFile(want, []byte(got), 0o666); err != nil {
						t.Fatal(err)
					}
				}
				b, err := os.ReadFile(want)
				if err != nil {
					t.Fatalf("%v (run with -update)", err)
				}
				if string(b) != got {
					t.Errorf("%s differs from want.txt (-update rewrites it):\n--- got\n%s--- want\n%s", dir, got, b)
				}
				has := strings.Contains(got, " "+r.ID+": ")
				if side == "fail" && !has {
					t.Errorf("%s does not violate %s:\n%s", dir, r.ID, got)
				}
				if side == "pass" && strings.Count(got, "\n") != 1 {
					t.Errorf("%s has findings:\n%s", dir, got)
				}
			}
		})
	}
	if n < 7 {
		t.Fatalf("only %d rules have example trees", n)
	}
}

// TestStreamRulesHaveExamples: every stream or tree rule shows a failing and
// a passing example, JSON Lines texts (TestRuleExamples) or trees
// (TestTreeRuleExamples).
func TestStreamRulesHaveExamples(t *testing.T) {
	for _, r := range rules.All() {
		if rules.Stream(r.ID) == nil || strings.HasPrefix(r.ID, "ZZ") {
			continue
		}
		if r.ID == "AL020" {
			// Its examples need a git repository: testdata/script/lint_base.txtar
			// and lint/gitbase's tests build them.
			continue
		}
		if (r.Example == "" || r.Fixed == "") && r.ExampleTree == "" {
			t.Errorf("stream rule %s has no examples", r.ID)
		}
	}
}
