package rules

import (
	"reflect"
	"testing"
)

// opHandoff is a handoff bundle with two ledger rows (T-1 todo, T-2 the
// given status and owner), the given lock_scope of T-1 and active locks.
func opHandoff(t2Status, t2Owner, t1Scope, locks string) string {
	return `{
  "schema_version": "1.0.0",
  "run_id": "00000000-0000-0000-0000-000000000000",
  "objective": "Ship it",
  "constraints": {},
  "ledger": [
    {"task_id": "T-1", "title": "one", "status": "todo", "owner": "", "dependencies": [], "lock_scope": ` + t1Scope + `,
     "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal", "last_heartbeat_at": null},
    {"task_id": "T-2", "title": "two", "status": "` + t2Status + `", "owner": "` + t2Owner + `", "lock_scope": ["docs"],
     "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal"}
  ],
  "active_locks": [` + locks + `],
  "dependencies": [],
  "open_blockers": [],
  "acceptance_targets": []
}`
}

func opLocksDoc(locks string) string { return `{"locks": [` + locks + `]}` }

func TestLockRules(t *testing.T) {
	a := minimalAssignment
	scope := func(s string) string { return opRepl(t, a, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": `+s) }
	forbidden := func(s string) string { return opRepl(t, a, `"forbidden_scope": ["src/"]`, `"forbidden_scope": `+s) }
	activeLocks := func(s string) string {
		return opRepl(t, a, `{"task_id": "T-9", "resource": "src/api.py", "active": true}`, s)
	}
	opRunCases(t, []opCase{
		// OP030 lock-resource-empty
		{name: "OP030 blank lock_scope entry", kind: "operator/assignment", js: scope(`["  "]`), want: []string{"OP030 /task/lock_scope/0"}},
		{name: "OP030 near miss: padded entry", kind: "operator/assignment", js: scope(`[" tests/test_api.py "]`)},
		{name: "OP030 empty forbidden_scope entry", kind: "operator/assignment", js: forbidden(`["src/", ""]`), want: []string{"OP030 /task/forbidden_scope/1"}},
		{name: "OP030 empty lock resource", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "\t", "active": false}`), want: []string{"OP030 /locks/0/resource"}},
		{name: "OP030 empty handoff lock_scope", kind: "operator/handoff", js: opHandoff("todo", "", `["src", ""]`, ""), want: []string{"OP030 /ledger/0/lock_scope/1"}},
		{name: "OP030 empty change resource", kind: "operator/result", js: opRepl(t, minimalResult, `"resource": "tests/test_api.py"`, `"resource": ""`), want: []string{"OP030 /changes/0/resource"}},
		{name: "OP030 near miss: dot is the whole tree, not empty", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "./", "active": true}`)},

		// OP031 resource-escapes-root
		{name: "OP031 lock_scope escapes", kind: "operator/assignment", js: scope(`["../tests/test_api.py"]`), want: []string{"OP031 /task/lock_scope/0"}},
		{name: "OP031 active lock escapes", kind: "operator/reconcile", js: `{"ledger": [], "active_locks": [{"task_id": "T-1", "resource": "a/../../b", "active": false}]}`, want: []string{"OP031 /active_locks/0/resource"}},
		{name: "OP031 near miss: dotdot resolved inside", kind: "operator/assignment", js: scope(`["tests/x/../test_api.py"]`)},
		{name: "OP031 near miss: absolute root cannot escape", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "/../etc", "active": true}`)},
		{name: "OP031 change escapes", kind: "operator/result", js: opRepl(t, minimalResult, `"resource": "tests/test_api.py"`, `"resource": "..\\secrets"`), want: []string{"OP031 /changes/0/resource"}},

		// OP032 lock-scope-overlap
		{name: "OP032 prefix overlap", kind: "operator/assignment", js: scope(`["tests", "tests/test_api.py"]`), want: []string{"OP032 /task/lock_scope/1"}},
		{name: "OP032 same after normalization", kind: "operator/assignment", js: scope(`["tests/test_api.py", "tests//test_api.py/"]`), want: []string{"OP032 /task/lock_scope/1"}},
		{name: "OP032 near miss: sibling prefix", kind: "operator/assignment", js: scope(`["tests/api", "tests/api2"]`)},
		{name: "OP032 handoff row", kind: "operator/handoff", js: opHandoff("todo", "", `["src", "src/a.go", "docs"]`, ""), want: []string{"OP032 /ledger/0/lock_scope/1"}},

		// OP033 forbidden-scope-overlap
		{name: "OP033 forbidden parent of lock", kind: "operator/assignment", js: forbidden(`["src/", "tests/"]`), want: []string{"OP033 /task/forbidden_scope/1"}},
		{name: "OP033 forbidden whole tree", kind: "operator/assignment", js: forbidden(`["."]`), want: []string{"OP033 /task/forbidden_scope/0"}},
		{name: "OP033 near miss: name prefix only", kind: "operator/assignment", js: forbidden(`["tests/test_api"]`)},
		{name: "OP033 near miss: absolute vs relative", kind: "operator/assignment", js: forbidden(`["/tests"]`)},

		// OP034 active-lock-conflict
		{name: "OP034 assignment vs other task's lock", kind: "operator/assignment",
			js: activeLocks(`{"task_id": "T-9", "resource": "tests", "active": true}`), want: []string{"OP034 /task/lock_scope/0"}},
		{name: "OP034 near miss: inactive lock", kind: "operator/assignment",
			js: activeLocks(`{"task_id": "T-9", "resource": "tests", "active": false}`)},
		{name: "OP034 near miss: own lock", kind: "operator/assignment",
			js: activeLocks(`{"task_id": "T-12", "resource": "tests", "active": true}`)},
		{name: "OP034 dotdot conflicts after normalization", kind: "operator/assignment",
			js:   opRepl(t, activeLocks(`{"task_id": "T-9", "resource": "secrets", "active": true}`), `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["src/../secrets"]`),
			want: []string{"OP034 /task/lock_scope/0"}},
		{name: "OP034 locks dotdot", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "src/../secrets", "active": true}, {"task_id": "T-2", "resource": "secrets", "active": true}`),
			want: []string{"OP034 /locks/1/resource"}},
		{name: "OP034 near miss: same task", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "src", "active": true}, {"task_id": "T-1", "resource": "src/a", "active": true}`)},
		{name: "OP034 near miss: relative vs absolute", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "/src", "active": true}, {"task_id": "T-2", "resource": "src", "active": true}`)},
		{name: "OP034 three locks", kind: "operator/locks", js: opLocksDoc(`{"task_id": "T-1", "resource": "a", "active": true}, {"task_id": "T-2", "resource": "b", "active": true}, {"task_id": "T-3", "resource": ".", "active": true}`),
			want: []string{"OP034 /locks/2/resource"}},
		{name: "OP034 orchestrator output", kind: "operator/orchestrator-output",
			js:   opRepl(t, opOutputExample(), `"active_locks": []`, `"active_locks": [{"task_id": "T-1", "resource": "src", "active": true}, {"task_id": "T-2", "resource": "src\\api", "active": true}]`),
			want: []string{"OP034 /active_locks/1/resource"}},
		{name: "OP034 handoff", kind: "operator/handoff",
			js:   opHandoff("todo", "", `["src"]`, `{"task_id": "T-1", "resource": "src", "active": true}, {"task_id": "T-2", "resource": "src/x", "active": true}`),
			want: []string{"OP034 /active_locks/1/resource"}},
	})
}

func TestLockConflictDetails(t *testing.T) {
	fs := opRun(t, "operator/locks", opLocksDoc(`{"task_id": "T-12", "resource": "src", "active": true}, {"task_id": "T-13", "resource": "src/api/handler.py", "active": true}`), "", 0)
	if len(fs) != 1 {
		t.Fatalf("findings = %v", fs)
	}
	want := []any{map[string]any{"task_a": "T-12", "resource_a": "src", "task_b": "T-13", "resource_b": "src/api/handler.py", "index_a": 0, "index_b": 1}}
	if got := fs[0].Extra["conflicts"]; !reflect.DeepEqual(got, want) {
		t.Errorf("conflicts = %#v, want %#v", got, want)
	}
	fs = opRun(t, "operator/assignment", opRepl(t, minimalAssignment, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["  "]`), "", 0)
	if len(fs) != 1 || fs[0].Reason != `task.lock_scope contains empty resource after normalization (task.lock_scope[0] is "  ")` ||
		fs[0].Extra["index"] != 0 || fs[0].Extra["resource"] != "  " {
		t.Errorf("OP030 finding = %+v", fs)
	}
}
