package rules

// The operator document rules on a record read in place (inplace.go): the
// lock rules OP030-OP034 (rule_locks.go), the untrusted-data rules OP040
// and OP041 (rule_secrets.go), OP042 (rule_scope.go) and the reconcile
// rules OP050-OP055 (rule_reconcile.go) read the lock and change
// resources, the untrusted strings, the ledger and the task references of
// an assignment, a result, a locks file, a handoff, a reconcile document
// or a worklog entry through accessors (opLockScopes, opForbidden,
// opDocLocks, opChanges, opTaskID, opUntrusted, opReadLedger,
// opHandoffDeps, opTaskRefs) that give them from opFlatOf while the record
// is read in place: what the decoded readers give, with strings that
// point into the record, read in one pass that the rules share. Each
// rule's check runs on them with a probe first (inPlaceFirst); a finding
// is built from the decoded form. OP004 and OP043 read strings with
// Doc.DocStr, which reads either form.

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
	// The ledger of a handoff or reconcile document (opReadLedger), with
	// the buffers its rows' dependencies and lock_scope lists share.
	ledger   opLedger
	depBuf   []string
	scopeBuf []opResource
	deps     []opDep             // a handoff's dependencies[] (opHandoffDeps)
	refs     map[string][]string // task_id of open_blockers[], acceptance_targets[], events[] (opTaskRefs)
}

// release drops the buffers that exceed maxKept (inPlaceState.release).
func (f *opFlat) release() {
	if cap(f.ledger.rows) > maxKept || len(f.ledger.first) > maxKept || cap(f.depBuf) > maxKept || cap(f.scopeBuf) > maxKept ||
		cap(f.scopes) > maxKept || cap(f.locks) > maxKept || cap(f.deps) > maxKept {
		*f = opFlat{}
	}
	for _, b := range [][]opResource{f.scope, f.forbidden, f.changes} {
		if cap(b) > maxKept {
			*f = opFlat{}
			return
		}
	}
}

// opRefKeys are the arrays whose elements' task_id opTaskRefs reads, by
// kind.
var opRefKeys = map[string][]string{
	"operator/handoff":   {"open_blockers", "acceptance_targets"},
	"operator/reconcile": {"events"},
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
// escape in a member name or in a string read, a repeated member name).
func (f *opFlat) read(d *Doc) bool {
	f.scopes, f.scope, f.forbidden, f.changes = f.scopes[:0], f.scope[:0], f.forbidden[:0], f.changes[:0]
	f.locks, f.criteria, f.texts, f.taskID = f.locks[:0], f.criteria[:0], f.texts[:0], ""
	f.ledger.rows, f.deps = f.ledger.rows[:0], f.deps[:0]
	for k, v := range f.refs {
		f.refs[k] = v[:0]
	}
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
	case "operator/handoff", "operator/reconcile":
		if !f.readLedger(d) || !f.readRefs(d) {
			return false
		}
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

// readLedger reads the ledger rows of a handoff or reconcile document as
// opReadLedger reads them decoded and, for a handoff, each row's
// lock_scope (opReadLockScopes). The resources' pointers and names are
// left empty: they serve findings, which are built from the decoded form.
func (f *opFlat) readLedger(d *Doc) bool {
	l := &f.ledger
	l.rows, f.depBuf, f.scopeBuf = l.rows[:0], f.depBuf[:0], f.scopeBuf[:0]
	if l.first == nil {
		l.first = map[string]int{}
	}
	clear(l.first)
	handoff := d.Kind == "operator/handoff"
	raw, _ := d.flatRaw("/ledger")
	plain := true
	ok, isArr := rawElements(raw, func(i int, v []byte) bool {
		row := opRow{index: i}
		var status, deps, scope []byte
		ok, _ := rawMembers(v, func(n, m []byte) bool {
			switch string(n) {
			case "task_id":
				row.taskID, _, plain = rawString(m)
			case "status":
				status = m
			case "owner":
				row.hasOwner = true
				row.owner, _, plain = rawString(m)
			case "dependencies":
				deps = m
			case "lock_scope":
				scope = m
			}
			return plain
		})
		if !ok || !plain {
			plain = false
			return false
		}
		if status != nil {
			var str bool
			if row.status, str, plain = rawString(status); !plain {
				return false
			}
			row.badStatus = !str
		}
		start := len(f.depBuf)
		if ok, _ = rawElements(deps, func(_ int, e []byte) bool {
			var s string
			s, _, plain = rawString(e)
			f.depBuf = append(f.depBuf, s)
			return plain
		}); !ok || !plain {
			plain = false
			return false
		}
		if len(f.depBuf) > start {
			row.deps = f.depBuf[start:len(f.depBuf):len(f.depBuf)]
		}
		if handoff {
			start := len(f.scopeBuf)
			if f.scopeBuf, ok = opFlatStrings(f.scopeBuf, scope, "", ""); !ok {
				plain = false
				return false
			}
			var list []opResource
			if len(f.scopeBuf) > start {
				list = f.scopeBuf[start:len(f.scopeBuf):len(f.scopeBuf)]
			}
			f.scopes = append(f.scopes, list)
		}
		l.rows = append(l.rows, row)
		if _, seen := l.first[row.taskID]; !seen {
			l.first[row.taskID] = i
		}
		return true
	})
	if !ok || !plain {
		return false
	}
	l.readable = isArr
	for i := range l.rows {
		if l.rows[i].taskID == "" {
			l.readable = false // a row without a readable id: no task is known missing
		}
	}
	return true
}

// readRefs reads a handoff's dependencies[] (opHandoffDeps) and the
// task_id of the elements of the arrays opRefKeys names (opTaskRefs).
func (f *opFlat) readRefs(d *Doc) bool {
	if f.refs == nil {
		f.refs = map[string][]string{}
	}
	plain := true
	if d.Kind == "operator/handoff" {
		raw, _ := d.flatRaw("/dependencies")
		if ok, _ := rawElements(raw, func(k int, v []byte) bool {
			var task, dep string
			ok, _ := rawMembers(v, func(n, m []byte) bool {
				switch string(n) {
				case "task_id":
					task, _, plain = rawString(m)
				case "depends_on_task_id":
					dep, _, plain = rawString(m)
				}
				return plain
			})
			f.deps = append(f.deps, opDep{-1, k, task, dep})
			plain = plain && ok
			return plain
		}); !ok || !plain {
			return false
		}
	}
	for _, key := range opRefKeys[d.Kind] {
		raw, _ := d.flatRaw(opRefPointer(key))
		ids := f.refs[key]
		if ok, _ := rawElements(raw, func(_ int, v []byte) bool {
			var id string
			id, plain = rawMemberString(v, "task_id")
			ids = append(ids, id)
			return plain
		}); !ok || !plain {
			return false
		}
		f.refs[key] = ids
	}
	return true
}

// opRefPointer is the pointer of an array of opRefKeys.
func opRefPointer(key string) string {
	switch key {
	case "open_blockers":
		return "/open_blockers"
	case "acceptance_targets":
		return "/acceptance_targets"
	}
	return "/events"
}
