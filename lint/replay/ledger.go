package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
)

// The mutable fields of a ledger row (seed 001 D3; lint/replay/README.md):
// the last applied delta wins for each.
const (
	fStatus = iota
	fOwner
	fReason
	fHeartbeat
	fTimedOut
	fRetry
	nMut
)

var mutFields = [nMut]string{"status", "owner", "reason", "last_heartbeat_at", "timed_out", "retry_after_ms"}

// mutIndex returns the index of a mutable field, or -1.
func mutIndex[S string | []byte](name S) int {
	switch string(name) { // a switch on constants: no loop over the names
	case "status":
		return fStatus
	case "owner":
		return fOwner
	case "reason":
		return fReason
	case "last_heartbeat_at":
		return fHeartbeat
	case "timed_out":
		return fTimedOut
	case "retry_after_ms":
		return fRetry
	}
	return -1
}

// AppliedDeltasField is the top-level member of an emitted ledger that
// records the deltas applied so far: an object delta_id → digest, the digest
// being the first 16 bytes, in lowercase hex, of the SHA-256 of the delta's
// RFC 8785 canonical form. A later replay against that ledger skips those
// deltas as duplicates (D2) and rejects a reuse of their ids with other
// content (RP002); a malformed record is RP008.
const AppliedDeltasField = "x_agentlint_applied_deltas"

// digest identifies a delta's content: the first 16 bytes of the SHA-256 of
// its RFC 8785 canonical form.
type digest [16]byte

func (d digest) String() string { return hex.EncodeToString(d[:]) }

// member is one member of a ledger row: its name and its value, formatted
// (see format).
type member struct {
	name string
	val  []byte
}

// format returns a JSON value in the layout of the emitted ledger: on one
// line, a space after ':' and ',', strings in their minimal escaping,
// numbers as written. It is idempotent.
func format(v []byte) []byte {
	out, err := jsontext.AppendFormat(nil, v, jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true))
	if err != nil {
		// Inputs are validated before they are read; keep the text as is.
		return bytes.Clone(v)
	}
	return out
}

// quote returns s as a formatted JSON string.
func quote(s string) []byte {
	b, _ := jsontext.AppendQuote(nil, s)
	return b
}

// row is one ledger row of BASE, or one created by a create-intent delta.
type row struct {
	taskID  string
	members []member
	// status and owner as in BASE ("" when absent).
	status, owner string
	// deps are the task's dependencies: the row's own dependencies, then
	// those of a handoff's dependencies array; depAt says where each is
	// declared in BASE.
	deps  []string
	depAt []place
	// at is where the row is in BASE (unset for a created row).
	at place
}

// place is a JSON value in an input: the file, the value's JSON Pointer in
// that file (for JSON Lines: in its line) and its span.
type place struct {
	file string
	ptr  string
	span span
}

// violation returns a violation of rule at sub (a pointer relative to the
// place's value) with extra as its details, plus "file".
func (p place) violation(rule, sub, reason string, extra map[string]any) envelope.Violation {
	line, col := p.span.at(sub)
	return envelope.Violation{Rule: rule, Pointer: p.ptr + sub, Line: line, Column: col, Reason: reason, Extra: withFile(extra, p.file)}
}

// setMember sets member name to val, appending it when absent.
func (r *row) setMember(name string, val []byte) {
	for i := range r.members {
		if r.members[i].name == name {
			r.members[i].val = val
			return
		}
	}
	r.members = append(r.members, member{name, val})
}

// parseRow reads one ledger row object (already validated).
func parseRow(text []byte) (*row, error) {
	if r, ok := parseRowFast(text); ok {
		return r, nil
	}
	return parseRowSlow(text)
}

// plainString reports whether v is a JSON string written without escapes:
// it is then its own formatted and RFC 8785 form, and v[1:len(v)-1] the
// string it holds.
func plainString(v []byte) bool {
	return len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0
}

// literal reports whether v is true, false or null.
func literal(v []byte) bool {
	return string(v) == "true" || string(v) == "false" || string(v) == "null"
}

// parseRowFast is parseRow with the shallow scanner for a row whose member
// names have no escapes: a member that is a string without escapes or a
// literal keeps its text (a slice of text, which BASE's rows keep alive
// anyway), any other value is formatted. ok is false for anything else
// (parseRowSlow decides).
func parseRowFast(text []byte) (*row, bool) {
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '{' {
		return nil, false
	}
	r := &row{members: make([]member, 0, 8)}
	i = skipSpace(text, i+1)
	for first := true; ; first = false {
		if i < len(text) && text[i] == '}' {
			return r, skipSpace(text, i+1) == len(text)
		}
		if !first {
			if i >= len(text) || text[i] != ',' {
				return nil, false
			}
			i = skipSpace(text, i+1)
		}
		n, v, next, err := scanMember(text, i)
		if err != nil || bytes.IndexByte(n, '\\') >= 0 {
			return nil, false
		}
		i = next
		m := member{name: string(n[1 : len(n)-1])}
		plain := plainString(v)
		if plain || literal(v) {
			m.val = v[:len(v):len(v)]
		} else {
			m.val = format(v)
		}
		r.members = append(r.members, m)
		str := ""
		if plain {
			str = string(v[1 : len(v)-1])
		} else if v[0] == '"' {
			str = unquote(v)
		}
		switch m.name {
		case "task_id":
			r.taskID = str
		case "status":
			r.status = str
		case "owner":
			r.owner = str
		case "dependencies":
			if json.Unmarshal(v, &r.deps) != nil {
				return nil, false
			}
		}
	}
}

// parseRowSlow is parseRow with a JSON decoder.
func parseRowSlow(text []byte) (*row, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(text))
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, fmt.Errorf("ledger row is not an object")
	}
	r := &row{}
	for dec.PeekKind() == '"' {
		t, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := t.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		m := member{name, format(v)}
		r.members = append(r.members, m)
		switch m.name {
		case "task_id":
			r.taskID = unquote(v)
		case "status":
			r.status = unquote(v)
		case "owner":
			r.owner = unquote(v)
		case "dependencies":
			if err := json.Unmarshal(v, &r.deps); err != nil {
				return nil, errors.New("ledger row dependencies: " + fast.DecodeError(err))
			}
		}
	}
	return r, nil
}

// unquote returns the string a JSON string value holds ("" for any other
// value).
func unquote(v []byte) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// ledger is BASE, read: its rows, locks and the deltas it records as applied.
type ledger struct {
	name  string
	form  Form
	rows  []*row
	index map[string]int
	// tasks is index for the decoding workers (built once BASE is read).
	tasks *taskIndex
	// locks are the active_locks entries (handoff, reconcile), formatted
	// and decoded.
	locks    [][]byte
	lockVals []any
	lockAt   []place
	// applied is x_agentlint_applied_deltas (index -1 for every entry).
	applied *seenTable
}

// rowState is one row as a stream (or the merge) left it: the current status
// and owner, the values of the mutable fields written by deltas (nil: as in
// BASE; each field's buffer is reused by the next delta that writes it) and
// the delta that last wrote each.
type rowState struct {
	status, owner string
	vals          [nMut][]byte
	by            [nMut]origin
}

// origin is an applied delta: its stream (nil: none, the value is BASE's),
// its position in the stream and its entry in the stream's D2 table.
type origin struct {
	stream *stream
	index  int32
	ref    uint32
}

// set reports whether o names a delta.
func (o origin) set() bool { return o.stream != nil }

// deltaID returns the delta's delta_id.
func (o origin) deltaID() string { return o.stream.deltaID(o.ref, int(o.index)) }

// place returns where the delta is in its stream.
func (o origin) place() place {
	return o.stream.deltaPlace(int(o.index), o.stream.lines.get(int(o.index)))
}

// state is a ledger after some deltas: BASE's rows, then the rows created
// by create-intent deltas.
type state struct {
	base    *ledger
	rows    []rowState
	created []*row
	// createdAt is, for each created row, the position in its stream of
	// the delta that created it: created rows are emitted in that order
	// (then by task_id), which does not depend on the order of streams.
	createdAt []int
	index     map[string]int // task_id → row, for created rows
	// applied lists the streams whose applied deltas the resulting
	// ledger records, besides BASE's.
	applied []*stream
}

func newState(b *ledger) *state {
	s := &state{base: b, rows: make([]rowState, len(b.rows)), index: map[string]int{}}
	for i, r := range b.rows {
		s.rows[i].status, s.rows[i].owner = r.status, r.owner
	}
	return s
}

// lookup returns the row index of taskID, or -1 (without allocating).
func (s *state) lookup(taskID []byte) int {
	if i := s.base.tasks.lookup(taskID); i >= 0 {
		return i
	}
	if i, ok := s.index[string(taskID)]; ok {
		return i
	}
	return -1
}

// lookupCreated returns the row index of taskID among the created rows, or
// -1 (without allocating).
func (s *state) lookupCreated(taskID []byte) int {
	if i, ok := s.index[string(taskID)]; ok {
		return i
	}
	return -1
}

// lookupString returns the row index of taskID, or -1.
func (s *state) lookupString(taskID string) int {
	if i, ok := s.base.index[taskID]; ok {
		return i
	}
	if i, ok := s.index[taskID]; ok {
		return i
	}
	return -1
}

// row returns the row (BASE's or created) at index i.
func (s *state) row(i int) *row {
	if i < len(s.base.rows) {
		return s.base.rows[i]
	}
	return s.created[i-len(s.base.rows)]
}

// create adds a row for taskID, created by the delta at position at.
func (s *state) create(taskID string, at int) int {
	i := len(s.rows)
	s.rows = append(s.rows, rowState{})
	s.created = append(s.created, &row{taskID: taskID, members: []member{{"task_id", quote(taskID)}}})
	s.createdAt = append(s.createdAt, at)
	s.index[taskID] = i
	return i
}

// order returns the row indexes in emission order: BASE's rows in BASE's
// order, then created rows by creating position and task_id.
func (s *state) order() []int {
	out := make([]int, 0, len(s.rows))
	for i := range s.base.rows {
		out = append(out, i)
	}
	n := len(s.base.rows)
	created := make([]int, len(s.created))
	for i := range created {
		created[i] = n + i
	}
	slices.SortFunc(created, func(a, b int) int {
		if c := cmp.Compare(s.createdAt[a-n], s.createdAt[b-n]); c != 0 {
			return c
		}
		return cmp.Compare(s.created[a-n].taskID, s.created[b-n].taskID)
	})
	return append(out, created...)
}

// memberRank orders the members of an emitted row: the fields of seed 001's
// ledger rows and deltas first, in this order, then the others by name.
var memberRank = map[string]int{
	"task_id": 1, "title": 2, "status": 3, "owner": 4, "reason": 5, "priority": 6,
	"dependencies": 7, "lock_scope": 8, "timeout_seconds": 9, "heartbeat_interval_seconds": 10,
	"last_heartbeat_at": 11, "timed_out": 12, "retry_after_ms": 13,
}

// rowValue returns row i as the reconciliation rules read it: the value
// json.Unmarshal gives for the row appendRow writes (an object of its
// members, the mutable fields as the deltas left them), built from the
// members' values without writing the row.
func (s *state) rowValue(i int) (map[string]any, error) {
	r, st := s.row(i), &s.rows[i]
	m := make(map[string]any, len(r.members)+nMut)
	var have [nMut]bool
	for _, mb := range r.members {
		v := mb.val
		if k := mutIndex(mb.name); k >= 0 {
			have[k] = true
			if st.vals[k] != nil {
				v = st.vals[k]
			}
		}
		x, err := anyValue(v)
		if err != nil {
			return nil, err
		}
		m[mb.name] = x
	}
	for k := range nMut {
		if !have[k] && st.vals[k] != nil {
			x, err := anyValue(st.vals[k])
			if err != nil {
				return nil, err
			}
			m[mutFields[k]] = x
		}
	}
	return m, nil
}

// anyValue returns the value json.Unmarshal gives for v in an any.
func anyValue(v []byte) (any, error) {
	switch {
	case plainString(v):
		return string(v[1 : len(v)-1]), nil
	case string(v) == "true":
		return true, nil
	case string(v) == "false":
		return false, nil
	case string(v) == "null":
		return nil, nil
	}
	var x any
	err := json.Unmarshal(v, &x)
	return x, err
}

// appendRow appends row i as one JSON object in the emitted layout.
func (s *state) appendRow(dst []byte, i int) []byte {
	r, st := s.row(i), &s.rows[i]
	ms := make([]member, 0, len(r.members)+nMut)
	var have [nMut]bool
	for _, m := range r.members {
		if k := mutIndex(m.name); k >= 0 {
			have[k] = true
			if st.vals[k] != nil {
				m.val = st.vals[k]
			}
		}
		ms = append(ms, m)
	}
	for k := range nMut {
		if !have[k] && st.vals[k] != nil {
			ms = append(ms, member{mutFields[k], st.vals[k]})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		ra, rb := memberRank[a.name], memberRank[b.name]
		if ra == 0 {
			ra = len(memberRank) + 1
		}
		if rb == 0 {
			rb = len(memberRank) + 1
		}
		if c := cmp.Compare(ra, rb); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	dst = append(dst, '{')
	for j, m := range ms {
		if j > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, quote(m.name)...)
		dst = append(dst, ": "...)
		dst = append(dst, m.val...)
	}
	return append(dst, '}')
}

// appliedSet is a list of applied delta_ids and their digests: ids are
// arena[ends[k-1]:ends[k]] (ends[-1] = 0), order lists them sorted, each
// id once.
type appliedSet struct {
	arena []byte
	ends  []int
	dgs   []digest
	order []int32
}

// id returns the delta_id of entry k.
func (a *appliedSet) id(k int32) []byte {
	lo := 0
	if k > 0 {
		lo = a.ends[k-1]
	}
	return a.arena[lo:a.ends[k]]
}

// appliedDeltas returns the delta_ids the resulting ledger records as
// applied (BASE's and the streams'), sorted, each id once, with their
// digests. An id applied by two streams has the same digest in both
// (otherwise RP002 denies the verdict and nothing is written). The ids are
// copied into one arena: about 28 bytes plus the id per applied delta
// while the ledger is written; a stream that can be read again is read
// again for them, in order. The error is a stream's that could not be.
func (s *state) appliedDeltas() (*appliedSet, error) {
	n := s.base.applied.len()
	for _, st := range s.applied {
		n += st.counts.Applied // each applied delta is the first of its id
	}
	a := &appliedSet{ends: make([]int, 0, n), dgs: make([]digest, 0, n)}
	add := func(id []byte, dg digest) {
		a.arena = append(a.arena, id...)
		a.ends = append(a.ends, len(a.arena))
		a.dgs = append(a.dgs, dg)
	}
	s.base.applied.each(func(ref uint32) { add(s.base.applied.id(ref), s.base.applied.digest(ref)) })
	for _, st := range s.applied {
		st.appliedEntries(add)
		if st.err != nil {
			return nil, st.err
		}
	}
	a.order = make([]int32, len(a.ends))
	for k := range a.order {
		a.order[k] = int32(k)
	}
	slices.SortStableFunc(a.order, func(x, y int32) int { return bytes.Compare(a.id(x), a.id(y)) })
	a.order = slices.CompactFunc(a.order, func(x, y int32) bool { return bytes.Equal(a.id(x), a.id(y)) })
	return a, nil
}

// writeTo writes the resulting ledger (see Result.WriteLedger).
func (s *state) writeTo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	list := func(name string, n int, item func(dst []byte, i int) []byte) {
		buf = append(append(append(buf[:0], "  "...), quote(name)...), ": ["...)
		for i := range n {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, "\n    "...)
			buf = item(buf, i)
			if len(buf) > 32<<10 {
				_, _ = bw.Write(buf)
				buf = buf[:0]
			}
		}
		if n > 0 {
			buf = append(buf, "\n  "...)
		}
		buf = append(buf, ']')
		_, _ = bw.Write(buf)
	}
	_, _ = bw.WriteString("{\n")
	order := s.order()
	list("ledger", len(order), func(dst []byte, i int) []byte { return s.appendRow(dst, order[i]) })
	_, _ = bw.WriteString(",\n")
	list("active_locks", len(s.base.locks), func(dst []byte, i int) []byte { return append(dst, s.base.locks[i]...) })
	all, err := s.appliedDeltas()
	if err != nil {
		return err
	}
	if len(all.order) > 0 {
		buf = append(append(append(buf[:0], ",\n  "...), quote(AppliedDeltasField)...), ": {"...)
		for i, k := range all.order {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf, _ = jsontext.AppendQuote(append(buf, "\n    "...), all.id(k))
			buf = append(append(buf, ": "...), strconv.Quote(all.dgs[k].String())...)
			if len(buf) > 32<<10 {
				_, _ = bw.Write(buf)
				buf = buf[:0]
			}
		}
		buf = append(buf, "\n  }"...)
		_, _ = bw.Write(buf)
	}
	_, _ = bw.WriteString("\n}\n")
	return bw.Flush()
}
