package rules

import "github.com/agentlint/agentlint/lint/envelope"

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

func init() {
	Register(&Rule{
		ID: "AL020", Name: "append-only", Code: envelope.NonCompliant, Severity: envelope.SeverityError,
		Kinds: AppendOnlyKinds,
		Summary: "with --base REV, a JSON Lines log that existed at REV no longer starts with the bytes it had there (as committed or as checked out): " +
			"a line was edited or removed, a line ending changed, or the file was truncated; only appending is allowed",
		Source: "CONTRACT.md section 3 NON_COMPLIANT and section 6 --base; issue 4, Across files of one tree, Append-only; seed 001 Worklog Contract",
		// No Example/Fixed: the rule compares a file with its version in git
		// (lint/gitbase), which a single document cannot show;
		// lint/gitbase's tests build the failing and passing repositories.
	})
}
