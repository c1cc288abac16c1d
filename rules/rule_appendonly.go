package rules

import (
	"os"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/gitbase"
)

// AppendOnlyKinds are the JSON Lines kinds whose files are append-only logs:
// an event or entry, once written, is history (seed 000 "JSONL for
// append-only logs", events are "the source of truth"; seed 001 worklog
// "existing lines MUST NOT be edited or deleted"; seed 002 append-only
// topics; seed 003 and seed 004 daily logs). The projections
// vermas/work-order and vermas/message (seed 000 File Layout: "projection",
// one line per id, rewritten when a work order or message changes) and the
// routing table vermas/route (configuration) are rewritten by design and are
// not listed.
var AppendOnlyKinds = []string{"vermas/event", "operator/worklog", "idle/event", "ledger/entry", "collector/event"}

// AppendOnly is the stream check of AL020: each file of an append-only kind
// is compared with its version at the base revision (lint/gitbase, one Check
// per file, reading the file from disk as an *os.File so that the common,
// compliant case only hashes it). The registered check has no Base and does
// nothing; `agentlint lint --base REV` binds one per run
// (lint.LintConfig.Base), so that without --base the rule costs nothing.
//
// The comparison starts when the file's first records reach the stream
// rules and runs alongside them; its finding is reported after the file's
// last record, at the first line that changed (numbered as at REV). Standard
// input ("-") has no version to compare with and is not checked. An error
// (the file vanished, git failed) is reported as a finding of the rule, so
// that a log that could not be compared is never passed as append-only.
type AppendOnly struct {
	Base *gitbase.Base
	// Rev is the revision as the user named it (--base REV), for reasons.
	Rev string
}

// Fields implements StreamRule: the check reads the file itself.
func (AppendOnly) Fields() []Field { return nil }

// NewFile implements StreamRule: it starts the comparison of file.
func (a AppendOnly) NewFile(file string, _ *Options) FileState {
	if a.Base == nil || file == "-" || file == "" {
		return appendOnlyState{}
	}
	done := make(chan StreamFinding, 1)
	go func() {
		f, err := os.Open(file)
		if err == nil {
			var fd *gitbase.Finding
			fd, err = a.Base.Check(file, f)
			f.Close()
			if err == nil && fd != nil {
				done <- StreamFinding{Line: fd.Line, Column: fd.Column, Reason: fd.Reason, Extra: map[string]any{
					"base": fd.Rev, "commit": fd.Commit, "repo_path": fd.RepoPath, "offset": fd.Offset, "base_size": fd.BaseSize, "truncated": fd.Truncated}}
			}
		}
		if err != nil {
			done <- StreamFinding{Line: 1, Reason: "cannot compare the file with its version at --base " + a.Rev + ": " + err.Error()}
		}
		close(done)
	}()
	return appendOnlyState{done: done}
}

type appendOnlyState struct {
	done chan StreamFinding // nil: nothing to compare
}

func (appendOnlyState) Observe(*StreamRecord, *StreamReporter) {}

// Finish waits for the comparison and reports its finding.
func (s appendOnlyState) Finish(r *StreamReporter) {
	if s.done == nil {
		return
	}
	for f := range s.done {
		r.Report(f)
	}
}

// appendOnlyRules defines the rules of this file (group AL, loaded on first use: see groups).
func appendOnlyRules() {
	register(&Rule{
		ID: "AL020", Name: "append-only", Code: envelope.NonCompliant, Severity: envelope.SeverityError,
		Scope: ScopeFile,
		Kinds: AppendOnlyKinds,
		Summary: "with --base REV, a JSON Lines log that existed at REV no longer starts with the bytes it had there (as committed or as checked out): " +
			"a line was edited or removed, a line ending changed, or the file was truncated or deleted; only appending is allowed",
		Source: "README, Codes and precedence (NON_COMPLIANT) and Usage (--base); seed 001 Worklog Contract",
		// No Example/Fixed: the rule compares a file with its version in git
		// (lint/gitbase), which a single document cannot show; lint/gitbase's
		// tests and testdata/script/lint_base.txtar build the failing and
		// passing repositories.
	})
	registerStream("AL020", AppendOnly{})
}
