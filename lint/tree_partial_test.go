package lint

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// lintNamedText lints the given files and directories of the tree dir as
// `agentlint lint --format text ARG...` run in dir does (files named one by
// one, directories walked) and returns the text output.
func lintNamedText(t *testing.T, dir string, args ...string) string {
	t.Helper()
	t.Chdir(dir)
	var out bytes.Buffer
	p := &output.Text{W: &out}
	inputs := func(yield func(Input) bool) {
		for _, a := range args {
			if strings.HasSuffix(a, "/") {
				if !(&Walker{}).Walk(strings.TrimSuffix(a, "/"), yield) {
					return
				}
			} else if !yield(Input{Path: a}) {
				return
			}
		}
	}
	st, err := lintWithTimeout(t, inputs,
		LintConfig{Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}, Jobs: 2, Render: p.AppendRecord, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Summary(st.Summary()); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// filesOf lists the files of the tree dir (relative, slash-separated, in
// walk order) but want.txt.
func filesOf(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "want.txt" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTreeRulesNamedFiles: when files are named one by one (what pre-commit
// passes: the changed files), a tree rule never reports a reference as
// dangling because the set of files that holds its target (an agent's
// ledger folder, templates/, processes/) was not walked; single-file sides
// (work_orders.jsonl, messages.jsonl, events.jsonl) named in the run are
// still compared. Walking the set's folder makes the comparison run again.
func TestTreeRulesNamedFiles(t *testing.T) {
	for _, tc := range []struct {
		tree string
		args func(files []string) []string // nil: every file, named
		want []string                      // findings expected (substrings of their lines)
		not  []string                      // findings that must not appear
	}{
		{tree: "ledger/LG102", not: []string{"LG102"}},
		{tree: "ledger/LG102", args: func([]string) []string { return []string{"agents/cls/status.json", "g/ledger/cls/"} },
			want: []string{`LG102: last_task_id "wo-124"`, `LG102: session_id "2025-11-16_cls_002"`}},
		{tree: "vermas/VM132", want: []string{`VM132: process "proc-p4c5d6" names work order "wo-c3d4e5"`},
			not: []string{`names template "worker-exec"`}},
		{tree: "vermas/VM132", args: func(files []string) []string {
			return append(filter(files, "templates/"), ".work/templates/")
		}, want: []string{`names template "worker-exec"`, `names work order "wo-c3d4e5"`}},
		{tree: "vermas/VM135", want: []string{`names message "msg-n4b7c1"`, `names work order "wo-c3d4e5"`},
			not: []string{`names process "proc-verify-d1e2"`}},
		{tree: "vermas/VM135", args: func(files []string) []string {
			return append(filter(files, "processes/"), ".work/processes/")
		}, want: []string{`names process "proc-verify-d1e2"`, `names message "msg-n4b7c1"`}},
	} {
		dir, err := filepath.Abs(filepath.Join("..", "testdata", "stream", filepath.FromSlash(tc.tree), "fail"))
		if err != nil {
			t.Fatal(err)
		}
		files := filesOf(t, dir)
		args := files
		if tc.args != nil {
			args = tc.args(files)
		}
		t.Run(tc.tree, func(t *testing.T) {
			got := lintNamedText(t, dir, args...)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lint %s: no finding %q:\n%s", strings.Join(args, " "), w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("lint %s: finding %q although its other side was not walked:\n%s", strings.Join(args, " "), n, got)
				}
			}
		})
	}
}

// filter returns files without those under the folder named by part.
func filter(files []string, part string) []string {
	var out []string
	for _, f := range files {
		if !strings.Contains(f, part) {
			out = append(out, f)
		}
	}
	return out
}
