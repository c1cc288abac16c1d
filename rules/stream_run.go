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

	groups map[string]func() int
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

// CountGroup registers the counter of the correlation group name
// ("trace_id"): count returns the number of its distinct values seen in
// the run so far, and the summary reports it (Groups). The check that
// counts keeps the values itself, in its own compact form.
func (r *LintRun) CountGroup(name string, count func() int) {
	if r.groups == nil {
		r.groups = map[string]func() int{}
	}
	r.groups[name] = count
}

// Groups returns the number of distinct values of each correlation group
// that has at least one, by group name; nil when none has.
func (r *LintRun) Groups() map[string]int {
	var out map[string]int
	for n, count := range r.groups {
		c := count()
		if c == 0 {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[n] = c
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
