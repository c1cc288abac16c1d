package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/baseline"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/gitbase"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// Adopting the gate in a repository that already has data (README,
// "Adopting agentlint in a repository that already has data"): lint's
// --new-from-rev, --baseline, --write-baseline and --force-exclude.

// adoptFlags are lint's flags for adoption.
type adoptFlags struct {
	newFromRev    string
	baseline      string
	writeBaseline string
	forceExclude  bool
}

func (a *app) addAdoptFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&a.adopt.newFromRev, "new-from-rev", "", "count and print only findings about what changed since git revision REV (appended records, changed files); implies --base REV")
	fs.StringVar(&a.adopt.baseline, "baseline", "", "leave out the findings recorded in this baseline file (written by --write-baseline; config: baseline = \"FILE\")")
	fs.StringVar(&a.adopt.writeBaseline, "write-baseline", "", "record every current finding's fingerprint in this file (sorted, atomic) and exit 0")
	fs.BoolVar(&a.adopt.forceExclude, "force-exclude", false, "apply the config's exclude globs to paths named on the command line too (for hooks)")
}

// adopting reports whether a flag asks for a baseline.Filter (the
// config's baseline asks too).
func (a *app) adopting() bool {
	return a.adopt.newFromRev != "" || a.adopt.baseline != "" || a.adopt.writeBaseline != ""
}

// newFilter returns the Filter of the run, or nil when no adoption flag
// is given. base is the repository at --base/--new-from-rev (nil without).
func (a *app) newFilter(cfg *lint.Config, opts record.Options, newEngine func() record.SchemaEngine, base *gitbase.Base) (*baseline.Filter, error) {
	if !a.adopting() && (cfg == nil || cfg.Baseline == "") {
		return nil, nil
	}
	f := &baseline.Filter{Kind: func(name string) baseline.KindFacts {
		k := kind.Lookup(name)
		if k == nil {
			return baseline.KindFacts{}
		}
		return baseline.KindFacts{Lines: k.Format == kind.FormatJSONL, OKReason: k.OKReason}
	}}
	if base != nil {
		f.Root = base.Top()
		f.Rev = &baseline.Rev{Base: base, LintVersion: func(file, kindName string, emit func(envelope.Envelope) error) error {
			k := kind.Lookup(kindName)
			if k == nil {
				return fmt.Errorf("unknown kind %s", kindName)
			}
			_, err := lint.Lint(func(yield func(lint.Input) bool) {
				yield(lint.Input{Path: file, Kind: k})
			}, lint.LintConfig{Options: opts, NewEngine: newEngine, Jobs: 1, Emit: emit})
			return err
		}}
	} else {
		f.Root = repoTop()
	}
	bfile := a.adopt.baseline
	if bfile == "" && cfg != nil && cfg.Baseline != "" && a.adopt.writeBaseline == "" {
		bfile = cfg.Baseline
		if !filepath.IsAbs(bfile) {
			bfile = filepath.Join(cfg.Dir, bfile)
		}
	}
	if bfile != "" && a.adopt.writeBaseline == "" {
		set, err := baseline.Read(bfile)
		if err != nil {
			return nil, usagef("--baseline: %v", unwrapPath(err))
		}
		f.Baseline = set
	}
	f.Collect = a.adopt.writeBaseline != ""
	return f, nil
}

// repoTop is the real path of the git work tree holding the working
// directory, or the working directory outside one: baseline fingerprint
// paths are relative to it.
func repoTop() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	out, err := exec.Command("git", "-C", wd, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return wd
	}
	top := strings.TrimSpace(string(out))
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return top
}

// unchangedTo returns the Filter's Unchanged callback: the older findings
// go to the printers that mark them (SARIF's baselineState "unchanged");
// nil when no printer does.
func unchangedTo(ps ...output.Printer) func(envelope.Envelope) error {
	var ms []output.BaselineMarker
	for _, p := range ps {
		if m, ok := p.(output.BaselineMarker); ok {
			m.MarkBaseline()
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return func(e envelope.Envelope) error {
		for _, m := range ms {
			if err := m.Unchanged(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// adoptSummary replaces the counts of st with the Filter's new findings
// and adds to the summary what was left out; it returns the summary.
func (a *app) adoptSummary(st *lint.Stats, f *baseline.Filter) envelope.Envelope {
	c := f.Counts
	st.Denied, st.Warnings, st.ByCode, st.ByRule, st.Worst = c.Denied, c.Warnings, c.ByCode, c.ByRule, c.Worst
	sum := st.Summary()
	sum.Details["older_findings"] = c.Older
	if a.adopt.newFromRev != "" {
		sum.Details["new_from_rev"] = a.adopt.newFromRev
	}
	if f.Baseline != nil {
		sum.Details["baseline_absent"] = f.Baseline.Len()
	}
	older := ""
	switch {
	case a.adopt.writeBaseline != "":
		older = fmt.Sprintf("; %s recorded in the baseline %s", plural(c.Older, "finding"), a.adopt.writeBaseline)
	case c.Older > 0 && a.adopt.newFromRev != "":
		older = fmt.Sprintf("; %s older than %s left out", plural(c.Older, "finding"), a.adopt.newFromRev)
	case c.Older > 0:
		older = fmt.Sprintf("; %s in the baseline left out", plural(c.Older, "finding"))
	}
	if f.Baseline != nil && f.Baseline.Len() > 0 {
		older += fmt.Sprintf("; %s of the baseline no longer found", plural(f.Baseline.Len(), "finding"))
	}
	switch {
	case st.UnreadableFiles > 0:
		sum.Reason += older
	case c.Denied > 0:
		sum.Reason = newFindingsReason(c) + older
	default:
		sum.Reason = "no new record denied" + older
	}
	return sum
}

// newFindingsReason states the verdict in words: "2 new findings in 1
// denied record".
func newFindingsReason(c baseline.Counts) string {
	n := 0
	for _, k := range c.ByRule {
		n += k
	}
	return fmt.Sprintf("%s denied: %s", plural(c.Denied, "new record"), plural(n, "new finding"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// bindTree gives the Filter's Rev what it needs to lint the tree at the
// revision the way this run lints the working tree: the run's paths inside
// the repository, and the same arguments under the directory holding them
// as committed.
func (a *app) bindTree(f *baseline.Filter, base *gitbase.Base, resolved []lint.Arg, lc lint.LintConfig, cfg *lint.Config) {
	if f == nil || f.Rev == nil {
		return
	}
	type arg struct {
		rel  string
		dir  bool
		kind *kind.Kind
	}
	var args []arg
	for _, r := range resolved {
		path := r.Dir
		if path == "" {
			path = r.Input.Path
		}
		if path == "" || path == "-" {
			continue
		}
		rel := baseline.Rel(base.Top(), path)
		if filepath.IsAbs(filepath.FromSlash(rel)) || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // outside the repository
		}
		args = append(args, arg{rel: rel, dir: r.Dir != "", kind: r.Input.Kind})
		f.Rev.Roots = append(f.Rev.Roots, rel)
	}
	f.Rev.LintTree = func(root string, emit func(envelope.Envelope) error) error {
		walker := &lint.Walker{Config: cfg}
		inputs := func(yield func(lint.Input) bool) {
			for _, x := range args {
				p := filepath.Join(root, filepath.FromSlash(x.rel))
				if x.dir {
					if _, err := os.Stat(p); err == nil && !walker.Walk(p, yield) {
						return
					}
				} else if _, err := os.Stat(p); err == nil && !yield(lint.Input{Path: p, Kind: x.kind}) {
					return
				}
			}
		}
		_, err := lint.Lint(inputs, lint.LintConfig{Options: lc.Options, NewEngine: lc.NewEngine, Jobs: lc.Jobs, Detector: lc.Detector, Emit: emit})
		return err
	}
}
