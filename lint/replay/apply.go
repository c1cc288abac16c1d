package replay

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/rules"
)

// stream is one STREAM: its input, and the ledger as its deltas leave it.
type stream struct {
	idx  int
	name string
	form Form
	data []byte    // FormOutput: the whole document
	src  io.Reader // FormDeltaLines
	st   *state
	// seen holds every delta_id of the stream (D2); conflicts the other
	// contents seen with an id (rejected, RP002).
	seen      map[string]seen
	conflicts map[string][]digest
	counts    Counts
}

// seen is the first delta of a stream with a given delta_id.
type seen struct {
	digest  digest
	index   int32 // position in the stream
	line    int32 // line (JSON Lines streams)
	applied bool
}

// delta is one decoded ledger delta.
type delta struct {
	taskID, status, owner, deltaID string
	// vals are the formatted values of the mutable fields it carries.
	vals   [nMut][]byte
	digest digest
}

// deltaDecoder decodes deltas; it reuses its buffers.
type deltaDecoder struct {
	rd    bytes.Reader
	dec   *jsontext.Decoder
	canon jsontext.Value
}

func newDeltaDecoder() *deltaDecoder {
	d := &deltaDecoder{}
	d.dec = jsontext.NewDecoder(&d.rd)
	return d
}

// errTrailing: a JSON Lines record holds more than one JSON value.
var errTrailing = errors.New("a JSON Lines record must be one JSON value")

// decode reads one delta (already validated against the schema).
func (dd *deltaDecoder) decode(raw []byte) (delta, error) {
	var d delta
	dd.rd.Reset(raw)
	dd.dec.Reset(&dd.rd)
	if _, err := dd.dec.ReadToken(); err != nil {
		return d, err
	}
	for dd.dec.PeekKind() == '"' {
		t, err := dd.dec.ReadToken()
		if err != nil {
			return d, err
		}
		n := t.String()
		v, err := dd.dec.ReadValue()
		if err != nil {
			return d, err
		}
		k := mutIndex(n)
		switch {
		case n == "task_id":
			d.taskID = unquote(v)
		case n == "delta_id":
			d.deltaID = unquote(v)
		case k == fStatus:
			d.status = unquote(v)
		case k == fOwner:
			d.owner = unquote(v)
		}
		if k >= 0 {
			d.vals[k] = format(v)
		}
	}
	if _, err := dd.dec.ReadToken(); err != nil {
		return d, err
	}
	if _, err := dd.dec.ReadToken(); err != io.EOF {
		return d, errTrailing
	}
	dd.canon = append(dd.canon[:0], raw...)
	if err := dd.canon.Canonicalize(); err != nil {
		return d, err
	}
	sum := sha256.Sum256(dd.canon)
	copy(d.digest[:], sum[:])
	return d, nil
}

// deltaWrapper turns one JSON Lines delta into an orchestrator output, so
// that it is validated by that kind's schema (the #Delta definition).
const (
	deltaPrefix = `{"ledger_delta":[`
	deltaSuffix = `],"schema_version":"1.0.0","run_id":"00000000-0000-4000-8000-000000000000","assignments":[],"active_locks":[],"blockers":[],"next_actions":[]}`
)

// replayStream validates a stream and, while every input so far is valid,
// applies its deltas to its own copy of BASE.
func (r *run) replayStream(s *stream) error {
	s.st = newState(r.base)
	dd := newDeltaDecoder()
	if s.form == FormOutput {
		vs, doc := r.validator.Document(string(FormOutput), s.name, s.data)
		r.addInput(s.name, vs)
		if doc == nil || envelope.HasErrors(vs) || r.invalid {
			return nil
		}
		data := bytes.TrimPrefix(s.data, bom)
		return r.eachOutputDelta(data, func(i int, raw []byte, at place) {
			r.apply(s, dd, i, raw, at)
		})
	}
	lr := lint.NewLineReader(s.src)
	wrap := []byte(deltaPrefix)
	index := 0
	for {
		text, line, crlf, tooLong, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &InputError{s.name, "cannot read: " + err.Error()}
		}
		var pre []envelope.Violation
		if tooLong {
			r.addInput(s.name, r.fillAll([]envelope.Violation{{Rule: "AL009", Line: line, Column: 1, Reason: "line longer than 64 MiB skipped"}}))
			continue
		}
		if line == 1 {
			text, pre = stripBOM(text)
		}
		if crlf {
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: line, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
		}
		if len(bytes.TrimSpace(text)) == 0 {
			if r.opts.Strict {
				pre = append(pre, envelope.Violation{Rule: "AL008", Line: line, Column: 1, Reason: "blank line (strict mode)"})
			}
			r.addInput(s.name, r.fillAll(pre))
			continue
		}
		r.addInput(s.name, r.fillAll(pre))
		wrap = append(append(wrap[:len(deltaPrefix)], text...), deltaSuffix...)
		vs := r.engine.Schema(string(FormOutput), wrap, line, r.opts.Strict)
		if len(vs) > 0 {
			vs = r.fillAll(append([]envelope.Violation(nil), vs...))
			if vs[0].Parse {
				// Report the syntax error of the line itself, not of the wrapper.
				vs = r.fillAll(append([]envelope.Violation(nil), r.engine.Schema(string(FormOutput), text, line, false)...))
				vs = slices.DeleteFunc(vs, func(v envelope.Violation) bool { return !v.Parse })
			}
			for i := range vs {
				unwrapDelta(&vs[i], len(text))
			}
			r.addInput(s.name, vs)
			if envelope.HasErrors(vs) {
				index++
				continue
			}
		}
		if !r.invalid {
			r.apply(s, dd, index, text, place{s.name, "", span{text, line, 1}})
		}
		index++
	}
}

// unwrapDelta maps a violation found in the delta wrapper back onto the
// line: the pointer loses "/ledger_delta/0", the column the prefix width
// (clamped to the line). A violation outside the wrapped delta means the
// line is not one JSON object: AL001.
func unwrapDelta(v *envelope.Violation, width int) {
	const p = "/ledger_delta/0"
	rest, ok := strings.CutPrefix(v.Pointer, p)
	switch {
	case v.Parse:
	case ok && (rest == "" || rest[0] == '/'):
		v.Pointer = rest
	default:
		*v = envelope.Violation{Code: envelope.SchemaInvalid, Rule: fast.RuleSyntax, Line: v.Line, Column: 1, Parse: true,
			Severity: envelope.SeverityError, Reason: "invalid JSON: " + errTrailing.Error()}
		return
	}
	if !v.Parse {
		v.Column = min(max(1, v.Column-len(deltaPrefix)), width+1)
	}
}

// eachOutputDelta calls fn for every entry of an orchestrator output's
// ledger_delta, in order, with its text and place.
func (r *run) eachOutputDelta(data []byte, fn func(i int, raw []byte, at place)) error {
	dec, lc := jsontext.NewDecoder(bytes.NewReader(data)), newLineCounter(data, 1)
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() == '"' {
		t, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if t.String() != "ledger_delta" {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		return r.readArray(data, dec, lc, func(k int, v []byte, at span) error {
			fn(k, v, place{"", "/ledger_delta/" + strconv.Itoa(k), at})
			return nil
		})
	}
	return nil
}

// extraOf returns the details every violation about a delta carries.
func extraOf(s *stream, index int, d *delta) map[string]any {
	return map[string]any{"stream": s.name, "delta_index": index, "delta_id": d.deltaID, "task_id": d.taskID}
}

// apply applies one delta of stream s at position index (D1-D4 and the task
// state machine).
func (r *run) apply(s *stream, dd *deltaDecoder, index int, raw []byte, at place) {
	at.file = s.name
	d, err := dd.decode(raw)
	if err != nil {
		r.addInput(s.name, r.fillAll([]envelope.Violation{{Rule: fast.RuleSyntax, Line: at.span.line, Column: at.span.col, Parse: true,
			Pointer: at.ptr, Reason: "invalid JSON: " + err.Error()}}))
		return
	}
	s.counts.Deltas++
	reject := func(v envelope.Violation) {
		r.report(v)
		s.counts.Rejected++
	}

	// D2: a delta_id seen before.
	e, ok := s.seen[d.deltaID]
	fromBase := false
	if !ok {
		if dg, inBase := r.base.applied[d.deltaID]; inBase {
			e, ok, fromBase = seen{digest: dg, index: -1, applied: true}, true, true
		}
	}
	if ok {
		if e.digest == d.digest || slices.Contains(s.conflicts[d.deltaID], d.digest) {
			s.counts.SkippedDuplicates++
			return
		}
		s.conflicts[d.deltaID] = append(s.conflicts[d.deltaID], d.digest)
		extra := extraOf(s, index, &d)
		where := fmt.Sprintf("delta %d of this stream", e.index)
		if fromBase {
			where = "a delta BASE records as applied (" + AppliedDeltasField + ")"
		} else {
			extra["first_delta_index"] = int(e.index)
		}
		reject(at.violation("RP002", "/delta_id", fmt.Sprintf("delta %d reuses delta_id %q of %s with different content (D2)", index, d.deltaID, where), extra))
		return
	}
	s.seen[d.deltaID] = seen{digest: d.digest, index: int32(index), line: int32(at.span.line)}

	st := s.st
	i := st.lookup(d.taskID)
	if i < 0 {
		// D4: only a create-intent delta (status todo) may name a new task.
		if d.status != "todo" {
			extra := extraOf(s, index, &d)
			extra["status"] = d.status
			reject(at.violation("RP001", "/task_id", fmt.Sprintf(
				"delta %d (%s) names task %s, which is not in the ledger, with status %s: only a create-intent delta (status todo) may add a task (D4)",
				index, d.deltaID, d.taskID, d.status), extra))
			return
		}
		i = st.create(d.taskID, index)
		r.set(s, i, index, &d, at)
		return
	}

	cur := &st.rows[i]
	extra := func() map[string]any {
		x := extraOf(s, index, &d)
		x["from"], x["to"] = cur.status, d.status
		return x
	}
	switch rules.CheckStep(cur.status, cur.owner, d.status, d.owner) {
	case rules.StepForbidden:
		why := "which the task state machine forbids"
		if rules.IsTerminal(cur.status) {
			why = fmt.Sprintf("but a %s task is terminal: it never leaves %s", cur.status, cur.status)
		}
		reject(at.violation("RP003", "/status", fmt.Sprintf("delta %d (%s) moves task %s from %s to %s, %s",
			index, d.deltaID, d.taskID, cur.status, d.status, why), extra()))
		return
	case rules.StepTerminalOwnerChange:
		x := extra()
		x["from_owner"], x["to_owner"] = cur.owner, d.owner
		reject(at.violation("RP004", "/owner", fmt.Sprintf("delta %d (%s) changes the owner of task %s from %q to %q although the task is %s: a terminal task's owner must not change",
			index, d.deltaID, d.taskID, cur.owner, d.owner, cur.status), x))
		return
	}
	if d.status == "in_progress" && cur.status != "in_progress" {
		var vs []envelope.Violation
		if strings.TrimSpace(d.owner) == "" {
			vs = append(vs, at.violation("RP005", "/owner", fmt.Sprintf("delta %d (%s) moves task %s from %s to in_progress without an owner",
				index, d.deltaID, d.taskID, cur.status), extra()))
		}
		var unmet []string
		var names []string
		for _, dep := range st.row(i).deps {
			status := "absent from the ledger"
			if j := st.lookup(dep); j >= 0 {
				status = st.rows[j].status
			}
			if status != "done" {
				unmet = append(unmet, dep)
				names = append(names, dep+" ("+status+")")
			}
		}
		if len(unmet) > 0 {
			x := extra()
			x["unmet_dependencies"] = unmet
			vs = append(vs, at.violation("RP006", "/status", fmt.Sprintf("delta %d (%s) moves task %s to in_progress while its dependencies are not done: %s",
				index, d.deltaID, d.taskID, strings.Join(names, ", ")), x))
		}
		if len(vs) > 0 {
			for _, v := range vs {
				r.report(v)
			}
			s.counts.Rejected++
			return
		}
	}
	r.set(s, i, index, &d, at)
}

// set applies delta d to row i of stream s (D3): every mutable field it
// carries replaces the row's value.
func (r *run) set(s *stream, i, index int, d *delta, at place) {
	if s.form == FormDeltaLines {
		at.span.text = nil // the line buffer is reused
	}
	o := &origin{stream: s, index: index, deltaID: d.deltaID, at: at}
	cur := &s.st.rows[i]
	for k := range nMut {
		if d.vals[k] != nil {
			cur.vals[k], cur.by[k] = d.vals[k], o
		}
	}
	cur.status, cur.owner = d.status, d.owner
	e := s.seen[d.deltaID]
	e.applied = true
	s.seen[d.deltaID] = e
	s.counts.Applied++
}
