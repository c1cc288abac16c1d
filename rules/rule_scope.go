package rules

import (
	"fmt"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/lockpath"
)

// Cross-document rules of a result checked against its assignment
// (`agentlint validate --assignment A`; README, Codes and precedence,
// SCOPE_VIOLATION and LEDGER_INCONSISTENT; README, Usage).

// ExampleAssignment is the assignment (seed 001 "Minimal Assignment Example")
// that the examples of the rules needing --assignment (OP042, OP043) are
// checked against: a tool showing or testing those examples passes it as
// Options.Assignment.
var ExampleAssignment = minimalAssignment

// opWithin reports whether the normalized resource r lies inside the
// normalized scope entry s: equal, or a path descendant of it ("." holds
// every relative path, "/" every absolute one).
func opWithin(r, s string) bool {
	if r == s {
		return true
	}
	rAbs, sAbs := strings.HasPrefix(r, "/"), strings.HasPrefix(s, "/")
	if rAbs != sAbs {
		return false
	}
	if s == "." || s == "/" {
		return true
	}
	return len(r) > len(s) && r[len(s)] == '/' && r[:len(s)] == s
}

// opAssignment returns the assignment given with --assignment, or nil.
func opAssignment(d *Doc) *Doc {
	if d.Options == nil || d.Options.Assignment == nil {
		return nil
	}
	return d.Options.Assignment
}

func checkResultOutsideScope(d *Doc, r *Reporter) {
	a := opAssignment(d)
	if a == nil {
		return
	}
	ad := &Doc{Kind: "operator/assignment", Value: a.Value}
	scope := opLockScopes(ad)[0]
	forbidden := opForbidden(ad)
	changes := opChanges(d)
	for i := range changes {
		c := &changes[i]
		if c.err != nil {
			continue // OP030 / OP031
		}
		hit := false
		for k := range forbidden {
			f := &forbidden[k]
			if f.err != nil || !lockpath.Overlap(c.norm, f.norm) {
				continue
			}
			hit = true
			r.Reportf(c.ptr(), map[string]any{"index": i, "resource": c.raw, "forbidden_index": k, "forbidden_resource": f.raw},
				"changes[%d].resource %s overlaps the assignment's task.forbidden_scope[%d] %s", i, c.show(), k, f.show())
		}
		if hit {
			continue
		}
		inside := false
		for k := range scope {
			if scope[k].err == nil && opWithin(c.norm, scope[k].norm) {
				inside = true
				break
			}
		}
		if !inside {
			scopeList := make([]string, len(scope))
			for k := range scope {
				scopeList[k] = fmt.Sprintf("%q", scope[k].raw)
			}
			r.Reportf(c.ptr(), map[string]any{"index": i, "resource": c.raw},
				"changes[%d].resource %s lies outside the assignment's task.lock_scope [%s]", i, c.show(), strings.Join(scopeList, ", "))
		}
	}
}

// checkResultAssignmentMismatch reads the result's run_id and task_id with
// Doc.DocStr: in place or decoded, the same strings.
func checkResultAssignmentMismatch(d *Doc, r *Reporter) {
	a := opAssignment(d)
	if a == nil {
		return
	}
	aroot := a.Root()
	if got, want := docString(d, "/run_id"), Str(aroot, "run_id"); !strings.EqualFold(got, want) {
		r.Reportf(Ptr("run_id"), map[string]any{"run_id": got, "assignment_run_id": want},
			"result run_id %q differs from the assignment's run_id %q", got, want)
	}
	if got, want := docString(d, "/task_id"), Str(Obj(aroot["task"]), "task_id"); got != want {
		r.Reportf(Ptr("task_id"), map[string]any{"task_id": got, "assignment_task_id": want},
			"result task_id %q differs from the assignment's task.task_id %q", got, want)
	}
}

// docString is Doc.DocStr without its flag: "" when the value is absent
// or not a string (as Str reads a decoded object).
func docString(d *Doc, ptr string) string {
	s, _ := d.DocStr(ptr)
	return s
}

// scopeRules defines the rules of this file (group OP, loaded on first use: see groups).
func scopeRules() {
	register(
		&Rule{
			ID: "OP042", Name: "result-outside-scope", Code: envelope.ScopeViolation, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/result"},
			Summary:     "with --assignment, a result changes a resource outside the assignment's lock_scope or inside its forbidden_scope",
			Source:      "README, Codes and precedence, SCOPE_VIOLATION; README, Usage (validate --assignment)",
			ExampleKind: "operator/result",
			Options:     []string{"--assignment"},
			examples: func() (string, string) {
				return strings.Replace(minimalResult, `{"resource": "tests/test_api.py", "action": "edit", "evidence": "Added endpoint assertions"}`,
					`{"resource": "tests/test_api.py", "action": "edit", "evidence": "Added endpoint assertions"},
    {"resource": "docs/api.md", "action": "edit"}`, 1), minimalResult
			},
			Check:   inPlaceFirst(opReadsInPlace, checkResultOutsideScope),
			Fields:  []string{"/changes"},
			InPlace: true, // opChanges
		},
		&Rule{
			ID: "OP043", Name: "result-assignment-mismatch", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/result"},
			Summary:     "with --assignment, the result's task_id or run_id differs from the assignment's",
			Source:      "README, Codes and precedence, LEDGER_INCONSISTENT (records disagree with each other); README, Usage (validate --assignment)",
			ExampleKind: "operator/result",
			Options:     []string{"--assignment"},
			examples: func() (string, string) {
				return strings.Replace(minimalResult, `"task_id": "T-12"`, `"task_id": "T-13"`, 1), minimalResult
			},
			Check:   checkResultAssignmentMismatch,
			Fields:  []string{"/run_id", "/task_id"},
			InPlace: true, // Doc.DocStr
		},
	)
}
