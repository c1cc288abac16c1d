package main

import (
	"bufio"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/baseline"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/gitbase"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

func (a *app) lintCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Lint files and directories; stream JSON Lines record by record",
		Long: `Lint files, directories (walked) and - (standard input). JSON Lines files are
read record by record in memory bounded by the longest line, by -j workers in
parallel; the output is in input order and the same whatever -j is. Prints one
envelope per denied or warned record, then one summary envelope.

Directories are walked depth first in name order. Skipped: .git, what
.gitignore files ignore (nested ones included), the config's exclude globs,
and directories already walked through a symbolic link. A dangling symbolic
link is reported (exit 2) and the walk goes on. A walk never leaves the
directory it was given: a symbolic link that points outside it is skipped
(listed by --verbose); a path named on the command line is followed.

A file's kind comes from --kind, the config's [kinds] globs, the built-in
globs, then the first record of a .json or .jsonl file. When a directory is
walked, files whose kind cannot be determined are skipped and counted
(skipped_files; --verbose lists on stderr every file or directory the walk
left out, and why); a file named explicitly must have a known kind (exit 2),
and - needs --kind or a first record that names its kind. With
--skip-unknown, a file named explicitly whose kind cannot be determined is
skipped and counted too, as in a walk: for hooks that pass a list of changed
files (pre-commit).

Rules across files (LG102, VM132, VM135) compare a file with a set of files
(an agent's ledger folder, templates/, processes/) only when the run walked
that folder: when files are named one by one, a reference whose target may
be in a file that was not named is not reported. Lint the tree (lint .) to
check every reference.

When stderr is a terminal, a run that lasts over a second shows its progress
there (bytes and files done of the total, records per second), cleared when
done; never with --quiet, never on stdout.

With --base REV, every append-only log (agentlint rules AL020: vermas events,
worklogs, idle events, ledger entries, collector logs) read from disk must
still start with exactly the bytes it had at the git revision REV, as
committed or as checked out; an edited, removed or truncated line is
NON_COMPLIANT at the first line that changed, and a log of a linted
directory that was deleted since REV is reported after the last file. The
repository is the one that holds the first PATH (or the working directory);
files outside it are not compared. A REV that does not resolve (a shallow
clone that lacks it) is a usage error (exit 2) that says how to fetch it;
--base HEAD in a repository without a commit yet compares nothing (there
is no history to append to), so a pre-commit hook passes the first commit.

Adopting the gate where data already holds mistakes: with --new-from-rev
REV (which implies --base REV), every rule still reads every record, but a
finding is printed and counted only when it is about what changed since
REV: a record appended to a log, a file added, a finding of a changed file
that its version at REV did not have, and AL020. Exit status,
--max-warnings and the summary count new findings; the summary also counts
the older ones left out (older_findings). --write-baseline FILE records
every current finding (rule, path, JSON Pointer, hash of the record's
bytes; never a line number or a value) and --baseline FILE leaves those
out. SARIF marks each result's baselineState (new or unchanged).

Without --now, lint never reads the wall clock: time rules take the data's
own clock (IL013: the latest timestamp of the log), so the same tree gives
the same output at any time.

A run whose paths held no file of a known kind exits 2 naming them (a
mistyped path is not a green gate), unless --skip-unknown is given.
--force-exclude applies the config's exclude globs to paths named on the
command line too, as the pre-commit hooks do.`,
		Example: `  agentlint lint testdata/demo
  agentlint lint --format text -j 4 worklogs/
  agentlint lint --quiet --max-warnings 0 .
  agentlint lint --verbose --format text .
  cat worklogs/T-12.jsonl | agentlint lint --kind operator/worklog -
  agentlint lint --base origin/main .
  agentlint lint --new-from-rev origin/main .
  agentlint lint --write-baseline .agentlint-baseline.json .
  agentlint lint --baseline .agentlint-baseline.json .
  agentlint lint --skip-unknown --base HEAD $(git diff --cached --name-only)
  agentlint lint --format sarif . > agentlint.sarif
  agentlint lint --format github --output sarif=agentlint.sarif --output markdown=summary.md .`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return a.lint(args)
		},
	}
	cmd.Flags().StringVar(&a.g.kind, "kind", "", "kind of every input (see agentlint kinds)")
	cmd.Flags().BoolVarP(&a.g.verbose, "verbose", "v", false, "list on stderr every file the walk skipped, and why")
	a.addCommonFlags(cmd)
	cmd.Flags().BoolVar(&a.g.skipUnknown, "skip-unknown", false, "skip and count files named explicitly whose kind cannot be determined (as a walk does) instead of exit 2")
	a.addOutputFlag(cmd)
	a.addAdoptFlags(cmd)
	return cmd
}

// errIncomplete: some input could not be read; its envelope and the summary
// were printed (exit 2).
var errIncomplete = errors.New("incomplete")

func (a *app) lint(args []string) error {
	_, cfg, opts, _, err := a.setup()
	if err != nil {
		return err
	}
	forced, err := a.checkKind()
	if err != nil {
		return err
	}
	if err := a.checkOutputs(args...); err != nil {
		return err
	}
	if out := a.adopt.writeBaseline; out != "" {
		if err := refuseInput("--write-baseline "+out, out, args); err != nil {
			return err
		}
	}
	jobs := a.g.jobs
	if jobs < 0 {
		return usagef("-j must be a positive number of workers, not %d", jobs)
	}
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	newEngine, err := a.engineFactory()
	if err != nil {
		return err
	}
	if rev := a.adopt.newFromRev; rev != "" {
		if a.g.base != "" && a.g.base != rev {
			return usagef("--base %s and --new-from-rev %s name two revisions; --new-from-rev REV already checks the append-only logs against REV", a.g.base, rev)
		}
		a.g.base = rev
	}
	det := &kind.Detector{Forced: forced, Config: cfg}
	resolved, err := a.resolveArgs(args, det, cfg)
	if err != nil {
		return err
	}
	base, roots, err := a.openBase(args, resolved)
	if err != nil {
		return err
	}
	if base.Base != nil {
		defer base.Base.Close()
	}
	walker := &lint.Walker{Config: cfg, ReportSkipped: a.g.verbose}
	inputs := func(yield func(lint.Input) bool) {
		for _, r := range resolved {
			if r.Dir != "" {
				if !walker.Walk(r.Dir, yield) {
					return
				}
			} else if !yield(r.Input) {
				return
			}
		}
	}

	prog := a.startProgress(resolved, det, walker)
	defer prog.Stop()
	bw := bufio.NewWriterSize(prog.Writer(a.stdout), 256<<10)
	p, err := output.New(a.g.format, bw, a.colorOn(), a.runInfo())
	if err != nil {
		return usagef("%v", err)
	}
	lc := lint.LintConfig{Options: opts, NewEngine: newEngine, Jobs: jobs, Detector: det, Quiet: a.g.quiet, Out: bw, Base: base, BaseRoots: roots,
		Progress: prog.Progress()}
	if a.g.verbose {
		lc.Skipped = a.skippedLine
	}
	var observed []output.Printer
	if !a.g.quiet {
		observed = append(observed, p)
	}
	if len(a.outs) > 0 {
		// Every --output gets every envelope, whatever --quiet does to
		// --format; envelopes go through Emit, in input order.
		t := &tee{main: p, quiet: a.g.quiet, outs: a.outs}
		for _, o := range a.outs {
			observed = append(observed, o.p)
		}
		lc.Quiet = false
		lc.Emit = t.Record
		p = t
	} else if ap, ok := p.(output.Appender); ok {
		lc.Render = ap.AppendRecord
		if rp, ok := p.(output.RecordAppender); ok {
			lc.RenderRecord = rp.AppendRecordVerdict
		}
	} else {
		lc.Emit = p.Record
	}
	lc.FileDone = fileDone(observed...)
	filter, err := a.newFilter(cfg, opts, newEngine, base.Base)
	if err != nil {
		return err
	}
	if filter != nil {
		a.bindTree(filter, base.Base, resolved, lc, cfg)
		// Every envelope goes through the filter, which passes on the new
		// findings and counts both.
		defer filter.Close()
		next := lc.Emit
		if next == nil {
			next = p.Record
		}
		if lc.Quiet {
			next = func(envelope.Envelope) error { return nil }
		}
		filter.New = next
		filter.Unchanged = unchangedTo(observed...)
		lc.Quiet, lc.Render, lc.RenderRecord, lc.Emit = false, nil, nil, filter.Record
	}
	st, err := lint.Lint(inputs, lc)
	if err != nil {
		return usagef("cannot write the output: %v", err)
	}
	var sum envelope.Envelope
	if filter != nil {
		if a.adopt.writeBaseline != "" {
			if err := baseline.Write(a.adopt.writeBaseline, filter.Fingerprints()); err != nil {
				return usagef("--write-baseline %s: %v", a.adopt.writeBaseline, unwrapPath(err))
			}
		}
		sum = a.adoptSummary(st, filter)
	} else {
		sum = st.Summary()
	}
	empty := st.Files == 0 && st.UnreadableFiles == 0 && st.Denied == 0 && st.Warnings == 0 && !a.g.skipUnknown
	if empty {
		// A mistyped path is not a green gate: the tool could not do its
		// job (exit 2), and SARIF says so.
		sum.Allow, sum.Code = false, envelope.MissingRequiredInput
		sum.Reason = fmt.Sprintf("no file of a known kind in %s: nothing was linted (%s skipped); check the paths, or pass --skip-unknown when that is expected",
			strings.Join(args, " "), plural(st.SkippedFiles, "file"))
		for _, o := range append([]output.Printer{p}, observed...) {
			if ab, ok := o.(output.Aborter); ok {
				ab.Abort(sum)
			}
		}
	}
	a.overWarnings(&sum, st.Warnings)
	if err := p.Summary(sum); err != nil {
		return usagef("cannot write the output: %v", err)
	}
	main := p
	if t, ok := p.(*tee); ok {
		main = t.main
	}
	if err := a.finishRun(main, bw.Flush); err != nil {
		return err
	}
	prog.Stop() // before the note, on the same terminal
	if a.g.format == "text" {
		a.skipNote(st.SkippedFiles, st.Files)
	}
	switch {
	case st.UnreadableFiles > 0 || empty:
		return errIncomplete
	case !sum.Allow:
		return errDenied
	}
	return nil
}

// openBase opens the git repository of the first path argument (the working
// directory when there is none or it is -) at --base REV, once for the run,
// and returns the AL020 binding and the directories whose deleted logs are
// reported; an empty --base gives the zero binding. A REV that does not
// resolve, a missing git or a path outside any repository is a usage error
// whose reason is gitbase's sentence.
func (a *app) openBase(args []string, resolved []lint.Arg) (rules.AppendOnly, []string, error) {
	if a.g.base == "" {
		return rules.AppendOnly{}, nil, nil
	}
	dir := "."
	for _, arg := range args {
		if arg != "-" {
			dir = arg
			break
		}
	}
	b, err := gitbase.Open(dir, a.g.base)
	if err != nil {
		msg := err.Error()
		if a.adopt.newFromRev != "" {
			msg = strings.Replace(msg, "--base ", "--new-from-rev ", 1)
		}
		return rules.AppendOnly{}, nil, usagef("%s", msg)
	}
	var roots []string
	for _, r := range resolved {
		if r.Dir != "" {
			roots = append(roots, r.Dir)
		}
	}
	return rules.AppendOnly{Base: b, Rev: a.g.base}, roots, nil
}

// engineFactory returns the schema engine constructor of one worker (nil:
// the fast path). The CUE evaluator is not safe for concurrent use: each
// worker gets its own.
func (a *app) engineFactory() (func() record.SchemaEngine, error) {
	eng, err := a.schemaEngine()
	if err != nil || eng == nil {
		return nil, err
	}
	first := eng
	return func() record.SchemaEngine {
		if first != nil {
			e := first
			first = nil
			return e
		}
		e, _ := a.newCUEEngine()
		return e
	}, nil
}

// resolveArgs resolves the arguments before the run starts (lint.Resolve):
// a missing, unreadable or undetectable file named explicitly is a usage
// error (exit 2) with no other output.
func (a *app) resolveArgs(args []string, det *kind.Detector, cfg *lint.Config) ([]lint.Arg, error) {
	out, err := lint.Resolve(args, lint.ResolveConfig{Detector: det, Config: cfg, ForceExclude: a.adopt.forceExclude,
		SkipUnknown: a.g.skipUnknown, Stdin: a.stdin, Excluded: func(path string) {
			if a.g.verbose {
				a.skippedLine(path, "excluded by the config (--force-exclude)")
			}
		}})
	return out, inputUsage(err)
}

// inputUsage turns a *lint.InputError into the usage error that names its
// file (exit 2).
func inputUsage(err error) error {
	var ie *lint.InputError
	if errors.As(err, &ie) {
		return fileUsagef(ie.Path, "%s", ie.Reason)
	}
	return err
}
