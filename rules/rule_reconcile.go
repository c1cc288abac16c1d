package rules

import (
	"fmt"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Ledger reconciliation rules (seed 001 "Ledger Delta Application
// Semantics", reconciliation requirement; cue/README.md, operator,
// "handoff" and "Task state machine"; README, Codes and precedence,
// LEDGER_INCONSISTENT and DEPENDENCY_NOT_MET). They run on operator/reconcile (the input of the
// reference reconciliation validator) and operator/handoff.

// opRow is one ledger row.
type opRow struct {
	index    int
	taskID   string
	status   string
	owner    string
	hasOwner bool
	deps     []string
	// badStatus: status is present but not a string (the schema's finding).
	badStatus bool
}

// opLedger is the ledger of a reconcile or handoff document: its rows in
// document order and the index of the first row of every task_id.
type opLedger struct {
	rows  []opRow
	first map[string]int
	// readable: the ledger is an array, so a task missing from it is
	// missing (an ill-typed ledger is the schema's finding, not every
	// reference's).
	readable bool
}

// opReadLedger reads the ledger of d once per ledger array: a later call
// on the same document and array returns the same reading (rules only read
// it).
func opReadLedger(d *Doc) *opLedger {
	if f := opFlatOf(d); f != nil {
		return &f.ledger
	}
	arr, isArr := d.Root()["ledger"].([]any)
	if d.ledger != nil && isArr && len(arr) > 0 && &arr[0] == d.ledgerOf && len(arr) == d.ledgerLen {
		return d.ledger
	}
	l := &opLedger{first: make(map[string]int, len(arr))}
	l.readable = isArr
	if isArr && len(arr) > 0 {
		d.ledger, d.ledgerOf, d.ledgerLen = l, &arr[0], len(arr)
	}
	for i, v := range arr {
		m := Obj(v)
		row := opRow{index: i, taskID: Str(m, "task_id"), status: Str(m, "status"), owner: Str(m, "owner")}
		_, row.hasOwner = m["owner"]
		if st, present := m["status"]; present {
			_, isStr := st.(string)
			row.badStatus = !isStr
		}
		if row.taskID == "" {
			l.readable = false // a row without a readable id: no task is known missing
		}
		for _, dep := range Arr(m, "dependencies") {
			s, _ := dep.(string)
			row.deps = append(row.deps, s)
		}
		l.rows = append(l.rows, row)
		if _, ok := l.first[row.taskID]; !ok {
			l.first[row.taskID] = i
		}
	}
	return l
}

// row returns the first row of taskID, or nil.
func (l *opLedger) row(taskID string) *opRow {
	i, ok := l.first[taskID]
	if !ok {
		return nil
	}
	return &l.rows[i]
}

// opDep is one dependency edge: task depends on dep, declared as element
// k of ledger[row].dependencies (row >= 0) or of the handoff's
// dependencies array (row < 0). Its pointer and text are built only for a
// finding (pointer and where).
type opDep struct {
	row, k    int
	task, dep string
}

// pointer returns the JSON Pointer of the edge's declaration.
func (e opDep) pointer() string {
	if e.row >= 0 {
		return Ptr("ledger", e.row, "dependencies", e.k)
	}
	return Ptr("dependencies", e.k)
}

// where names the edge's declaration for a message.
func (e opDep) where() string {
	if e.row >= 0 {
		return fmt.Sprintf("ledger[%d].dependencies[%d]", e.row, e.k)
	}
	return fmt.Sprintf("dependencies[%d]", e.k)
}

// opDeps returns every dependency edge of d in document order: per-row
// ledger[].dependencies, then (handoff) the dependencies array.
func opDeps(d *Doc, l *opLedger) []opDep {
	var out []opDep
	for _, row := range l.rows {
		for k, dep := range row.deps {
			out = append(out, opDep{row.index, k, row.taskID, dep})
		}
	}
	return append(out, opHandoffDeps(d)...)
}

// opHandoffDeps returns the edges of a handoff's dependencies array (row
// -1), none for another kind. Read once per record in place (opFlat),
// else from the decoded form.
func opHandoffDeps(d *Doc) []opDep {
	if d.Kind != "operator/handoff" {
		return nil
	}
	if f := opFlatOf(d); f != nil {
		return f.deps
	}
	var out []opDep
	for k, v := range Arr(d.Root(), "dependencies") {
		m := Obj(v)
		out = append(out, opDep{-1, k, Str(m, "task_id"), Str(m, "depends_on_task_id")})
	}
	return out
}

// opTaskRefs returns the task_id of every element of the array at key
// (open_blockers, acceptance_targets, events; "" for an element without
// one). Read in place (opFlat) or from the decoded form.
func opTaskRefs(d *Doc, key string) []string {
	if f := opFlatOf(d); f != nil {
		return f.refs[key]
	}
	arr := Arr(d.Root(), key)
	out := make([]string, len(arr))
	for k, v := range arr {
		out[k] = Str(Obj(v), "task_id")
	}
	return out
}

func checkDuplicateTaskID(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	for _, row := range l.rows {
		if first := l.first[row.taskID]; first != row.index {
			r.Reportf(Ptr("ledger", row.index, "task_id"), map[string]any{"task_id": row.taskID, "index": row.index, "first_index": first},
				"ledger[%d] repeats task_id %s of ledger[%d]: a ledger has one row per task", row.index, row.taskID, first)
		}
	}
}

func checkInProgressWithoutOwner(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	for _, row := range l.rows {
		if row.status != "in_progress" || strings.TrimSpace(row.owner) != "" {
			continue
		}
		ptr := Ptr("ledger", row.index)
		if row.hasOwner {
			ptr = Ptr("ledger", row.index, "owner")
		}
		r.Reportf(ptr, map[string]any{"task_id": row.taskID, "index": row.index},
			"ledger[%d] task %s is in_progress but has no owner", row.index, row.taskID)
	}
}

func checkUnknownDependency(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	unknown := func(ptr, where, field, taskID string, extra map[string]any) {
		if !l.readable || taskID == "" || l.row(taskID) != nil {
			return // an unreadable ledger or id is the schema's finding
		}
		if extra == nil {
			extra = map[string]any{}
		}
		extra[field] = taskID
		r.Reportf(ptr, extra, "%s names task %s, which is not in the ledger", where, taskID)
	}
	for _, row := range l.rows {
		for k, dep := range row.deps {
			unknown(Ptr("ledger", row.index, "dependencies", k), fmt.Sprintf("dependency of ledger[%d] task %s", row.index, row.taskID),
				"depends_on_task_id", dep, map[string]any{"task_id": row.taskID, "index": k})
		}
	}
	if d.Kind != "operator/handoff" {
		return
	}
	for _, e := range opHandoffDeps(d) {
		k := e.k
		unknown(Ptr("dependencies", k, "task_id"), fmt.Sprintf("dependencies[%d].task_id", k), "task_id", e.task, map[string]any{"index": k})
		unknown(Ptr("dependencies", k, "depends_on_task_id"), fmt.Sprintf("dependencies[%d].depends_on_task_id", k), "depends_on_task_id", e.dep, map[string]any{"index": k})
	}
	for _, key := range []string{"open_blockers", "acceptance_targets"} {
		for k, id := range opTaskRefs(d, key) {
			unknown(Ptr(key, k, "task_id"), fmt.Sprintf("%s[%d].task_id", key, k), "task_id", id, map[string]any{"index": k})
		}
	}
	for k, l := range opDocLocks(d, "active_locks") {
		unknown(Ptr("active_locks", k, "task_id"), fmt.Sprintf("active_locks[%d].task_id", k), "task_id", l.taskID, map[string]any{"index": k})
	}
}

func checkDependencyNotDone(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	for _, e := range opDeps(d, l) {
		t, dep := l.row(e.task), l.row(e.dep)
		if t == nil || dep == nil || t.badStatus || dep.badStatus || (t.status != "in_progress" && t.status != "done") || dep.status == "done" {
			continue
		}
		r.Reportf(e.pointer(), map[string]any{"task_id": e.task, "status": t.status, "depends_on_task_id": e.dep, "dependency_status": dep.status},
			"task %s is %s but its dependency %s is %s, not done (dependency declared at %s)", e.task, t.status, e.dep, dep.status, e.where())
	}
}

func checkTerminalTaskHoldsLock(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	locks := opDocLocks(d, "active_locks")
	for k := range locks {
		lk := &locks[k]
		if !lk.active {
			continue
		}
		row := l.row(lk.taskID)
		if row == nil || !IsTerminal(row.status) {
			continue
		}
		r.Reportf(Ptr("active_locks", k), map[string]any{"task_id": lk.taskID, "status": row.status, "resource": lk.raw, "index": k},
			"active_locks[%d]: task %s is %s but still holds an active lock on %q; release it", k, lk.taskID, row.status, lk.raw)
	}
}

func checkUnknownEventTask(d *Doc, r *Reporter) {
	l := opReadLedger(d)
	if !l.readable {
		return // the schema reports an ill-typed or absent ledger
	}
	for k, id := range opTaskRefs(d, "events") {
		if id != "" && l.row(id) == nil {
			r.Reportf(Ptr("events", k, "task_id"), map[string]any{"task_id": id, "index": k},
				"events[%d] names task %s, which is not in the ledger", k, id)
		}
	}
}

// opReconcileExample is the reference validator's 04-reconcile-valid input
// with the given ledger, active_locks and events.
func opReconcileExample(ledger, locks, events string) string {
	return `{
  "ledger": [
    ` + ledger + `
  ],
  "active_locks": [` + locks + `],
  "events": [
    ` + events + `
  ]
}`
}

// opLedgerFields are the values the reconcile rules read (Rule.Fields).
var opLedgerFields = []string{"/ledger", "/dependencies", "/open_blockers", "/acceptance_targets", "/active_locks", "/events"}

// reconcileRules defines the rules of this file (group OP, loaded on first use: see groups).
func reconcileRules() {
	const (
		t12Done = `{"task_id": "T-12", "status": "done", "owner": "agent-1", "dependencies": []}`
		t13Todo = `{"task_id": "T-13", "status": "todo", "owner": "", "dependencies": ["T-12"]}`
		evts    = `{"task_id": "T-12", "event_type": "state_transition"},
    {"task_id": "T-13", "event_type": "created"}`
		ledgerSep = `,
    `
	)
	valid := opReconcileExample(t12Done+ledgerSep+t13Todo, "", evts)
	kinds := []string{"operator/reconcile", "operator/handoff"}
	register(
		&Rule{
			ID: "OP050", Name: "duplicate-task-id", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "two ledger rows have the same task_id",
			Source:      "README, Codes and precedence, LEDGER_INCONSISTENT (duplicate ids)",
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return opReconcileExample(t12Done+ledgerSep+t13Todo+ledgerSep+`{"task_id": "T-12", "status": "todo", "owner": ""}`, "", evts), opReconcileExample(t12Done+ledgerSep+t13Todo+ledgerSep+`{"task_id": "T-14", "status": "todo", "owner": ""}`, "", evts)
			},
			Check:   inPlaceFirst(opReadsInPlace, checkDuplicateTaskID),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
		&Rule{
			ID: "OP051", Name: "in-progress-without-owner", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a ledger row is in_progress without an owner (absent or blank)",
			Source:      "cue/README.md, operator, \"Task state machine\" (\"Entering in_progress needs ... an owner\")",
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return strings.Replace(valid, `"status": "todo", "owner": ""`, `"status": "in_progress", "owner": " "`, 1), strings.Replace(valid, `"status": "todo", "owner": ""`, `"status": "in_progress", "owner": "agent-2"`, 1)
			},
			Check:   inPlaceFirst(opReadsInPlace, checkInProgressWithoutOwner),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
		&Rule{
			ID: "OP052", Name: "unknown-dependency", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a dependency (or, in a handoff, a dependencies/open_blockers/acceptance_targets/active_locks entry) names a task that is not in the ledger",
			Source:      `cue/README.md, operator, "handoff" (entries must name tasks of the ledger); README, Codes and precedence, LEDGER_INCONSISTENT (dangling references)`,
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return strings.Replace(valid, `"dependencies": ["T-12"]`, `"dependencies": ["T-12", "T-11"]`, 1), valid
			},
			Check:   inPlaceFirst(opReadsInPlace, checkUnknownDependency),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
		&Rule{
			ID: "OP053", Name: "dependency-not-done", Code: envelope.DependencyNotMet, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "a task that is in_progress or done depends on a task that is not done",
			Source:      "cue/README.md, operator, \"Task state machine\" (\"Entering in_progress needs every dependency done\"); README, Codes and precedence, DEPENDENCY_NOT_MET",
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return strings.Replace(strings.Replace(valid, `"status": "todo", "owner": ""`, `"status": "in_progress", "owner": "agent-2"`, 1),
					`"status": "done", "owner": "agent-1"`, `"status": "in_progress", "owner": "agent-1"`, 1), strings.Replace(valid, `"status": "todo", "owner": ""`, `"status": "in_progress", "owner": "agent-2"`, 1)
			},
			Check:   inPlaceFirst(opReadsInPlace, checkDependencyNotDone),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
		&Rule{
			ID: "OP054", Name: "terminal-task-holds-lock", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       kinds,
			Summary:     "an active lock belongs to a task that is done, failed or canceled",
			Source:      "README, Codes and precedence, LEDGER_INCONSISTENT (terminal task holding a lock)",
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return opReconcileExample(t12Done+ledgerSep+t13Todo, `{"task_id": "T-12", "resource": "tests/test_api.py", "active": true}`, evts), opReconcileExample(t12Done+ledgerSep+t13Todo, `{"task_id": "T-12", "resource": "tests/test_api.py", "active": false}`, evts)
			},
			Check:   inPlaceFirst(opReadsInPlace, checkTerminalTaskHoldsLock),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
		&Rule{
			ID: "OP055", Name: "unknown-event-task", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/reconcile"},
			Summary:     "an event names a task that is not in the ledger",
			Source:      "README, Codes and precedence, LEDGER_INCONSISTENT (dangling references)",
			ExampleKind: "operator/reconcile",
			examples: func() (string, string) {
				return strings.Replace(valid, `{"task_id": "T-13", "event_type": "created"}`, `{"task_id": "T-14", "event_type": "created"}`, 1), valid
			},
			Check:   inPlaceFirst(opReadsInPlace, checkUnknownEventTask),
			Fields:  opLedgerFields,
			InPlace: true, // opReadLedger, opHandoffDeps, opTaskRefs, opDocLocks
		},
	)
}
