package rules

import "testing"

func TestScopeRules(t *testing.T) {
	changes := func(s string) string {
		return opRepl(t, minimalResult, `{"resource": "tests/test_api.py", "action": "edit", "evidence": "Added endpoint assertions"}`, s)
	}
	dirScope := opRepl(t, minimalAssignment, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["tests", "docs/api.md"]`)
	opRunCases(t, []opCase{
		// OP042 result-outside-scope
		{name: "OP042 outside lock_scope", kind: "operator/result", assignment: minimalAssignment,
			js:   changes(`{"resource": "tests/test_api.py", "action": "edit"}, {"resource": "docs/api.md", "action": "edit"}`),
			want: []string{"OP042 /changes/1/resource"}},
		{name: "OP042 inside forbidden_scope", kind: "operator/result", assignment: minimalAssignment,
			js: changes(`{"resource": "src/api.py", "action": "edit"}`), want: []string{"OP042 /changes/0/resource"}},
		{name: "OP042 broader than the lock", kind: "operator/result", assignment: minimalAssignment,
			js: changes(`{"resource": "tests", "action": "delete"}`), want: []string{"OP042 /changes/0/resource"}},
		{name: "OP042 near miss: same after normalization", kind: "operator/result", assignment: minimalAssignment,
			js: changes(`{"resource": "./tests/x/../test_api.py", "action": "edit"}`)},
		{name: "OP042 near miss: descendant of a directory lock", kind: "operator/result", assignment: dirScope,
			js: changes(`{"resource": "tests/unit/test_x.py", "action": "add"}, {"resource": "docs/api.md", "action": "edit"}`)},
		{name: "OP042 name prefix is not inside", kind: "operator/result", assignment: dirScope,
			js: changes(`{"resource": "tests2/x.py", "action": "add"}`), want: []string{"OP042 /changes/0/resource"}},
		{name: "OP042 near miss: no --assignment", kind: "operator/result",
			js: changes(`{"resource": "src/api.py", "action": "edit"}`)},

		// OP043 result-assignment-mismatch
		{name: "OP043 task_id", kind: "operator/result", assignment: minimalAssignment,
			js: opRepl(t, minimalResult, `"task_id": "T-12"`, `"task_id": "T-13"`), want: []string{"OP043 /task_id"}},
		{name: "OP043 run_id", kind: "operator/result", assignment: minimalAssignment,
			js: opRepl(t, minimalResult, `"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`, `"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf5"`), want: []string{"OP043 /run_id"}},
		{name: "OP043 near miss: run_id case", kind: "operator/result", assignment: minimalAssignment,
			js: opRepl(t, minimalResult, `"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`, `"3F56DC4D-35CF-4F97-925C-0B04A6FE8BF4"`)},
		{name: "OP043 near miss: no --assignment", kind: "operator/result",
			js: opRepl(t, minimalResult, `"task_id": "T-12"`, `"task_id": "T-13"`)},
	})
}
