package rules

import "github.com/agentlint/agentlint/lint/gitbase"

// LintRun is what one lint run gives the stream checks that depend on it
// (RunBinder): the base revision of `--base REV` and the correlation groups
// the summary reports. The engine creates one per run; checks use it from
// the engine's sequential stage only (Observe, Finish), so it needs no lock.
type LintRun struct {
	// Base is the repository at --base REV (nil without --base); Rev is REV
	// as the user named it.
	Base *gitbase.Base
	Rev  string

	groups map[string]map[string]struct{}
}

// RunBinder is a stream check that depends on the run: before the first
// file, the engine calls BindRun and runs the check it returns in its place
// for the whole run; nil means the check does not run at all (so that, for
// example, AL020 costs nothing without --base). The registered value is
// never run itself; it must be comparable (a pointer, or a struct of
// comparable fields), as the engine binds each check once per run.
type RunBinder interface {
	StreamRule
	BindRun(run *LintRun) StreamRule
}

// Group returns the set of distinct values of the correlation group name
// ("trace_id") seen in the run, for a check to add to; the summary reports
// its size (Groups). Memory: one entry per distinct value.
func (r *LintRun) Group(name string) map[string]struct{} {
	if r.groups == nil {
		r.groups = map[string]map[string]struct{}{}
	}
	g := r.groups[name]
	if g == nil {
		g = map[string]struct{}{}
		r.groups[name] = g
	}
	return g
}

// Groups returns the number of distinct values of each correlation group
// that has at least one, by group name; nil when none has.
func (r *LintRun) Groups() map[string]int {
	var out map[string]int
	for n, g := range r.groups {
		if len(g) == 0 {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[n] = len(g)
	}
	return out
}

// BindRun implements RunBinder: AL020 runs only with --base.
func (AppendOnly) BindRun(run *LintRun) StreamRule {
	if run.Base == nil {
		return nil
	}
	return AppendOnly{Base: run.Base, Rev: run.Rev}
}
