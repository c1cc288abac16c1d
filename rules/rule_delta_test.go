package rules

import (
	"reflect"
	"testing"
)

func TestTransition(t *testing.T) {
	statuses := []string{"todo", "in_progress", "blocked", "done", "failed", "canceled"}
	allowed := map[string][]string{
		"todo":        {"todo", "in_progress", "blocked", "failed", "canceled"},
		"in_progress": {"in_progress", "done", "blocked", "failed", "canceled"},
		"blocked":     {"blocked", "todo", "in_progress", "failed", "canceled"},
		"done":        {"done"},
		"failed":      {"failed"},
		"canceled":    {"canceled"},
	}
	for _, from := range statuses {
		for _, to := range statuses {
			want := false
			for _, s := range allowed[from] {
				want = want || s == to
			}
			if got := Transition(from, to); got != want {
				t.Errorf("Transition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	if Transition("todo", "started") || Transition("started", "started") {
		t.Error("unknown statuses must not transition")
	}
	for _, s := range statuses {
		if IsTerminal(s) != (s == "done" || s == "failed" || s == "canceled") {
			t.Errorf("IsTerminal(%s) wrong", s)
		}
	}
}

func TestDeltaRules(t *testing.T) {
	dl := func(id, task, status, owner string) string {
		return `{"task_id": "` + task + `", "status": "` + status + `", "owner": "` + owner + `", "reason": "r", "delta_id": "` + id + `"}`
	}
	out := opOutputExample
	opRunCases(t, []opCase{
		// OP070 delta-transition
		{name: "OP070 in_progress to todo", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-2", "T-1", "todo", "a")), want: []string{"OP070 /ledger_delta/1/status"}},
		{name: "OP070 done reopened", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "done", "a"), dl("d-2", "T-2", "todo", "b"), dl("d-3", "T-1", "in_progress", "a")), want: []string{"OP070 /ledger_delta/2/status"}},
		{name: "OP070 terminal owner change", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "failed", "a"), dl("d-2", "T-1", "failed", "b")), want: []string{"OP070 /ledger_delta/1/owner"}},
		{name: "OP070 near miss: terminal refresh keeps owner", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "done", "a"), dl("d-2", "T-1", "done", "a"))},
		{name: "OP070 near miss: heartbeat refresh and owner change on todo", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "todo", "a"), dl("d-2", "T-1", "todo", "b"), dl("d-3", "T-1", "in_progress", "b"), dl("d-4", "T-1", "in_progress", "b"))},
		{name: "OP070 near miss: interleaved tasks", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-2", "T-2", "done", "b"), dl("d-3", "T-1", "done", "a"))},
		{name: "OP070 near miss: repeated delta is skipped (D2)", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-2", "T-1", "done", "a"), dl("d-1", "T-1", "in_progress", "a")), want: []string{"OP071 /ledger_delta/2/delta_id"}},

		// OP071 delta-id-repeat, OP072 delta-id-conflict
		{name: "OP071 identical repeat", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-1", "T-1", "in_progress", "a")), want: []string{"OP071 /ledger_delta/1/delta_id"}},
		{name: "OP071 member order does not matter", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), `{"delta_id": "d-1", "reason": "r", "owner": "a", "status": "in_progress", "task_id": "T-1"}`), want: []string{"OP071 /ledger_delta/1/delta_id"}},
		{name: "OP072 different content", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-1", "T-1", "done", "a")), want: []string{"OP072 /ledger_delta/1/delta_id"}},
		{name: "OP072 extra field", kind: "operator/orchestrator-output",
			js:   out(dl("d-1", "T-1", "in_progress", "a"), `{"task_id": "T-1", "status": "in_progress", "owner": "a", "reason": "r", "delta_id": "d-1", "timed_out": false}`),
			want: []string{"OP072 /ledger_delta/1/delta_id"}},
		{name: "OP071 near miss: distinct ids", kind: "operator/orchestrator-output",
			js: out(dl("d-1", "T-1", "in_progress", "a"), dl("d-10", "T-2", "in_progress", "a"))},
		{name: "OP071 and OP072 on a third copy", kind: "operator/orchestrator-output",
			js:   out(dl("d-1", "T-1", "in_progress", "a"), dl("d-1", "T-1", "in_progress", "a"), dl("d-1", "T-1", "blocked", "a")),
			want: []string{"OP071 /ledger_delta/1/delta_id", "OP072 /ledger_delta/2/delta_id"}},
	})
}

func TestDeltaConflictDetails(t *testing.T) {
	js := opOutputExample(opDeltaExample("d-1", "in_progress", "a", "x"), opDeltaExample("d-1", "done", "b", "x"))
	fs := opRun(t, "operator/orchestrator-output", js, "", 0)
	if len(fs) != 1 {
		t.Fatalf("findings = %v", fs)
	}
	if got := fs[0].Extra["fields"]; !reflect.DeepEqual(got, []string{"owner", "status"}) || fs[0].Extra["first_index"] != 0 {
		t.Errorf("details = %#v", fs[0].Extra)
	}
}
