package rules

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/lockpath"
)

// Lock rules of the operator family (seed 001 "Identifier Rules": "resource
// is a normalized path-like string"; cue/README.md, operator, "Lock
// resources", and README, Codes and precedence, LOCK_CONFLICT and
// SCOPE_VIOLATION).
//
// Every resource is normalized with lockpath.Normalize. A resource that does
// not normalize (empty: OP030, escaping the root: OP031) is reported once and
// then left out of the overlap rules OP032-OP034.

// opLockKinds are the kinds that carry lock resources.
var opLockKinds = []string{
	"operator/assignment", "operator/orchestrator-output", "operator/handoff",
	"operator/locks", "operator/reconcile", "operator/result",
}

// opResource is one resource found in a document.
type opResource struct {
	at    string // RFC 6901 pointer of the list: "/task/lock_scope", "/active_locks"
	list  string // the list it belongs to, for reasons: "task.lock_scope", "active_locks"
	sub   string // the member of the element holding the resource ("resource"), or ""
	index int    // index in its list
	raw   string // the value as written
	norm  string // normalized (valid only when err == nil)
	err   error  // lockpath.ErrEmpty or lockpath.ErrEscapesRoot
	// Lock entries (active_locks[], locks[]) only.
	isLock bool
	taskID string
	active bool
}

// show renders the resource for a reason: its raw value, and its normalized
// form when that differs.
func (r *opResource) show() string {
	if r.err == nil && r.norm != r.raw {
		return fmt.Sprintf("%q (normalized %q)", r.raw, r.norm)
	}
	return fmt.Sprintf("%q", r.raw)
}

// ptr is the RFC 6901 pointer of the resource string (built only for a
// finding).
func (r *opResource) ptr() string {
	p := r.at + "/" + strconv.Itoa(r.index)
	if r.sub != "" {
		p += "/" + r.sub
	}
	return p
}

// where names the element for reasons: "task.lock_scope[0]",
// "active_locks[2].resource".
func (r *opResource) where() string {
	w := r.list + "[" + strconv.Itoa(r.index) + "]"
	if r.sub != "" {
		w += "." + r.sub
	}
	return w
}

// opNewResource is element index of the list at pointer at, named list in
// reasons, holding raw (in its member sub, when not "").
func opNewResource(at, list, sub string, index int, raw string) opResource {
	n, err := lockpath.Normalize(raw)
	return opResource{at: at, list: list, sub: sub, index: index, raw: raw, norm: n, err: err}
}

// opResMemo holds the lock resources of a document, read once for all the
// lock rules that check it (Doc.res, made on first use: a Doc is one record
// and is reset for the next); each is valid when its ok flag is set.
type opResMemo struct {
	scopes                [][]opResource
	forbidden, locks      []opResource
	changes               []opResource
	scopesOK, forbiddenOK bool
	locksOK, changesOK    bool
	locksKey              string
}

// lockMemo returns d's opResMemo, made on first use.
func (d *Doc) lockMemo() *opResMemo {
	if d.res == nil {
		d.res = &opResMemo{}
	}
	return d.res
}

// memoOnce returns *v, set by read(d) on first use (*ok records it).
func memoOnce[T any](d *Doc, v *T, ok *bool, read func(*Doc) T) T {
	if !*ok {
		*v, *ok = read(d), true
	}
	return *v
}

// opStringList returns the resources of a string array at m[key]; at is
// the array's RFC 6901 pointer and list its name in reasons
// ("task.lock_scope").
func opStringList(m map[string]any, key, at, list string) []opResource {
	arr := Arr(m, key)
	if len(arr) == 0 {
		return nil
	}
	out := make([]opResource, 0, len(arr))
	for i, v := range arr {
		s, _ := v.(string)
		out = append(out, opNewResource(at, list, "", i, s))
	}
	return out
}

// opLocks returns the lock entries of the array root[key] (active_locks or locks).
func opLocks(root map[string]any, key string) []opResource {
	arr := Arr(root, key)
	if len(arr) == 0 {
		return nil
	}
	out := make([]opResource, 0, len(arr))
	at := Ptr(key)
	for i, v := range arr {
		m := Obj(v)
		r := opNewResource(at, key, "resource", i, Str(m, "resource"))
		r.isLock = true
		r.taskID = Str(m, "task_id")
		r.active, _ = m["active"].(bool)
		out = append(out, r)
	}
	return out
}

// opLockKey is the member holding the lock list of a kind ("" when none).
func opLockKey(kind string) string {
	switch kind {
	case "operator/locks":
		return "locks"
	case "operator/assignment", "operator/orchestrator-output", "operator/handoff", "operator/reconcile":
		return "active_locks"
	}
	return ""
}

// opDocLocks returns the lock entries of d's member key (opLocks), read
// once per document.
func opDocLocks(d *Doc, key string) []opResource {
	if f := opFlatOf(d); f != nil {
		return f.locks // of the kind's key, the only one callers pass
	}
	m := d.lockMemo()
	if !m.locksOK || m.locksKey != key {
		m.locks, m.locksKey, m.locksOK = opLocks(d.Root(), key), key, true
	}
	return m.locks
}

// opLockScopes returns the lock_scope lists of a document: the assignment's
// task.lock_scope, or one per handoff ledger row. Read once per document:
// callers must not change the resources.
func opLockScopes(d *Doc) [][]opResource {
	if f := opFlatOf(d); f != nil {
		return f.scopes
	}
	m := d.lockMemo()
	return memoOnce(d, &m.scopes, &m.scopesOK, opReadLockScopes)
}

func opReadLockScopes(d *Doc) [][]opResource {
	root := d.Root()
	switch d.Kind {
	case "operator/assignment":
		return [][]opResource{opStringList(Obj(root["task"]), "lock_scope", "/task/lock_scope", "task.lock_scope")}
	case "operator/handoff":
		var out [][]opResource
		for j, row := range Arr(root, "ledger") {
			n := strconv.Itoa(j)
			out = append(out, opStringList(Obj(row), "lock_scope", "/ledger/"+n+"/lock_scope", "ledger["+n+"].lock_scope"))
		}
		return out
	}
	return nil
}

// opForbidden returns the assignment's task.forbidden_scope entries. Read
// once per document: callers must not change them.
func opForbidden(d *Doc) []opResource {
	if f := opFlatOf(d); f != nil {
		return f.forbidden
	}
	m := d.lockMemo()
	return memoOnce(d, &m.forbidden, &m.forbiddenOK, opReadForbidden)
}

func opReadForbidden(d *Doc) []opResource {
	if d.Kind != "operator/assignment" {
		return nil
	}
	return opStringList(Obj(d.Root()["task"]), "forbidden_scope", "/task/forbidden_scope", "task.forbidden_scope")
}

// opEachResource calls f with every resource of d that OP030 and OP031
// check, in a fixed order: lock_scope lists, forbidden_scope, lock entries,
// result changes. The lists are read once per document (f must not change
// the resources); nothing is copied.
func opEachResource(d *Doc, f func(*opResource)) {
	for _, l := range opLockScopes(d) {
		for i := range l {
			f(&l[i])
		}
	}
	var locks []opResource
	if key := opLockKey(d.Kind); key != "" {
		locks = opDocLocks(d, key)
	}
	for _, l := range [][]opResource{opForbidden(d), locks, opChanges(d)} {
		for i := range l {
			f(&l[i])
		}
	}
}

// opChanges returns the resources of a result's changes[]. Read once per
// document: callers must not change them.
func opChanges(d *Doc) []opResource {
	if f := opFlatOf(d); f != nil {
		return f.changes
	}
	m := d.lockMemo()
	return memoOnce(d, &m.changes, &m.changesOK, opReadChanges)
}

func opReadChanges(d *Doc) []opResource {
	if d.Kind != "operator/result" {
		return nil
	}
	arr := Arr(d.Root(), "changes")
	out := make([]opResource, 0, len(arr))
	for i, v := range arr {
		out = append(out, opNewResource("/changes", "changes", "resource", i, Str(Obj(v), "resource")))
	}
	return out
}

// opTaskID is the assignment's task.task_id ("" when absent or not a
// string).
func opTaskID(d *Doc) string {
	if f := opFlatOf(d); f != nil {
		return f.taskID
	}
	return Str(Obj(d.Root()["task"]), "task_id")
}

func checkLockResourceEmpty(d *Doc, r *Reporter) {
	opEachResource(d, func(res *opResource) {
		if !errors.Is(res.err, lockpath.ErrEmpty) {
			return
		}
		extra := map[string]any{"index": res.index, "resource": res.raw}
		if res.isLock {
			extra["task_id"] = res.taskID
		}
		r.Reportf(res.ptr(), extra, "%s contains empty resource after normalization (%s is %q)", res.list, res.where(), res.raw)
	})
}

func checkResourceEscapesRoot(d *Doc, r *Reporter) {
	opEachResource(d, func(res *opResource) {
		if !errors.Is(res.err, lockpath.ErrEscapesRoot) {
			return
		}
		extra := map[string]any{"index": res.index, "resource": res.raw, "normalized": res.norm}
		if res.isLock {
			extra["task_id"] = res.taskID
		}
		r.Reportf(res.ptr(), extra, "%s %q escapes the root: it normalizes to %q, which starts with \"..\"", res.where(), res.raw, res.norm)
	})
}

func checkLockScopeOverlap(d *Doc, r *Reporter) {
	for _, scope := range opLockScopes(d) {
		for j := range scope {
			b := &scope[j]
			if b.err != nil {
				continue
			}
			for i := 0; i < j; i++ {
				a := &scope[i]
				if a.err != nil || !lockpath.Overlap(a.norm, b.norm) {
					continue
				}
				r.Reportf(b.ptr(), map[string]any{
					"index": j, "resource": b.raw, "other_index": i, "other_resource": a.raw,
				}, "%s %s overlaps %s %s of the same lock_scope", b.where(), b.show(), a.where(), a.show())
			}
		}
	}
}

func checkForbiddenScopeOverlap(d *Doc, r *Reporter) {
	forbidden := opForbidden(d)
	scopes := opLockScopes(d)
	if len(forbidden) == 0 || len(scopes) == 0 {
		return
	}
	for k := range forbidden {
		f := &forbidden[k]
		if f.err != nil {
			continue
		}
		for i := range scopes[0] {
			l := &scopes[0][i]
			if l.err != nil || !lockpath.Overlap(f.norm, l.norm) {
				continue
			}
			r.Reportf(f.ptr(), map[string]any{
				"index": k, "resource": f.raw, "lock_scope_index": i, "lock_scope_resource": l.raw,
			}, "%s %s overlaps %s %s: a task may not lock what it is forbidden to touch", f.where(), f.show(), l.where(), l.show())
		}
	}
}

// opConflict is one entry of the "conflicts" detail of OP034, in the shape
// of the reference lock validator ({task_a, resource_a, task_b, resource_b}).
func opConflict(a, b *opResource) map[string]any {
	c := map[string]any{"task_a": a.taskID, "resource_a": a.raw, "task_b": b.taskID, "resource_b": b.raw}
	if a.isLock {
		c["index_a"] = a.index
	}
	if b.isLock {
		c["index_b"] = b.index
	}
	return c
}

func checkActiveLockConflict(d *Doc, r *Reporter) {
	key := opLockKey(d.Kind)
	if key == "" {
		return
	}
	locks := opDocLocks(d, key)
	if d.Kind == "operator/assignment" {
		// (a) the task's lock_scope against other tasks' active locks.
		taskID := opTaskID(d)
		scope := opLockScopes(d)[0]
		for i := range scope {
			s := &scope[i]
			if s.err != nil {
				continue
			}
			var own *opResource // s with the task's id, for opConflict (made on its first conflict)
			var conflicts []any
			var names []string
			for k := range locks {
				l := &locks[k]
				if !l.active || l.err != nil || l.taskID == taskID || !lockpath.Overlap(s.norm, l.norm) {
					continue
				}
				if own == nil {
					c := *s
					c.taskID = taskID
					own = &c
				}
				conflicts = append(conflicts, opConflict(own, l))
				names = append(names, fmt.Sprintf("the active lock %s[%d] of %s on %s", key, k, l.taskID, l.show()))
			}
			if len(conflicts) > 0 {
				r.Reportf(s.ptr(), map[string]any{"index": i, "resource": s.raw, "conflicts": conflicts},
					"%s %s of task %s overlaps %s", s.where(), s.show(), taskID, strings.Join(names, ", "))
			}
		}
		return
	}
	// (b) active locks of different tasks against each other.
	for j := range locks {
		b := &locks[j]
		if !b.active || b.err != nil {
			continue
		}
		var conflicts []any
		var names []string
		for i := 0; i < j; i++ {
			a := &locks[i]
			if !a.active || a.err != nil || a.taskID == b.taskID || !lockpath.Overlap(a.norm, b.norm) {
				continue
			}
			conflicts = append(conflicts, opConflict(a, b))
			names = append(names, fmt.Sprintf("the active lock %s[%d] of %s on %s", key, i, a.taskID, a.show()))
		}
		if len(conflicts) > 0 {
			r.Reportf(b.ptr(), map[string]any{"index": j, "task_id": b.taskID, "resource": b.raw, "conflicts": conflicts},
				"overlapping active locks: %s[%d] of %s on %s overlaps %s", key, j, b.taskID, b.show(), strings.Join(names, ", "))
		}
	}
}

// opLockFields are the values the lock rules read (Rule.Fields): the lock
// and change resources of every kind they check, and the members of an
// assignment's task they read (its own slots of the acceptor: the rules
// read them without scanning the task).
var opLockFields = []string{"/task", "/ledger", "/active_locks", "/locks", "/changes",
	"/task/task_id", "/task/lock_scope", "/task/forbidden_scope"}

// lockRules defines the rules of this file (group OP, loaded on first use: see groups).
func lockRules() {
	lockedTests := strings.Replace(minimalAssignment, `{"task_id": "T-9", "resource": "src/api.py", "active": true}`,
		`{"task_id": "T-9", "resource": "src/api.py", "active": true},
    {"task_id": "T-10", "resource": "tests/../tests", "active": true}`, 1)
	register(
		&Rule{
			ID: "OP030", Name: "lock-resource-empty", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       opLockKinds,
			Summary:     "a lock resource (lock_scope, forbidden_scope, active_locks, locks) or change resource is empty after normalization",
			Source:      `cue/README.md, operator, "Lock resources" ("Empty after that: SCHEMA_INVALID")`,
			ExampleKind: "operator/assignment",
			examples: func() (string, string) {
				return strings.Replace(minimalAssignment, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["  "]`, 1), minimalAssignment
			},
			Check:   inPlaceFirst(opReadsInPlace, checkLockResourceEmpty),
			Fields:  opLockFields,
			InPlace: true, // opEachResource, opLockScopes, opForbidden, opDocLocks, opTaskID
		},
		&Rule{
			ID: "OP031", Name: "resource-escapes-root", Code: envelope.ScopeViolation, Severity: envelope.SeverityError,
			Kinds:       opLockKinds,
			Summary:     `a lock or change resource escapes the root: ".." is its first element after cleaning`,
			Source:      `README, Codes and precedence, SCOPE_VIOLATION ("any resource that escapes the root"); cue/README.md, operator, "Lock resources"`,
			ExampleKind: "operator/assignment",
			examples: func() (string, string) {
				return strings.Replace(minimalAssignment, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["tests/../../test_api.py"]`, 1), minimalAssignment
			},
			Check:   inPlaceFirst(opReadsInPlace, checkResourceEscapesRoot),
			Fields:  opLockFields,
			InPlace: true, // opEachResource, opLockScopes, opForbidden, opDocLocks, opTaskID
		},
		&Rule{
			ID: "OP032", Name: "lock-scope-overlap", Code: envelope.LockConflict, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/assignment", "operator/handoff"},
			Summary:     "two entries of one lock_scope overlap (equal, or one is a path prefix of the other)",
			Source:      "README, Codes and precedence, LOCK_CONFLICT (\"two overlapping entries inside one lock_scope\")",
			ExampleKind: "operator/assignment",
			examples: func() (string, string) {
				return strings.Replace(minimalAssignment, `"lock_scope": ["tests/test_api.py"]`, `"lock_scope": ["tests", "tests/test_api.py"]`, 1), minimalAssignment
			},
			Check:   inPlaceFirst(opReadsInPlace, checkLockScopeOverlap),
			Fields:  opLockFields,
			InPlace: true, // opEachResource, opLockScopes, opForbidden, opDocLocks, opTaskID
		},
		&Rule{
			ID: "OP033", Name: "forbidden-scope-overlap", Code: envelope.ScopeViolation, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/assignment"},
			Summary:     "a task.forbidden_scope entry overlaps a task.lock_scope entry",
			Source:      "README, Codes and precedence, SCOPE_VIOLATION (\"forbidden_scope overlaps lock_scope\")",
			ExampleKind: "operator/assignment",
			examples: func() (string, string) {
				return strings.Replace(minimalAssignment, `"forbidden_scope": ["src/"]`, `"forbidden_scope": ["src/", "tests/"]`, 1), minimalAssignment
			},
			Check:   inPlaceFirst(opReadsInPlace, checkForbiddenScopeOverlap),
			Fields:  opLockFields,
			InPlace: true, // opEachResource, opLockScopes, opForbidden, opDocLocks, opTaskID
		},
		&Rule{
			ID: "OP034", Name: "active-lock-conflict", Code: envelope.LockConflict, Severity: envelope.SeverityError,
			Kinds:       []string{"operator/assignment", "operator/orchestrator-output", "operator/handoff", "operator/locks", "operator/reconcile"},
			Summary:     "a resource overlaps an active lock of another task (assignment: task.lock_scope vs active_locks; elsewhere: active locks of different tasks)",
			Source:      `README, Codes and precedence, LOCK_CONFLICT; cue/README.md, operator, "Lock resources" (locks of one task_id never conflict)`,
			ExampleKind: "operator/assignment",
			examples: func() (string, string) {
				return lockedTests, strings.Replace(lockedTests, `"resource": "tests/../tests", "active": true`, `"resource": "tests/../tests", "active": false`, 1)
			},
			Check:   inPlaceFirst(opReadsInPlace, checkActiveLockConflict),
			Fields:  opLockFields,
			InPlace: true, // opEachResource, opLockScopes, opForbidden, opDocLocks, opTaskID
		},
	)
}
