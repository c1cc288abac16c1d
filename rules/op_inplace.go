package rules

// The operator document rules on a record read in place (inplace.go): the
// lock rules OP030-OP034 (rule_locks.go), the untrusted-data rules OP040
// and OP041 (rule_secrets.go) and OP042 (rule_scope.go) read the lock and
// change resources and the untrusted strings of an assignment, a result,
// a locks file or a worklog entry through accessors (opLockScopes,
// opForbidden, opDocLocks, opChanges, opTaskID, opUntrusted) that give
// them from opFlatOf while the record is read in place: the lists the
// decoded readers build, with strings that point into the record, read in
// one pass that the rules share. Each rule's check runs on them with a
// probe first (inPlaceFirst); a finding is built from the decoded form.
// OP004 and OP043 read strings with Doc.DocStr, which reads either form.
// A handoff's ledger is not read in place: its reconcile rules (OP050-
// OP054) decode it.

// opFlat is what the operator rules read of a record read in place: the
// lists of opReadLockScopes, opReadForbidden, opLocks, opReadChanges and
// the strings of opUntrusted, in their order. Its buffers are reused from
// one record to the next (inPlaceState).
type opFlat struct {
	done bool // read (reset by inPlaceState.reset)
	ok   bool // no scanner declined: the lists are those of the decoded form
	// scopes holds the lock_scope lists (one for an assignment, none for
	// the other kinds read in place), scope the assignment's.
	scopes                    [][]opResource
	scope, forbidden, changes []opResource
	locks                     []opResource // of the kind's opLockKey
	taskID                    string       // the assignment's task.task_id
	criteria                  []opText     // task.acceptance_criteria[]
	texts                     []opText     // context_package[].value or notes_for_orchestrator[]
}

// opFlatOf returns the operator values of d when d is read in place and
// they could be read there, read on first use; nil otherwise (the
// accessors then read the decoded form).
func opFlatOf(d *Doc) *opFlat {
	if !d.inPlace() {
		return nil
	}
	f := &d.ipState().op
	if !f.done {
		f.done = true
		f.ok = f.read(d)
	}
	if !f.ok {
		return nil
	}
	return f
}

// opReadsInPlace reports whether the operator values of d, read in place,
// could be read there (the read of inPlaceFirst).
func opReadsInPlace(d *Doc) bool { return opFlatOf(d) != nil }

// read reads the values of d in place; false when a scanner declined (an
// escape in a member name or in a string read, a repeated member name) or
// d is of a kind whose values are not read in place (a handoff's ledger).
func (f *opFlat) read(d *Doc) bool {
	f.scopes, f.scope, f.forbidden, f.changes = f.scopes[:0], f.scope[:0], f.forbidden[:0], f.changes[:0]
	f.locks, f.criteria, f.texts, f.taskID = f.locks[:0], f.criteria[:0], f.texts[:0], ""
	switch d.Kind {
	case "operator/assignment":
		if !f.readTask(d) {
			return false
		}
		f.scopes = append(f.scopes, f.scope)
		ctx, _ := d.flatRaw("/context_package")
		plain := true
		if ok, _ := rawElements(ctx, func(i int, v []byte) bool {
			var s string
			s, plain = rawMemberString(v, "value")
			f.texts = append(f.texts, opText{opContext, i, s})
			return plain
		}); !ok || !plain {
			return false
		}
	case "operator/result":
		raw, _ := d.flatRaw("/changes")
		var ok bool
		if f.changes, ok = opFlatResources(f.changes, raw, "/changes", "changes", "resource"); !ok {
			return false
		}
		raw, _ = d.flatRaw("/notes_for_orchestrator")
		plain := true
		if ok, _ = rawElements(raw, func(i int, v []byte) bool {
			var s string
			s, _, plain = rawString(v)
			f.texts = append(f.texts, opText{opNotes, i, s})
			return plain
		}); !ok || !plain {
			return false
		}
	case "operator/handoff":
		return false // the ledger's lock_scope lists are read decoded
	}
	if key := opLockKey(d.Kind); key != "" {
		at := "/active_locks"
		if key == "locks" {
			at = "/locks"
		}
		raw, _ := d.flatRaw(at)
		var ok bool
		if f.locks, ok = opFlatResources(f.locks, raw, at, key, "resource"); !ok {
			return false
		}
	}
	return true
}

// readTask reads the assignment's task: task_id, lock_scope,
// forbidden_scope and acceptance_criteria, each a declared value
// (opLockFields, opUntrustedFields) of its own.
func (f *opFlat) readTask(d *Doc) bool {
	id, _ := d.flatRaw("/task/task_id")
	scope, _ := d.flatRaw("/task/lock_scope")
	forbidden, _ := d.flatRaw("/task/forbidden_scope")
	criteria, _ := d.flatRaw("/task/acceptance_criteria")
	var ok, plain bool
	if f.taskID, _, plain = rawString(id); !plain {
		return false
	}
	if f.scope, ok = opFlatStrings(f.scope, scope, "/task/lock_scope", "task.lock_scope"); !ok {
		return false
	}
	if f.forbidden, ok = opFlatStrings(f.forbidden, forbidden, "/task/forbidden_scope", "task.forbidden_scope"); !ok {
		return false
	}
	plain = true
	ok, _ = rawElements(criteria, func(i int, v []byte) bool {
		var s string
		s, _, plain = rawString(v)
		f.criteria = append(f.criteria, opText{opCriteria, i, s})
		return plain
	})
	return ok && plain
}

// opFlatStrings is opStringList on the JSON text raw of a string array
// (none when raw is not an array), appended to out; false when a scanner
// declined.
func opFlatStrings(out []opResource, raw []byte, at, list string) ([]opResource, bool) {
	plain := true
	ok, _ := rawElements(raw, func(i int, v []byte) bool {
		var s string
		s, _, plain = rawString(v)
		out = append(out, opNewResource(at, list, "", i, s))
		return plain
	})
	return out, ok && plain
}

// opFlatResources is opLocks (sub "resource", of the lock lists) or
// opReadChanges on the JSON text raw of an array of objects, appended to
// out; false when a scanner declined. Only lock lists read task_id and
// active.
func opFlatResources(out []opResource, raw []byte, at, list, sub string) ([]opResource, bool) {
	lock := list != "changes"
	plain := true
	ok, _ := rawElements(raw, func(i int, v []byte) bool {
		var res, task string
		var active bool
		ok, _ := rawMembers(v, func(n, m []byte) bool {
			switch string(n) {
			case sub:
				res, _, plain = rawString(m)
			case "task_id":
				if lock {
					task, _, plain = rawString(m)
				}
			case "active":
				active = lock && string(m) == "true"
			}
			return plain
		})
		if !ok || !plain {
			plain = false
			return false
		}
		r := opNewResource(at, list, sub, i, res)
		r.isLock, r.taskID, r.active = lock, task, active
		out = append(out, r)
		return true
	})
	return out, ok && plain
}

// rawMemberString returns the content of the string member name of the
// object raw ("" when raw is not an object, has no such member or it is
// not a string); plain is false when a scanner declined.
func rawMemberString(raw []byte, name string) (s string, plain bool) {
	plain = true
	ok, _ := rawMembers(raw, func(n, v []byte) bool {
		if string(n) == name {
			s, _, plain = rawString(v)
		}
		return plain
	})
	return s, ok && plain
}
