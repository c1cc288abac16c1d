package rules

import "github.com/agentlint/agentlint/lint/envelope"

// Ordering of append-only logs (README, Codes and precedence: records that disagree
// with each other are LEDGER_INCONSISTENT; the ordering of an append-only log
// is a warning). Seed 001 "Artifact: Worklog Entry": a worklog is appended to
// as the task goes on, so its timestamps never go backwards: OP080 is the
// timeOrder check (stream_order.go) on /timestamp.

// worklogOrderRules defines the rules of this file (group OP, loaded on first use: see groups).
func worklogOrderRules() {
	register(&Rule{
		ID: "OP080", Name: "worklog-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning,
		Scope:       ScopeFile,
		Kinds:       []string{"operator/worklog"},
		Summary:     "a worklog entry's timestamp is earlier than the previous entry's (worklogs are append-only, in time order)",
		Source:      "seed 001 Artifact: Worklog Entry; README, Codes and precedence, LEDGER_INCONSISTENT",
		ExampleKind: "operator/worklog",
		Example: `{"timestamp":"2026-02-14T19:05:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":["tests/test_api.py"],"decision":"add POST cases","result":"added 3 tests","next_step":"run pytest"}
{"timestamp":"2026-02-14T19:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"claim","files_touched":[],"decision":"take T-12","result":"lock granted","next_step":"read the tests"}`,
		Fixed: `{"timestamp":"2026-02-14T19:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"claim","files_touched":[],"decision":"take T-12","result":"lock granted","next_step":"read the tests"}
{"timestamp":"2026-02-14T19:05:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":["tests/test_api.py"],"decision":"add POST cases","result":"added 3 tests","next_step":"run pytest"}`,
	})
	registerStream("OP080", timeOrder{Pointer: "/timestamp", Log: "a worklog"})
}
