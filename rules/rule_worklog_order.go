package rules

import (
	"strconv"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Ordering of append-only logs (CONTRACT.md section 3: records that disagree
// with each other are LEDGER_INCONSISTENT; the ordering of an append-only log
// is a warning). Seed 001 "Artifact: Worklog Entry": a worklog is appended to
// as the task goes on, so its timestamps never go backwards.

// worklogOrder is the stream check of OP080: each accepted entry's timestamp
// must not be earlier than the previous accepted entry's.
type worklogOrder struct{}

func (worklogOrder) Fields() []Field { return []Field{{Pointer: "/timestamp", Type: FieldTime}} }

func (worklogOrder) NewFile(string, *Options) FileState { return &worklogOrderState{} }

type worklogOrderState struct {
	prevLine int // 0 before the first timestamp
	prev     int64
	prevText string
}

// Observe compares rec's timestamp with the previous entry's. An invalid
// entry (its own envelope says why) is not compared and does not become the
// previous one.
func (s *worklogOrderState) Observe(rec *StreamRecord, r *StreamReporter) {
	v := &rec.Values[0]
	if !rec.Valid || v.Kind != ValueTime {
		return
	}
	if s.prevLine > 0 && v.Time < s.prev {
		r.Report(StreamFinding{
			Line: rec.Line, Column: v.Column, Pointer: "/timestamp",
			Reason: "timestamp " + string(v.Str) + " is earlier than " + s.prevText + " on line " + strconv.Itoa(s.prevLine) +
				" (a worklog is append-only: entries are in time order)",
			Extra: map[string]any{"previous_line": s.prevLine},
		})
	}
	s.prevLine, s.prev = rec.Line, v.Time
	s.prevText = string(v.Str)
}

func (s *worklogOrderState) Finish(*StreamReporter) {}

func init() {
	Register(&Rule{
		ID: "OP080", Name: "worklog-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning,
		Kinds:       []string{"operator/worklog"},
		Summary:     "a worklog entry's timestamp is earlier than the previous entry's (worklogs are append-only, in time order)",
		Source:      "seed 001 Artifact: Worklog Entry; CONTRACT.md section 3, LEDGER_INCONSISTENT",
		ExampleKind: "operator/worklog",
		Example: `{"timestamp":"2026-02-14T19:05:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":["tests/test_api.py"],"decision":"add POST cases","result":"added 3 tests","next_step":"run pytest"}
{"timestamp":"2026-02-14T19:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"claim","files_touched":[],"decision":"take T-12","result":"lock granted","next_step":"read the tests"}`,
		Fixed: `{"timestamp":"2026-02-14T19:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"claim","files_touched":[],"decision":"take T-12","result":"lock granted","next_step":"read the tests"}
{"timestamp":"2026-02-14T19:05:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":["tests/test_api.py"],"decision":"add POST cases","result":"added 3 tests","next_step":"run pytest"}`,
	})
	RegisterStream("OP080", worklogOrder{})
}
