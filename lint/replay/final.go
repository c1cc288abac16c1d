package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/renameio/v2"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// finish compares the streams (D2 across streams, D5), reconciles the
// resulting ledger and builds the verdict.
func (r *run) finish(ss []*stream) *Result {
	res := &Result{}
	details := map[string]any{"ledger": r.base.name, "ledger_form": string(r.base.form)}
	streams := make([]any, len(ss))
	for i, s := range ss {
		d := map[string]any{"file": s.name, "form": string(s.form)}
		if !r.invalid {
			res.Counts.add(s.counts)
			d["deltas"], d["applied"], d["skipped_duplicates"], d["rejected"] = s.counts.Deltas, s.counts.Applied, s.counts.SkippedDuplicates, s.counts.Rejected
		}
		streams[i] = d
	}
	details["streams"] = streams
	if r.invalid {
		// An invalid input stops the replay: the verdict is the inputs'
		// (no counts: nothing counts as applied).
		return r.verdict(res, r.inputVs, details, "")
	}
	r.crossStreamIDs(ss)
	// The D2 indexes are not needed any more: give their memory back
	// before the reconciliation's peak.
	for _, s := range ss {
		if s.idx != nil {
			s.idx.release()
		}
	}
	final, conflicted := r.merge(ss)
	tasks := map[string]any{}
	for _, i := range final.order() {
		id := final.row(i).taskID
		tasks[id] = final.rows[i].status
		if conflicted[id] {
			tasks[id] = nil
		}
	}
	details["tasks"] = tasks
	details["task_count"] = len(tasks)
	for k, v := range map[string]int{"deltas": res.Counts.Deltas, "applied": res.Counts.Applied,
		"skipped_duplicates": res.Counts.SkippedDuplicates, "rejected": res.Counts.Rejected} {
		details[k] = v
	}
	if len(conflicted) > 0 {
		final = nil // D5: no merged ledger
	} else {
		r.reconcile(final)
		if !r.opts.Now.IsZero() {
			details["now"] = r.opts.Now.UTC().Format(time.RFC3339Nano)
		}
	}
	ok := fmt.Sprintf("replayed %s from %s onto %s: %d applied, %d skipped as duplicates, %d rejected; ledger reconciled",
		plural(res.Counts.Deltas, "delta"), plural(len(ss), "stream"), plural(len(tasks), "task"),
		res.Counts.Applied, res.Counts.SkippedDuplicates, res.Counts.Rejected)
	if !r.opts.Now.IsZero() {
		ok += ", watchdog passed"
	}
	res = r.verdict(res, append(append([]envelope.Violation(nil), r.inputVs...), r.vs...), details, ok)
	if res.Envelope.Allow {
		res.final = final
	}
	return res
}

// verdict sets the envelope from all violations; a denying verdict names
// the file of its primary violation.
func (r *run) verdict(res *Result, vs []envelope.Violation, details map[string]any, ok string) *Result {
	res.Envelope = envelope.Verdict(vs, ok, details)
	if !res.Envelope.Allow {
		if f, isStr := vs[0].Extra["file"].(string); isStr {
			res.Envelope.Details["file"] = f
		}
	}
	return res
}

// crossStreamIDs reports a delta_id that two streams use with different
// content (RP002); it does not change what either stream applied, so the
// verdict does not depend on the order of the streams. Each id of a stream is
// compared with the first earlier stream that has it, in the order the
// stream first used its ids.
func (r *run) crossStreamIDs(ss []*stream) {
	for j, s := range ss {
		if j == 0 {
			continue
		}
		s.entries(func(e d2Entry) {
			for _, f := range ss[:j] {
				fe, ok := f.lookup(e.id, e.h)
				if !ok {
					continue
				}
				if !sameContent(s, e, f, fe) {
					index, findex := e.index, fe.index
					at := s.deltaPlace(index, s.lines.get(index))
					r.report(at.violation("RP002", "/delta_id", fmt.Sprintf(
						"delta %d of stream %s reuses delta_id %q of delta %d of stream %s with different content (D2)",
						index, s.name, e.id, findex, f.name), map[string]any{
						"stream": s.name, "delta_index": index, "delta_id": string(e.id),
						"other_stream": f.name, "other_delta_index": findex,
					}))
				}
				return
			}
		})
	}
}

// deltaPlace returns the place of delta index of the stream (line: its line
// in a JSON Lines stream).
func (s *stream) deltaPlace(index, line int) place {
	if s.form == FormOutput {
		data := bytes.TrimPrefix(s.data, bom)
		return place{s.name, "", span{data, 1, 1}}.sub("/ledger_delta/" + strconv.Itoa(index))
	}
	return place{s.name, "", span{nil, line, 1}}
}

// sub returns the place of the value at pointer sub inside p (only the
// pointer moves when p's text is not held).
func (p place) sub(ptr string) place {
	if p.span.text == nil {
		return place{p.file, p.ptr + ptr, p.span}
	}
	off := int(record.Locate(p.span.text, ptr))
	line, col := p.span.at(ptr)
	return place{p.file, p.ptr + ptr, span{p.span.text[off:], line, col}}
}

// merge compares the streams' ledgers (D5) and returns the merged ledger
// and the tasks on which two streams disagree (reported as RP007). With no
// stream the result is BASE; with one, that stream's ledger.
func (r *run) merge(ss []*stream) (*state, map[string]bool) {
	conflicted := map[string]bool{}
	switch len(ss) {
	case 0:
		return newState(r.base), conflicted
	case 1:
		ss[0].st.applied = ss[:1]
		return ss[0].st, conflicted
	}
	m := newState(r.base)
	m.applied = ss
	per := make([]*rowState, len(ss))
	for i := range r.base.rows {
		for j, s := range ss {
			per[j] = &s.st.rows[i]
		}
		r.mergeRow(m, i, ss, per, conflicted)
	}
	// Created rows: each task once, at its earliest creating position.
	type created struct {
		at  int
		per []*rowState
	}
	byTask := map[string]*created{}
	var ids []string
	for j, s := range ss {
		for k, row := range s.st.created {
			c := byTask[row.taskID]
			if c == nil {
				c = &created{at: s.st.createdAt[k], per: make([]*rowState, len(ss))}
				byTask[row.taskID] = c
				ids = append(ids, row.taskID)
			}
			c.at = min(c.at, s.st.createdAt[k])
			c.per[j] = &s.st.rows[len(r.base.rows)+k]
		}
	}
	for _, id := range ids {
		c := byTask[id]
		i := m.create(id, c.at)
		r.mergeRow(m, i, ss, c.per, conflicted)
	}
	return m, conflicted
}

// mergeRow merges row i of the streams into m: each mutable field comes from
// the streams that wrote it, which must agree (compared canonically).
func (r *run) mergeRow(m *state, i int, ss []*stream, per []*rowState, conflicted map[string]bool) {
	out := &m.rows[i]
	var bad []int
	for k := range nMut {
		var canon0 []byte
		for _, st := range per {
			if st == nil || !st.by[k].set() {
				continue
			}
			c := canonical(st.vals[k])
			if !out.by[k].set() {
				out.vals[k], out.by[k], canon0 = st.vals[k], st.by[k], c
				continue
			}
			if !bytes.Equal(c, canon0) {
				if len(bad) == 0 || bad[len(bad)-1] != k {
					bad = append(bad, k)
				}
			} else if bytes.Compare(st.vals[k], out.vals[k]) < 0 {
				out.vals[k] = st.vals[k] // the same value written differently: pick one independently of the order
			}
		}
	}
	base := m.row(i)
	out.status, out.owner = base.status, base.owner
	if out.vals[fStatus] != nil {
		out.status = unquote(out.vals[fStatus])
	}
	if out.vals[fOwner] != nil {
		out.owner = unquote(out.vals[fOwner])
	}
	if len(bad) == 0 {
		return
	}
	taskID := base.taskID
	conflicted[taskID] = true
	var fields, parts []string
	var values []any
	for _, k := range bad {
		fields = append(fields, mutFields[k])
		var each []string
		for j, st := range per {
			if st == nil || !st.by[k].set() {
				continue
			}
			o := st.by[k]
			var v any
			_ = json.Unmarshal(st.vals[k], &v)
			values = append(values, map[string]any{"field": mutFields[k], "stream": ss[j].name, "value": v,
				"delta_index": int(o.index), "delta_id": o.deltaID()})
			each = append(each, fmt.Sprintf("%s in %s (delta %d, %s)", st.vals[k], ss[j].name, o.index, o.deltaID()))
		}
		parts = append(parts, mutFields[k]+" is "+strings.Join(each, " but "))
	}
	o := out.by[bad[0]]
	r.report(o.place().violation("RP007", "/"+mutFields[bad[0]], fmt.Sprintf("concurrent streams leave task %s with different values (D5): %s",
		taskID, strings.Join(parts, "; ")), map[string]any{
		"task_id": taskID, "fields": fields, "values": values,
		"stream": o.stream.name, "delta_index": int(o.index), "delta_id": o.deltaID(),
	}))
}

// canonical returns the RFC 8785 form of a JSON value.
func canonical(v []byte) []byte {
	c := jsontext.Value(bytes.Clone(v))
	if c.Canonicalize() != nil {
		return v
	}
	return c
}

// The registry rules run on the resulting ledger: reconciliation
// (operator/reconcile) and, with a clock, the watchdog (operator/watchdog).
// OP055 (events) has no events to check; OP062 (in_progress without a
// heartbeat) is a watchdog payload's schema rule, not a ledger's.
var (
	reconcileRules = map[string]int{"OP050": fStatus, "OP051": fOwner, "OP052": -1, "OP053": fStatus, "OP054": fStatus}
	watchdogRules  = map[string]int{"OP060": fHeartbeat, "OP061": fHeartbeat}
)

// reconcile runs the reconciliation rules and, with Options.Now, the
// watchdog rules on the resulting ledger, and reports their findings at the
// delta that last wrote the field concerned (or at BASE).
func (r *run) reconcile(st *state) {
	order := st.order()
	rows := make([]any, len(order))
	for j, i := range order {
		v, err := st.rowValue(i)
		if err != nil {
			panic(fmt.Sprintf("replay: row %s is not JSON: %v", st.row(i).taskID, err))
		}
		rows[j] = v
	}
	opts := &rules.Options{Now: r.opts.Now, MaxSkew: r.opts.MaxSkew, Strict: r.opts.Strict}
	locks := r.base.lockVals
	if locks == nil {
		locks = []any{}
	}
	doc := &rules.Doc{Kind: string(FormReconcile), Value: map[string]any{"ledger": rows, "active_locks": locks}, Options: opts}
	for _, f := range rules.Run(doc, func(id string) bool { _, ok := reconcileRules[id]; return ok && r.enabled(id) }) {
		r.attribute(st, order, f, reconcileRules[f.Rule])
	}
	if r.opts.Now.IsZero() {
		return
	}
	wd := &rules.Doc{Kind: "operator/watchdog", Value: map[string]any{"now": r.opts.Now.UTC().Format(time.RFC3339Nano), "tasks": rows}, Options: opts}
	for _, f := range rules.Run(wd, func(id string) bool { _, ok := watchdogRules[id]; return ok && r.enabled(id) }) {
		r.attribute(st, order, f, watchdogRules[f.Rule])
	}
}

// attribute reports a finding on the resulting ledger (pointer
// /ledger/i/..., /tasks/i/... or /active_locks/k) at the delta that last
// wrote field (a mutable field index; -1: BASE's declaration).
func (r *run) attribute(st *state, order []int, f rules.Finding, field int) {
	parts := strings.SplitN(strings.TrimPrefix(f.Pointer, "/"), "/", 3)
	n := -1
	if len(parts) > 1 {
		n, _ = strconv.Atoi(parts[1])
	}
	rest := ""
	if len(parts) == 3 {
		rest = "/" + parts[2]
	}
	i, basePlace := -1, place{file: r.base.name, ptr: f.Pointer}
	switch {
	case parts[0] == "active_locks" && n >= 0 && n < len(r.base.lockAt):
		i = st.lookupString(rules.Str(rules.Obj(r.base.lockVals[n]), "task_id"))
		basePlace = r.base.lockAt[n]
	case n >= 0 && n < len(order):
		i = order[n]
		row := st.row(i)
		k, err := strconv.Atoi(strings.TrimPrefix(rest, "/dependencies/"))
		switch {
		case strings.HasPrefix(rest, "/dependencies/") && err == nil && k < len(row.depAt):
			basePlace = row.depAt[k]
		case row.at.file != "":
			basePlace = row.at.sub(rest)
		}
	}
	extra := map[string]any{}
	for k, v := range f.Extra {
		extra[k] = v
	}
	reason := "after replay: " + f.Reason
	if i >= 0 {
		extra["task_id"] = st.row(i).taskID
		if o := st.rows[i].by[max(field, 0)]; field >= 0 && o.set() {
			extra["stream"], extra["delta_index"], extra["delta_id"] = o.stream.name, int(o.index), o.deltaID()
			r.report(o.place().violation(f.Rule, "/"+mutFields[field], reason, extra))
			return
		}
	}
	r.report(basePlace.violation(f.Rule, "", reason, extra))
}

// WriteLedger writes the resulting ledger, or returns ErrNoLedger when the
// verdict denies (or streams conflicted). It reads every stream that Run
// read again (a regular file, or any Input.R that is an io.ReaderAt and
// io.Seeker) once more for the ids and digests of its applied deltas, so
// those readers must stay open and unchanged until the ledger is written;
// the error is then an *InputError. The ledger is an
// operator/reconcile document in a canonical layout, so that a ledger
// written here, read back as BASE and replayed with no stream is written
// back byte for byte:
//
//	{
//	  "ledger": [
//	    {"task_id": "T-1", "title": "…", "status": "done", "owner": "agent-1", …},
//	    …
//	  ],
//	  "active_locks": [
//	    {"task_id": "T-2", "resource": "src/api.py", "active": true}
//	  ],
//	  "x_agentlint_applied_deltas": {
//	    "d-1": "<32 hex digits>",
//	    …
//	  }
//	}
//
// One row per line: BASE's rows in BASE's order, then the rows created by
// create-intent deltas (by the position of the creating delta in its stream,
// then task_id). A row keeps every member of BASE's row, with the mutable
// fields as the deltas left them; members are ordered task_id, title,
// status, owner, reason, priority, dependencies, lock_scope,
// timeout_seconds, heartbeat_interval_seconds, last_heartbeat_at,
// timed_out, retry_after_ms, then any other member by name. A handoff's
// dependencies array is folded into the rows' dependencies. active_locks
// are BASE's (deltas do not change locks; a row-only BASE has none).
// x_agentlint_applied_deltas (omitted when empty) maps every applied
// delta_id to the first 16 bytes of the SHA-256 of the delta's RFC 8785
// canonical form, in hex, sorted by delta_id, so that replaying the same
// deltas again skips them (D2). Values are written on one line with a space
// after ':' and ',', strings in minimal escaping, numbers as written.
// Everything else of BASE (a handoff's objective, constraints,
// open_blockers, acceptance_targets; a reconcile document's events) is not
// part of the ledger and is not written.
func (res *Result) WriteLedger(w io.Writer) error {
	if res.final == nil {
		return ErrNoLedger
	}
	return res.final.writeTo(w)
}

// EmitLedger writes the resulting ledger to path atomically: to a temporary
// file in the same directory, synced, then renamed over path (and the
// directory synced). It returns ErrNoLedger when there is no resulting
// ledger; path is then untouched. Like WriteLedger it reads the streams
// that can be read again once more, and an *InputError when one of them
// cannot be (path is then untouched too).
func (res *Result) EmitLedger(path string) error {
	if res.final == nil {
		return ErrNoLedger
	}
	return WriteFileAtomic(path, res.WriteLedger)
}

// WriteFileAtomic writes a file through write: to a temporary file in the
// same directory (mode 0644 less the umask), synced, then renamed to path
// (github.com/google/renameio), and the directory synced, so that readers
// see the old content or the new, never a part. On error the temporary
// file is removed and path is untouched.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithPermissions(0o644))
	if err != nil {
		return err
	}
	defer func() { _ = f.Cleanup() }()
	if err := write(f); err != nil {
		return err
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable; not every file system supports it
		_ = d.Close()
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
