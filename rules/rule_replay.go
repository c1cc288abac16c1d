package rules

import (
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Rules of the ledger-delta replayer (`agentlint replay`, package
// lint/replay; lint/replay/README.md, seed 001 "Ledger Delta Application
// Semantics"). They are not document rules (Check is nil): the replayer
// reports them while it applies streams of deltas to a ledger. Besides
// these, a replay reports the reconciliation rules OP050-OP054 and the
// watchdog rules OP060-OP061 on the resulting ledger.

// ReplayKind is the Kinds entry and ExampleKind of the replayer's rules: they
// apply to a replay, not to one document. Their Example and Fixed are txtar
// archives (golang.org/x/tools/txtar format) of the replay's inputs: the
// file named base.* is BASE (--ledger), the others are the streams in
// archive order; Options are extra command-line flags. lint/replay's tests
// replay every example.
const ReplayKind = "replay"

// ReplayExample returns a txtar archive of files given as name, content
// pairs.
func ReplayExample(nameContent ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(nameContent); i += 2 {
		b.WriteString("-- " + nameContent[i] + " --\n")
		b.WriteString(strings.TrimSuffix(nameContent[i+1], "\n") + "\n")
	}
	return b.String()
}

// replayRules defines the rules of this file (group RP, loaded on first use: see groups).
func replayRules() {
	const (
		base = `[
  {"task_id": "T-1", "status": "done", "owner": "agent-1"},
  {"task_id": "T-2", "status": "todo", "owner": "", "dependencies": ["T-1"]}
]`
		start   = `{"task_id": "T-2", "status": "in_progress", "owner": "agent-2", "reason": "assigned", "delta_id": "d-1"}`
		src     = `lint/replay/README.md; seed 001 "Ledger Delta Application Semantics"`
		machine = `cue/README.md, operator, "Task state machine"; lint/replay/README.md ("Every applied delta is checked against the task state machine")`
	)
	ex := func(stream string) string { return ReplayExample("base.json", base, "stream.jsonl", stream) }
	kinds := []string{ReplayKind}
	register(
		&Rule{
			ID: "RP001", Name: "delta-unknown-task", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta names a task absent from the ledger and is not create-intent (status todo): rejected (D4)",
			Source:      src + " D4",
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ex(`{"task_id": "T-3", "status": "in_progress", "owner": "agent-3", "reason": "assigned", "delta_id": "d-1"}`), ex(`{"task_id": "T-3", "status": "todo", "owner": "", "reason": "created", "delta_id": "d-1"}`)
			},
		},
		&Rule{
			ID: "RP002", Name: "delta-id-reused", Code: envelope.ConcurrencyConflict, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta_id comes back with different content (D2): earlier in its stream or recorded as applied in BASE (the delta is rejected), or in another stream",
			Source:      src + " D2; README, Codes and precedence, CONCURRENCY_CONFLICT (one delta_id reused with different content)",
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ex(start + "\n" + strings.Replace(start, `"assigned"`, `"reassigned"`, 1)), ex(start + "\n" + start)
			},
		},
		&Rule{
			ID: "RP003", Name: "replay-invalid-transition", Code: envelope.InvalidTransition, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta moves a task to a status the task state machine forbids from its replayed status (terminal tasks, e.g. canceled, are never reopened): rejected",
			Source:      machine,
			ExampleKind: ReplayKind,
			examples:    func() (string, string) { return ex(strings.Replace(start, `"in_progress"`, `"done"`, 1)), ex(start) },
		},
		&Rule{
			ID: "RP004", Name: "replay-terminal-owner-change", Code: envelope.InvalidTransition, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta keeps a terminal task terminal but changes its owner: rejected",
			Source:      machine + ` ("terminal states only to themselves, and then owner must not change")`,
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ex(`{"task_id": "T-1", "status": "done", "owner": "agent-9", "reason": "reviewed", "delta_id": "d-1"}`), ex(`{"task_id": "T-1", "status": "done", "owner": "agent-1", "reason": "reviewed", "delta_id": "d-1"}`)
			},
		},
		&Rule{
			ID: "RP005", Name: "replay-start-without-owner", Code: envelope.InvalidTransition, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta moves a task into in_progress with a blank owner: rejected",
			Source:      machine + ` ("Entering in_progress needs ... an owner")`,
			ExampleKind: ReplayKind,
			examples:    func() (string, string) { return ex(strings.Replace(start, `"agent-2"`, `" "`, 1)), ex(start) },
		},
		&Rule{
			ID: "RP006", Name: "replay-dependency-not-met", Code: envelope.DependencyNotMet, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a delta moves a task into in_progress while one of its dependencies is not done in the replayed ledger: rejected",
			Source:      machine + ` ("Entering in_progress needs every dependency done"); README, Codes and precedence, DEPENDENCY_NOT_MET`,
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ReplayExample("base.json", strings.Replace(base, `"status": "done"`, `"status": "in_progress"`, 1),
						"stream.jsonl", start), ReplayExample("base.json", strings.Replace(base, `"status": "done"`, `"status": "in_progress"`, 1),
						"stream.jsonl", `{"task_id": "T-1", "status": "done", "owner": "agent-1", "reason": "tests pass", "delta_id": "d-0"}`+"\n"+start)
			},
		},
		&Rule{
			ID: "RP007", Name: "concurrent-streams-conflict", Code: envelope.ConcurrencyConflict, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "two concurrent streams, each applied to BASE alone, leave a task field they both write with different values; no merged ledger (D5)",
			Source:      src + " D5",
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ReplayExample("base.json", base, "stream-a.jsonl", start,
						"stream-b.jsonl", `{"task_id": "T-2", "status": "blocked", "owner": "", "reason": "waiting for review", "delta_id": "b-1"}`), ReplayExample("base.json", base, "stream-a.jsonl", start,
						"stream-b.jsonl", `{"task_id": "T-1", "status": "done", "owner": "agent-1", "reason": "reviewed", "delta_id": "b-1"}`)
			},
		},
		&Rule{
			ID: "RP008", Name: "applied-deltas-record", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "BASE's x_agentlint_applied_deltas (written by --emit-ledger) is not an object of delta_id to a 32-hex-digit digest",
			Source:      `agentlint's emitted ledger format (lint/replay, Result.WriteLedger); seed 001 "Extension Policy" (x_ fields)`,
			ExampleKind: ReplayKind,
			examples: func() (string, string) {
				return ReplayExample("base.json", `{"ledger": [{"task_id": "T-1", "status": "todo", "owner": ""}], "active_locks": [],
 "x_agentlint_applied_deltas": {"d-1": "done"}}`), ReplayExample("base.json", `{"ledger": [{"task_id": "T-1", "status": "todo", "owner": ""}], "active_locks": [],
 "x_agentlint_applied_deltas": {"d-1": "0123456789abcdef0123456789abcdef"}}`)
			},
		},
	)
}
