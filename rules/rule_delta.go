package rules

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Ledger delta rules of an orchestrator output (seed 001 "Ledger Delta
// Application Semantics"; cue/README.md, operator, task state
// machine and "ledger_delta"). Transition and IsTerminal are the state
// machine, shared with the replayer (lint/replay/README.md).

// TaskStatuses are the six task statuses (seed 001 "Envelope: Orchestrator
// Output", status; cue/operator.cue #Status constrains them), in the
// seed's order.
var TaskStatuses = [...]string{"todo", "in_progress", "blocked", "done", "failed", "canceled"}

// opNext lists, for each non-terminal status, the statuses it may change to
// (cue/README.md, operator, "Task state machine").
var opNext = map[string][]string{
	"todo":        {"in_progress", "blocked", "failed", "canceled"},
	"in_progress": {"done", "blocked", "failed", "canceled"},
	"blocked":     {"todo", "in_progress", "failed", "canceled"},
}

// IsTerminal reports whether status is a terminal task state: done, failed
// or canceled.
func IsTerminal(status string) bool {
	return status == "done" || status == "failed" || status == "canceled"
}

// opKnownStatus reports whether s is one of the six task states.
func opKnownStatus(s string) bool {
	_, ok := opNext[s]
	return ok || IsTerminal(s)
}

// Transition reports whether a task may go from status from to status to
// (cue/README.md, operator): todo→in_progress|blocked|failed|canceled,
// in_progress→done|blocked|failed|canceled,
// blocked→todo|in_progress|failed|canceled; keeping the same status is
// always allowed (a non-terminal refresh is not a transition, a terminal
// state may only go to itself). The rule that a terminal task's owner must
// not change is the caller's: Transition sees statuses only. Unknown
// statuses never transition.
func Transition(from, to string) bool {
	if !opKnownStatus(from) || !opKnownStatus(to) {
		return false
	}
	if from == to {
		return true
	}
	for _, s := range opNext[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Step is the task state machine's verdict on one delta applied to a task
// whose current status and owner are known (cue/README.md, operator,
// "Task state machine").
type Step int

// The verdicts of CheckStep.
const (
	// StepAllowed: an edge of the machine, a non-terminal refresh (same
	// non-terminal status) or a terminal self-loop that keeps the owner.
	StepAllowed Step = iota
	// StepForbidden: from → to is not an edge of the machine (this includes
	// leaving a terminal state, e.g. reopening a canceled task).
	StepForbidden
	// StepTerminalOwnerChange: a terminal self-loop that changes the owner.
	StepTerminalOwnerChange
)

// CheckStep applies the task state machine to a task that is fromStatus
// owned by fromOwner and a delta that sets toStatus and toOwner. It is the
// check of OP070 (consecutive deltas inside one orchestrator output) and of
// the replayer (each applied delta against the replayed ledger). The other
// conditions of entering in_progress (an owner, every dependency done) are
// the caller's.
func CheckStep(fromStatus, fromOwner, toStatus, toOwner string) Step {
	if !Transition(fromStatus, toStatus) {
		return StepForbidden
	}
	if IsTerminal(fromStatus) && fromOwner != toOwner {
		return StepTerminalOwnerChange
	}
	return StepAllowed
}

// opDelta is one ledger_delta entry.
type opDelta struct {
	index   int
	taskID  string
	status  string
	owner   string
	deltaID string
	value   map[string]any
}

func opDeltas(d *Doc) []opDelta {
	var out []opDelta
	for i, v := range Arr(d.Root(), "ledger_delta") {
		m := Obj(v)
		out = append(out, opDelta{index: i, taskID: Str(m, "task_id"), status: Str(m, "status"),
			owner: Str(m, "owner"), deltaID: Str(m, "delta_id"), value: m})
	}
	return out
}

// illTyped reports whether m has member key with a value that is not a
// string.
func illTyped(m map[string]any, key string) bool {
	v, present := m[key]
	_, isStr := v.(string)
	return present && !isStr
}

func checkDeltaTransition(d *Doc, r *Reporter) {
	seen := map[string]bool{}        // delta_ids applied so far
	last := map[string]*opDelta{}    // last applied delta per task_id
	for _, dl := range opDeltas(d) { // document order
		if seen[dl.deltaID] {
			// D2: a repeated delta_id is skipped by a replay (OP071/OP072 report it).
			continue
		}
		seen[dl.deltaID] = true
		prev := last[dl.taskID]
		last[dl.taskID] = &dl
		if prev == nil || illTyped(prev.value, "status") || illTyped(dl.value, "status") {
			continue // an ill-typed status is the schema's finding
		}
		extra := map[string]any{"task_id": dl.taskID, "from": prev.status, "to": dl.status, "previous_index": prev.index, "index": dl.index}
		switch CheckStep(prev.status, prev.owner, dl.status, dl.owner) {
		case StepForbidden:
			r.Reportf(Ptr("ledger_delta", dl.index, "status"), extra,
				"ledger_delta[%d] moves task %s from %s (ledger_delta[%d]) to %s, which the task state machine forbids",
				dl.index, dl.taskID, prev.status, prev.index, dl.status)
		case StepTerminalOwnerChange:
			extra["from_owner"], extra["to_owner"] = prev.owner, dl.owner
			r.Reportf(Ptr("ledger_delta", dl.index, "owner"), extra,
				"ledger_delta[%d] changes the owner of task %s from %q to %q although the task is %s (ledger_delta[%d]): a terminal task's owner must not change",
				dl.index, dl.taskID, prev.owner, dl.owner, prev.status, prev.index)
		}
	}
}

// opDeltaRepeats calls fn for every delta whose delta_id appeared earlier in
// the output, with the first delta of that id and the fields (sorted) whose
// decoded values differ; none means the content is identical.
func opDeltaRepeats(d *Doc, fn func(first, dl *opDelta, fields []string)) {
	deltas := opDeltas(d)
	first := map[string]int{}
	for i := range deltas {
		dl := &deltas[i]
		j, ok := first[dl.deltaID]
		if !ok {
			first[dl.deltaID] = i
			continue
		}
		f := &deltas[j]
		keys := map[string]bool{}
		for k := range f.value {
			keys[k] = true
		}
		for k := range dl.value {
			keys[k] = true
		}
		var fields []string
		for k := range keys {
			a, inA := f.value[k]
			b, inB := dl.value[k]
			if inA != inB || !reflect.DeepEqual(a, b) {
				fields = append(fields, k)
			}
		}
		sort.Strings(fields)
		fn(f, dl, fields)
	}
}

func checkDeltaIDRepeat(d *Doc, r *Reporter) {
	opDeltaRepeats(d, func(first, dl *opDelta, fields []string) {
		if len(fields) > 0 {
			return
		}
		r.Reportf(Ptr("ledger_delta", dl.index, "delta_id"), map[string]any{"delta_id": dl.deltaID, "index": dl.index, "first_index": first.index,
			FirstPointer: Ptr("ledger_delta", first.index, "delta_id")},
			"ledger_delta[%d] repeats delta_id %q of ledger_delta[%d] with identical content; a replay skips it (D2)", dl.index, dl.deltaID, first.index)
	})
}

func checkDeltaIDConflict(d *Doc, r *Reporter) {
	opDeltaRepeats(d, func(first, dl *opDelta, fields []string) {
		if len(fields) == 0 {
			return
		}
		r.Reportf(Ptr("ledger_delta", dl.index, "delta_id"), map[string]any{"delta_id": dl.deltaID, "index": dl.index, "first_index": first.index, "fields": fields,
			FirstPointer: Ptr("ledger_delta", first.index, "delta_id")},
			"ledger_delta[%d] reuses delta_id %q of ledger_delta[%d] with different content (%s)", dl.index, dl.deltaID, first.index, strings.Join(fields, ", "))
	})
}

// opOutputExample is a minimal orchestrator output with the given
// ledger_delta entries.
func opOutputExample(deltas ...string) string {
	return `{
  "schema_version": "1.0.0",
  "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
  "ledger_delta": [
    ` + strings.Join(deltas, ",\n    ") + `
  ],
  "assignments": [],
  "active_locks": [],
  "blockers": [],
  "next_actions": []
}`
}

// opDeltaExample is one ledger_delta entry of task T-12.
func opDeltaExample(id, status, owner, reason string) string {
	return fmt.Sprintf(`{"task_id": "T-12", "status": %q, "owner": %q, "reason": %q, "delta_id": %q}`, status, owner, reason, id)
}

// deltaRules defines the rules of this file (group OP, loaded on first use: see groups).
func deltaRules() {
	start := opDeltaExample("d-1", "in_progress", "agent-1", "assigned")
	out := []string{"operator/orchestrator-output"}
	register(
		&Rule{
			ID: "OP070", Name: "delta-transition", Code: envelope.InvalidTransition, Severity: envelope.SeverityError,
			Kinds:       out,
			Summary:     "consecutive ledger_delta entries of one task break the task state machine (or change a terminal task's owner)",
			Source:      `cue/README.md, operator, "Task state machine" (consecutive deltas of one task must follow it)`,
			ExampleKind: "operator/orchestrator-output",
			examples: func() (string, string) {
				return opOutputExample(start, opDeltaExample("d-2", "todo", "agent-1", "requeued")), opOutputExample(start, opDeltaExample("d-2", "blocked", "agent-1", "requeued"))
			},
			Check: checkDeltaTransition,
		},
		&Rule{
			ID: "OP071", Name: "delta-id-repeat", Code: envelope.ConcurrencyConflict, Severity: envelope.SeverityWarning,
			Kinds:       out,
			Summary:     "a delta_id is repeated with identical content inside one output (skipped on replay, D2)",
			Source:      `seed 001 "Ledger Delta Application Semantics" D2; cue/README.md, operator, "ledger_delta"`,
			ExampleKind: "operator/orchestrator-output",
			examples:    func() (string, string) { return opOutputExample(start, start), opOutputExample(start) },
			Check:       checkDeltaIDRepeat,
		},
		&Rule{
			ID: "OP072", Name: "delta-id-conflict", Code: envelope.ConcurrencyConflict, Severity: envelope.SeverityError,
			Kinds:       out,
			Summary:     "a delta_id is reused with different content inside one output",
			Source:      `seed 001 "Ledger Delta Application Semantics" (delta_id unique within run); cue/README.md, operator, "ledger_delta"`,
			ExampleKind: "operator/orchestrator-output",
			examples: func() (string, string) {
				return opOutputExample(start, opDeltaExample("d-1", "done", "agent-1", "tests pass")), opOutputExample(start, opDeltaExample("d-2", "done", "agent-1", "tests pass"))
			},
			Check: checkDeltaIDConflict,
		},
	)
}
