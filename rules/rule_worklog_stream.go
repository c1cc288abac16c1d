package rules

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Blocked and failed outcomes of a worklog (seed 001 "Artifact: Worklog
// Entry": "blocked/failed outcomes MUST append a final entry with code and
// next_step"; NON_COMPLIANT in the README's codes: "a worklog entry whose
// result is blocked or failed without code and next_step").
//
// The outcome an entry records is its result when that is a task status of
// seed 001 (todo, in_progress, blocked, done, failed, canceled), compared
// without case and surrounding white space; a free-text result ("added 6
// tests") records no outcome. That code is one of the fourteen codes is
// OP023 (cue/operator.cue).
//
//   - OP081 (per entry, also for `agentlint validate`): an entry whose result
//     is blocked or failed carries a non-empty code and next_step.
//   - OP082 (per worklog): when the worklog's last outcome is blocked or
//     failed, an entry carrying a non-empty code and next_step closes it:
//     the outcome's own entry or one appended after it, so a reader knows
//     why the task stopped and what comes next. Once the outcome is closed,
//     more work may follow, whatever words its free-text results use.
//     Reported at the final entry, naming the outcome's line, when no entry
//     from the outcome on carries both; not reported when the outcome is
//     itself the final entry (OP081 covers it). Entries after the outcome
//     count valid or not.

// worklogOutcome returns the task status an entry's result records, or "":
// the result, trimmed and lowercased (strings.ToLower), equals one of
// TaskStatuses. Most results are sentences: a result too long to
// lowercase to a status (a rune lowercases to at least a third of its
// bytes) is none without being lowercased, and ASCII is compared without a
// copy (EqualFold on ASCII is equality after lowercasing).
func worklogOutcome(result string) string {
	r := strings.TrimSpace(result)
	if len(r) > 3*len("in_progress") {
		return ""
	}
	if !isASCII(r) {
		if r = strings.ToLower(r); !isASCII(r) {
			return "" // the statuses are ASCII
		}
	}
	for _, s := range TaskStatuses {
		if strings.EqualFold(r, s) {
			return s
		}
	}
	return ""
}

// isASCII reports whether s has only bytes below utf8.RuneSelf.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// missingCodeNext names what a blocked or failed entry lacks: "code",
// "next_step" or "code and next_step"; "" when both are non-empty.
func missingCodeNext(code, next string) string {
	switch noCode, noNext := code == "", strings.TrimSpace(next) == ""; {
	case noCode && noNext:
		return "code and next_step"
	case noCode:
		return "code"
	case noNext:
		return "next_step"
	}
	return ""
}

// checkBlockedEntry is OP081.
func checkBlockedEntry(d *Doc, r *Reporter) {
	result, _ := d.DocStr("/result")
	out := worklogOutcome(result)
	if out != "blocked" && out != "failed" {
		return
	}
	code, _ := d.DocStr("/code")
	next, _ := d.DocStr("/next_step")
	if miss := missingCodeNext(code, next); miss != "" {
		r.Reportf(Ptr("result"), map[string]any{"missing": miss},
			"result is %q but the entry has no %s (a blocked or failed outcome carries one of the fourteen codes and the next step)", out, miss)
	}
}

// The values OP082 reads from each entry.
var (
	worklogFields  FieldList
	worklogResult  = worklogFields.String("/result")
	worklogCode    = worklogFields.String("/code")
	worklogNext    = worklogFields.String("/next_step")
	worklogFinalCk = &FileCheck[worklogFinalState]{Reads: worklogFields.Fields(), Observe: (*worklogFinalState).observe, Finish: (*worklogFinalState).finish}
)

// worklogFinalState is OP082's state for one worklog.
type worklogFinalState struct {
	outcome     string // the last outcome of a valid entry
	outcomeLine int
	closed      bool   // an entry from the outcome on carries code and next_step
	lastLine    int    // the last entry, valid or not
	lastMissing string // what it lacks (missingCodeNext)
}

// observe notes an entry. The texts point into the engine's buffer (Value.Text):
// missingCodeNext and worklogOutcome keep none of them.
func (s *worklogFinalState) observe(rec *StreamRecord, _ *StreamReporter) {
	s.lastLine = rec.Line
	s.lastMissing = missingCodeNext(rec.Get(worklogCode).Text(), rec.Get(worklogNext).Text())
	if rec.Valid {
		if out := worklogOutcome(rec.Get(worklogResult).Text()); out != "" {
			s.outcome, s.outcomeLine, s.closed = out, rec.Line, false
		}
	}
	if s.lastMissing == "" {
		s.closed = true
	}
}

// finish reports a final outcome left unclosed.
func (s *worklogFinalState) finish(r *StreamReporter) {
	if (s.outcome != "blocked" && s.outcome != "failed") || s.lastLine == s.outcomeLine || s.closed {
		return
	}
	r.Report(StreamFinding{
		Line: s.lastLine,
		Reason: "the worklog's last outcome is " + s.outcome + " (line " + strconv.Itoa(s.outcomeLine) + ") but its final entry has no " +
			s.lastMissing + " (a blocked or failed outcome appends a final entry with code and next_step)",
		Extra: map[string]any{"outcome_line": s.outcomeLine, "outcome": s.outcome, "missing": s.lastMissing},
	})
}

// worklogStreamRules defines the rules of this file (group OP, loaded on first use: see groups).
func worklogStreamRules() {
	entry := func(minute, result, extra string) string {
		return `{"timestamp":"2026-02-14T19:` + minute + `:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"test",` +
			`"files_touched":["tests/test_api.py"],"decision":"run pytest","result":"` + result + `","next_step":"wait for the handler fix"` + extra + `}`
	}
	code := `,"code":"DEPENDENCY_NOT_MET"`
	wl := []string{"operator/worklog"}
	register(
		&Rule{
			ID: "OP081", Name: "blocked-entry-code", Code: envelope.NonCompliant, Severity: envelope.SeverityError, Kinds: wl,
			Summary:     "a worklog entry whose result is blocked or failed carries a non-empty code and next_step",
			Source:      "seed 001 Artifact: Worklog Entry (code: error code for blocked/failed step); README, Codes and precedence, NON_COMPLIANT",
			ExampleKind: "operator/worklog",
			examples:    func() (string, string) { return entry("05", "blocked", ""), entry("05", "blocked", code) },
			Check:       checkBlockedEntry,
			Fields:      []string{"/result", "/code", "/next_step"},
			InPlace:     true,
		},
		&Rule{
			ID: "OP082", Name: "blocked-final-entry", Code: envelope.NonCompliant, Severity: envelope.SeverityError, Kinds: wl,
			Scope:   ScopeFile,
			Summary: "a worklog whose last outcome (a result that is a task status) is blocked or failed has an entry carrying code and next_step from that outcome on (the outcome's own or a later one); more work may follow it",
			Source:  "seed 001 Artifact: Worklog Entry (blocked/failed outcomes MUST append a final entry with code and next_step)",
			// A blocked entry without its code, then more work: nothing
			// says why the task stopped; the fix appends an entry with
			// code and next_step (work may go on after it).
			ExampleKind: "operator/worklog",
			examples: func() (string, string) {
				return entry("05", "blocked", "") + "\n" + entry("10", "still waiting", ""), entry("05", "blocked", "") + "\n" + entry("10", "still waiting", code) + "\n" + entry("11", "added 6 tests", "")
			},
		},
	)
	registerStream("OP082", worklogFinalCk)
}
