package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/repotest"
)

// opRecon is a reconcile payload.
func opRecon(ledger, locks, events string) string {
	return `{"ledger": [` + ledger + `], "active_locks": [` + locks + `], "events": [` + events + `]}`
}

// opHandoffTemplate is conformance/operator-peer/handoff-template.json.
const opHandoffTemplate = `{
  "schema_version": "1.0.0",
  "run_id": "00000000-0000-0000-0000-000000000000",
  "generated_at": "2026-01-01T00:00:00Z",
  "objective": "<global objective>",
  "constraints": {"time_budget": "<optional>", "quality_bar": "<required quality expectations>", "tool_limits": "<optional>"},
  "ledger": [
    {"task_id": "T-1", "title": "<task title>", "status": "todo", "owner": "", "dependencies": [], "lock_scope": ["<resource>"],
     "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal", "last_heartbeat_at": null}
  ],
  "active_locks": [{"task_id": "T-1", "resource": "<resource>", "active": true}],
  "dependencies": [{"task_id": "T-2", "depends_on_task_id": "T-1"}],
  "open_blockers": [{"task_id": "T-2", "code": "DEPENDENCY_NOT_MET", "reason": "Waiting for T-1"}],
  "acceptance_targets": [{"task_id": "T-1", "criteria": ["<criterion>"]}]
}`

func TestReconcileRules(t *testing.T) {
	const (
		done12 = `{"task_id": "T-12", "status": "done", "owner": "agent-1", "dependencies": []}`
		todo13 = `{"task_id": "T-13", "status": "todo", "owner": "", "dependencies": ["T-12"]}`
		evts   = `{"task_id": "T-12", "event_type": "state_transition"}, {"task_id": "T-13", "event_type": "created"}`
	)
	row := func(id, status, owner, deps string) string {
		return `{"task_id": "` + id + `", "status": "` + status + `", "owner": "` + owner + `", "dependencies": ` + deps + `}`
	}
	// Handoff template with T-2 in the ledger, in the given status.
	withT2 := func(status string) string {
		return opRepl(t, opHandoffTemplate, `"last_heartbeat_at": null}`, `"last_heartbeat_at": null},
    {"task_id": "T-2", "title": "two", "status": "`+status+`", "owner": "agent-2", "lock_scope": ["docs"],
     "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal"}`)
	}
	opRunCases(t, []opCase{
		{name: "peer 04-reconcile-valid", kind: "operator/reconcile", js: opRecon(done12+","+todo13, "", evts)},

		// OP050 duplicate-task-id
		{name: "OP050 duplicate", kind: "operator/reconcile", js: opRecon(done12+","+todo13+","+row("T-12", "done", "agent-1", "[]"), "", evts),
			want: []string{"OP050 /ledger/2/task_id"}},
		{name: "OP050 near miss: distinct ids", kind: "operator/reconcile", js: opRecon(done12+","+todo13+","+row("T-120", "done", "agent-1", "[]"), "", evts)},

		// OP051 in-progress-without-owner
		{name: "OP051 blank owner", kind: "operator/reconcile", js: opRecon(done12+","+row("T-13", "in_progress", " ", `["T-12"]`), "", ""),
			want: []string{"OP051 /ledger/1/owner"}},
		{name: "OP051 absent owner", kind: "operator/reconcile", js: opRecon(done12+`,{"task_id": "T-13", "status": "in_progress"}`, "", ""),
			want: []string{"OP051 /ledger/1"}},
		{name: "OP051 near miss: todo without owner", kind: "operator/reconcile", js: opRecon(done12+","+todo13, "", "")},
		{name: "OP051 handoff", kind: "operator/handoff", js: opHandoff("in_progress", "", `["src"]`, ""), want: []string{"OP051 /ledger/1/owner"}},

		// OP052 unknown-dependency
		{name: "OP052 row dependency", kind: "operator/reconcile", js: opRecon(done12+","+row("T-13", "todo", "", `["T-11", "T-12"]`), "", ""),
			want: []string{"OP052 /ledger/1/dependencies/0"}},
		{name: "OP052 near miss: known dependency", kind: "operator/reconcile", js: opRecon(done12+","+todo13, "", "")},
		{name: "OP052 near miss: reconcile lock of unknown task", kind: "operator/reconcile",
			js: opRecon(done12+","+todo13, `{"task_id": "T-99", "resource": "x", "active": true}`, "")},
		{name: "OP052 handoff template names T-2", kind: "operator/handoff", js: opHandoffTemplate,
			want: []string{"OP052 /dependencies/0/task_id", "OP052 /open_blockers/0/task_id"}},
		{name: "OP052 handoff locks and targets", kind: "operator/handoff",
			js: opRepl(t, opRepl(t, opHandoffTemplate, `"active_locks": [{"task_id": "T-1"`, `"active_locks": [{"task_id": "T-3"`),
				`"acceptance_targets": [{"task_id": "T-1"`, `"acceptance_targets": [{"task_id": "T-4"`),
			want: []string{"OP052 /dependencies/0/task_id", "OP052 /open_blockers/0/task_id", "OP052 /acceptance_targets/0/task_id", "OP052 /active_locks/0/task_id"}},
		{name: "OP052 near miss: handoff with T-2", kind: "operator/handoff", js: withT2("todo")},

		// OP053 dependency-not-done
		{name: "OP053 in_progress on todo", kind: "operator/reconcile",
			js: opRecon(row("T-12", "todo", "", "[]")+","+row("T-13", "in_progress", "agent-2", `["T-12"]`), "", ""), want: []string{"OP053 /ledger/1/dependencies/0"}},
		{name: "OP053 done on failed", kind: "operator/reconcile",
			js: opRecon(row("T-12", "failed", "a", "[]")+","+row("T-13", "done", "agent-2", `["T-12"]`), "", ""), want: []string{"OP053 /ledger/1/dependencies/0"}},
		{name: "OP053 near miss: blocked may wait", kind: "operator/reconcile",
			js: opRecon(row("T-12", "in_progress", "a", "[]")+","+row("T-13", "blocked", "agent-2", `["T-12"]`), "", "")},
		{name: "OP053 handoff dependencies array", kind: "operator/handoff", js: withT2("in_progress"), want: []string{"OP053 /dependencies/0"}},
		{name: "OP053 near miss: handoff todo", kind: "operator/handoff", js: withT2("blocked")},

		// OP054 terminal-task-holds-lock
		{name: "OP054 done holds lock", kind: "operator/reconcile", js: opRecon(done12+","+todo13, `{"task_id": "T-12", "resource": "src", "active": true}`, ""),
			want: []string{"OP054 /active_locks/0"}},
		{name: "OP054 canceled holds lock", kind: "operator/reconcile",
			js:   opRecon(row("T-12", "canceled", "a", "[]"), `{"task_id": "T-12", "resource": "src", "active": false}, {"task_id": "T-12", "resource": "docs", "active": true}`, ""),
			want: []string{"OP054 /active_locks/1"}},
		{name: "OP054 near miss: released lock", kind: "operator/reconcile", js: opRecon(done12+","+todo13, `{"task_id": "T-12", "resource": "src", "active": false}`, "")},
		{name: "OP054 near miss: in_progress holds lock", kind: "operator/reconcile",
			js: opRecon(row("T-12", "in_progress", "a", "[]"), `{"task_id": "T-12", "resource": "src", "active": true}`, "")},

		// OP055 unknown-event-task
		{name: "OP055 unknown event task", kind: "operator/reconcile", js: opRecon(done12+","+todo13, "", evts+`, {"task_id": "T-14", "event_type": "created"}`),
			want: []string{"OP055 /events/2/task_id"}},
		{name: "OP055 near miss", kind: "operator/reconcile", js: opRecon(done12+","+todo13, "", evts)},
	})
}

// TestHandoffTemplateFile checks the reference validator's handoff template
// (its copy testdata/agreement/peer-handoff-template.json, kept equal by
// lint's TestHandoffTemplateCopy): it names T-2, which its ledger lacks.
func TestHandoffTemplateFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repotest.Root(t), "testdata", "agreement", "peer-handoff-template.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := opIDs(opRun(t, "operator/handoff", string(b), "", 0))
	want := []string{"OP052 /dependencies/0/task_id", "OP052 /open_blockers/0/task_id"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("findings = %q, want %q", got, want)
	}
}

// TestReconcileLedgerReadOnce: the reconcile rules share one reading of a
// document's ledger, and a document whose ledger array is replaced is read
// again (the memo is keyed by the array, not by the document).
func TestReconcileLedgerReadOnce(t *testing.T) {
	row := func(id, status, owner string) any {
		return map[string]any{"task_id": id, "status": status, "owner": owner}
	}
	d := &Doc{Kind: "operator/reconcile", Value: map[string]any{
		"ledger":       []any{row("T-1", "todo", ""), row("T-1", "todo", "")},
		"active_locks": []any{},
	}}
	first := opReadLedger(d)
	if again := opReadLedger(d); again != first {
		t.Error("a second reading of the same ledger array built a new opLedger")
	}
	dup := func() int {
		n := 0
		for _, f := range Run(d, nil) {
			if strings.Contains(f.Reason, "repeats task_id") {
				n++
			}
		}
		return n
	}
	if n := dup(); n != 1 {
		t.Fatalf("ledger with T-1 twice: %d duplicate-task findings, want 1", n)
	}
	d.Value = map[string]any{"ledger": []any{row("T-1", "todo", ""), row("T-2", "in_progress", "")}, "active_locks": []any{}}
	if n := dup(); n != 0 {
		t.Errorf("after the ledger was replaced: %d duplicate-task findings, want 0 (a stale reading was reused)", n)
	}
	found := false
	for _, f := range Run(d, nil) {
		found = found || strings.Contains(f.Reason, "in_progress but has no owner")
	}
	if !found {
		t.Error("the replaced ledger's in_progress task without owner is not reported")
	}
}
