package replay

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// Form is how an input is written. BASE: FormHandoff, FormReconcile,
// FormRowArray or FormRowLines; STREAM: FormOutput or FormDeltaLines.
type Form string

// The input forms (lint/replay/README.md), detected from the content
// (cue/README.md, "Detection": sniffing; a first line that is one JSON value
// and no known kind means JSON Lines).
const (
	FormHandoff    Form = "operator/handoff"             // a handoff bundle: ledger, active_locks, dependencies
	FormReconcile  Form = "operator/reconcile"           // {"ledger": [...], "active_locks": [...]}: what WriteLedger writes
	FormRowArray   Form = "ledger-rows/json"             // a JSON array of ledger rows
	FormRowLines   Form = "ledger-rows/jsonl"            // JSON Lines, one ledger row per line
	FormOutput     Form = "operator/orchestrator-output" // its ledger_delta, in order
	FormDeltaLines Form = "ledger-deltas/jsonl"          // JSON Lines, one delta per line
)

var bom = []byte("\ufeff")

// firstLine returns the first line of data that holds more than white
// space, without its line ending ("" when there is none).
func firstLine(data []byte) []byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return bytes.TrimRight(data, " \t\r")
}

// oneValue reports whether b is exactly one JSON value.
func oneValue(b []byte) bool { return len(b) > 0 && jsontext.Value(b).IsValid() }

// hasLedger reports whether data is a JSON object with a "ledger" member.
func hasLedger(data []byte) bool {
	var v struct {
		Ledger jsontext.Value `json:"ledger"`
	}
	return json.Unmarshal(data, &v) == nil && v.Ledger != nil
}

// baseForm detects the form of BASE (BOM already removed, not blank).
func baseForm(name string, data []byte) (Form, error) {
	if bytes.TrimLeft(data, " \t\r\n")[0] == '[' {
		return FormRowArray, nil
	}
	// One value on the first line: a one-line document or JSON Lines;
	// otherwise a pretty-printed document (or broken JSON Lines).
	head := firstLine(data)
	if !oneValue(head) {
		head = data
	}
	k := kind.Sniff(head)
	switch {
	case k == nil && hasLedger(head):
		return FormReconcile, nil
	case k == nil:
		return FormRowLines, nil
	case k.Name == string(FormHandoff) || k.Name == string(FormReconcile):
		return Form(k.Name), nil
	}
	return "", &InputError{name, fmt.Sprintf("is an %s; --ledger takes a handoff bundle, a reconcile document (ledger + active_locks) or ledger rows (a JSON array or JSON Lines)", k.Name)}
}

// readAll reads an input; a read error is an *InputError.
func readAll(in Input) ([]byte, error) {
	data, err := io.ReadAll(in.R)
	if err != nil {
		return nil, &InputError{in.Name, "cannot read: " + err.Error()}
	}
	return data, nil
}

// stripBOM removes a UTF-8 byte-order mark and returns the AL006 warning it
// is worth (cue/README.md).
func stripBOM(data []byte) ([]byte, []envelope.Violation) {
	if !bytes.HasPrefix(data, bom) {
		return data, nil
	}
	return data[len(bom):], []envelope.Violation{{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"}}
}

// fillAll fills codes and severities and drops rules switched off.
func (r *run) fillAll(vs []envelope.Violation) []envelope.Violation { return r.validator.Fill(vs) }

// readBase reads, validates and (when valid) parses BASE. An invalid BASE
// gives an empty ledger and stops the replay.
func (r *run) readBase(in Input) (*ledger, error) {
	data, err := readAll(in)
	if err != nil {
		return nil, err
	}
	l := &ledger{name: in.Name, index: map[string]int{}, applied: newSeenTable(r.hashID)}
	data, pre := stripBOM(data)
	if len(bytes.TrimSpace(data)) == 0 {
		pre = append(pre, envelope.Violation{Rule: "AL005", Line: 1, Column: 1, Reason: "empty payload: --ledger needs a ledger"})
		r.addInput(in.Name, r.fillAll(pre))
		return l, nil
	}
	if l.form, err = baseForm(in.Name, data); err != nil {
		return nil, err
	}
	vs := r.validateBase(in.Name, l.form, data)
	r.addInput(in.Name, r.fillAll(pre))
	r.addInput(in.Name, vs)
	if envelope.HasErrors(vs) {
		return l, nil
	}
	if err := r.parseBase(l, data); err != nil {
		return nil, &InputError{in.Name, fast.DecodeError(err)}
	}
	return l, nil
}

// Wrappers that turn ledger rows into an operator/reconcile document, so
// that they are validated by that kind's schema and document rules.
const (
	rowArrayPrefix = `{"ledger":`
	rowLinesPrefix = `{"ledger":[`
)

// validateBase validates BASE as its kind; rows are validated as the rows of
// an operator/reconcile document and the violations mapped back onto the
// rows (pointers without "/ledger", columns of line 1 without the wrapper).
func (r *run) validateBase(name string, form Form, data []byte) []envelope.Violation {
	switch form {
	case FormHandoff, FormReconcile:
		vs := r.validator.DocumentViolations(string(form), name, data)
		return append([]envelope.Violation(nil), vs...)
	case FormRowArray:
		w := append(append([]byte(rowArrayPrefix), data...), '}')
		vs := r.validator.DocumentViolations(string(FormReconcile), name, w)
		out := append([]envelope.Violation(nil), vs...)
		for i := range out {
			unwrap(&out[i], "/ledger", len(rowArrayPrefix))
		}
		return out
	}
	// JSON Lines: every record on its own line of the wrapper, a comma
	// after each record but the last, blank lines kept.
	lines := bytes.Split(data, []byte{'\n'})
	last := -1
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			last = i
		}
	}
	var pre []envelope.Violation
	w := append(make([]byte, 0, len(rowLinesPrefix)+len(data)+len(lines)+2), rowLinesPrefix...)
	for i, l := range lines {
		if i > 0 {
			w = append(w, '\n')
		}
		if bytes.HasSuffix(l, []byte{'\r'}) {
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: i + 1, Column: len(l), Reason: "CRLF line ending (use LF)"})
		}
		if len(bytes.TrimSpace(l)) == 0 {
			if r.opts.Strict && i < len(lines)-1 {
				pre = append(pre, envelope.Violation{Rule: "AL008", Line: i + 1, Column: 1, Reason: "blank line (strict mode)"})
			}
			continue
		}
		w = append(w, l...)
		if i < last {
			w = append(w, ',')
		}
	}
	w = append(w, "]}"...)
	vs := r.validator.DocumentViolations(string(FormReconcile), name, w)
	out := append([]envelope.Violation(nil), vs...)
	for i := range out {
		unwrap(&out[i], "/ledger/", len(rowLinesPrefix))
	}
	return append(out, r.fillAll(pre)...)
}

// cutRecordIndex removes a leading "/N" (N decimal digits) from a pointer.
// (No regular expression: nothing is compiled at start-up.)
func cutRecordIndex(p string) string {
	if len(p) < 2 || p[0] != '/' || p[1] < '0' || p[1] > '9' {
		return p
	}
	i := 1
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	return p[i:]
}

// unwrap maps a violation found in a wrapper back onto the wrapped text:
// the wrapper's pointer prefix goes (for JSON Lines also the record index:
// the line says which record), and columns of line 1 lose the prefix width.
func unwrap(v *envelope.Violation, prefix string, width int) {
	if p, ok := strings.CutPrefix(v.Pointer, strings.TrimSuffix(prefix, "/")); ok {
		if strings.HasSuffix(prefix, "/") {
			p = cutRecordIndex(p)
		}
		v.Pointer = p
	}
	if v.Line == 1 && v.Column > 0 {
		v.Column = max(1, v.Column-width)
	}
}

// parseBase reads the rows, locks, dependencies and applied deltas of a
// valid BASE.
func (r *run) parseBase(l *ledger, data []byte) error {
	switch l.form {
	case FormRowLines:
		line := 0
		for text := range bytes.SplitSeq(data, []byte{'\n'}) {
			line++
			text = bytes.TrimRight(text, " \t\r")
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			if err := r.addRow(l, text, place{l.name, "", span{text, line, 1}}); err != nil {
				return err
			}
		}
		return r.foldDependencies(l, nil)
	case FormRowArray:
		dec, lc := jsontext.NewDecoder(bytes.NewReader(data)), newLineCounter(data, 1)
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		if err := r.readRows(l, data, dec, lc, ""); err != nil {
			return err
		}
		return r.trailing(l.name, data, dec)
	}
	dec, lc := jsontext.NewDecoder(bytes.NewReader(data)), newLineCounter(data, 1)
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var edges []depEdge
	for dec.PeekKind() == '"' {
		t, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := t.String()
		switch {
		case name == "ledger":
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			err = r.readRows(l, data, dec, lc, "/ledger")
		case name == "active_locks":
			err = r.readArray(data, dec, lc, func(k int, v []byte, at span) error {
				var val any
				if err := json.Unmarshal(v, &val); err != nil {
					return err
				}
				l.locks = append(l.locks, format(v))
				l.lockVals = append(l.lockVals, val)
				l.lockAt = append(l.lockAt, place{l.name, "/active_locks/" + strconv.Itoa(k), at})
				return nil
			})
		case name == "dependencies" && l.form == FormHandoff:
			err = r.readArray(data, dec, lc, func(k int, v []byte, at span) error {
				var e struct {
					TaskID string `json:"task_id"`
					Dep    string `json:"depends_on_task_id"`
				}
				if err := json.Unmarshal(v, &e); err != nil {
					return err
				}
				edges = append(edges, depEdge{e.TaskID, e.Dep, place{l.name, "/dependencies/" + strconv.Itoa(k), at}})
				return nil
			})
		case name == AppliedDeltasField:
			start := valueStart(data, int(dec.InputOffset()))
			if err := dec.SkipValue(); err != nil {
				return err
			}
			v := data[start:dec.InputOffset()]
			line, col := lc.pos(start)
			r.readApplied(l, v, place{l.name, "/" + AppliedDeltasField, span{v, line, col}})
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	return r.foldDependencies(l, edges)
}

// depEdge is one entry of a handoff's dependencies array.
type depEdge struct {
	task, dep string
	at        place
}

// readRows reads the elements of a JSON array of rows (the '[' is read)
// whose pointer is ptr.
func (r *run) readRows(l *ledger, data []byte, dec *jsontext.Decoder, lc *lineCounter, ptr string) error {
	for dec.PeekKind() != ']' {
		start := valueStart(data, int(dec.InputOffset()))
		if err := dec.SkipValue(); err != nil {
			return err
		}
		v := data[start:dec.InputOffset()] // stable, unlike ReadValue's result
		line, col := lc.pos(start)
		if err := r.addRow(l, v, place{l.name, ptr + "/" + strconv.Itoa(len(l.rows)), span{v, line, col}}); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// readArray calls fn for each element of the array value that dec reads next.
func (r *run) readArray(data []byte, dec *jsontext.Decoder, lc *lineCounter, fn func(k int, v []byte, at span) error) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for k := 0; dec.PeekKind() != ']'; k++ {
		start := valueStart(data, int(dec.InputOffset()))
		if err := dec.SkipValue(); err != nil {
			return err
		}
		v := data[start:dec.InputOffset()] // stable, unlike ReadValue's result
		line, col := lc.pos(start)
		if err := fn(k, v, span{v, line, col}); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// trailing reports data after the value dec has read (the rows of a JSON
// array must be the whole file) as AL001.
func (r *run) trailing(file string, data []byte, dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err == io.EOF {
		return nil
	}
	off := valueStart(data, int(dec.InputOffset()))
	line, col := record.LineCol(data, int64(off), 1)
	r.addInput(file, r.fillAll([]envelope.Violation{{Rule: fast.RuleSyntax, Line: line, Column: col, Parse: true,
		Reason: "invalid JSON: unexpected data after the top-level value"}}))
	return nil
}

// addRow parses one row and adds it to the ledger; a JSON Lines record
// holding more than one value is AL001.
func (r *run) addRow(l *ledger, text []byte, at place) error {
	if at.ptr == "" && !oneValue(text) {
		r.addInput(l.name, r.fillAll([]envelope.Violation{{Rule: fast.RuleSyntax, Line: at.span.line, Column: 1, Parse: true,
			Reason: "invalid JSON: a JSON Lines record must be one JSON value"}}))
		return nil
	}
	row, err := parseRow(text)
	if err != nil {
		return err
	}
	row.at = at
	if _, dup := l.index[row.taskID]; !dup {
		l.index[row.taskID] = len(l.rows)
	}
	l.rows = append(l.rows, row)
	return nil
}

// foldDependencies adds the edges of a handoff's dependencies array to the
// rows' own dependencies (the resulting ledger keeps one form: per-row
// dependencies), and records where each dependency is declared.
func (r *run) foldDependencies(l *ledger, edges []depEdge) error {
	for _, row := range l.rows {
		for k := range row.deps {
			row.depAt = append(row.depAt, place{row.at.file, row.at.ptr + "/dependencies/" + strconv.Itoa(k), row.at.span})
		}
	}
	for _, e := range edges {
		i, ok := l.index[e.task]
		if !ok {
			continue // OP052 reported it
		}
		row := l.rows[i]
		if slices.Contains(row.deps, e.dep) {
			continue
		}
		row.deps = append(row.deps, e.dep)
		row.depAt = append(row.depAt, e.at)
		b, err := json.Marshal(row.deps)
		if err != nil {
			return err
		}
		row.setMember("dependencies", format(b))
	}
	return nil
}

// isHexDigest reports whether s is 32 lowercase hexadecimal digits.
func isHexDigest(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// readApplied reads x_agentlint_applied_deltas: an object delta_id →
// digest (32 lowercase hex digits); anything else is RP008.
func (r *run) readApplied(l *ledger, v []byte, at place) {
	bad := func(sub, reason string) {
		r.addInput(l.name, r.fillAll([]envelope.Violation{at.violation("RP008", sub, reason, nil)}))
	}
	var m map[string]jsontext.Value
	if err := json.Unmarshal(v, &m); err != nil {
		bad("", AppliedDeltasField+" must be an object mapping each applied delta_id to its digest")
		return
	}
	for id, d := range m {
		var s string
		if json.Unmarshal(d, &s) != nil || !isHexDigest(s) {
			bad("/"+escapePtr(id), fmt.Sprintf("%s[%q] must be a digest of 32 lowercase hexadecimal digits", AppliedDeltasField, id))
			continue
		}
		var dg digest
		_, _ = hex.Decode(dg[:], []byte(s))
		l.applied.put([]byte(id), dg, -1)
	}
}

func escapePtr(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// openStream detects a stream's form from its first record: a JSON Lines
// file of deltas, or an orchestrator output (read whole), and chooses its
// D2 record: a stream held whole or a regular file (seekable) is read
// again to confirm a repeat; any other keeps every id and digest.
func (r *run) openStream(i int, in Input) (*stream, error) {
	s := &stream{num: i, name: in.Name, conflicts: map[string][]digest{}, hash: r.hashID}
	ra, start, canReread := seekable(in.R)
	br := bufio.NewReaderSize(in.R, 64<<10)
	head, complete, err := peekFirstRecord(br)
	if err != nil {
		return nil, &InputError{in.Name, "cannot read: " + err.Error()}
	}
	var data []byte
	if !complete {
		if data, err = readAll(Input{in.Name, br}); err != nil {
			return nil, err
		}
		head = bytes.TrimPrefix(data, bom)
	}
	switch k := kind.Sniff(head); {
	case k != nil && k.Name == string(FormOutput):
		s.form = FormOutput
		if data == nil {
			if data, err = readAll(Input{in.Name, br}); err != nil {
				return nil, err
			}
		}
		s.data = data
		s.rr = &rereader{data: bytes.TrimPrefix(data, bom)}
	case k != nil:
		return nil, &InputError{in.Name, fmt.Sprintf("is an %s; a stream is an orchestrator output or JSON Lines of ledger deltas", k.Name)}
	default:
		s.form = FormDeltaLines
		s.src, s.start = br, start
		switch {
		case data != nil:
			s.src, s.start = bytes.NewReader(data), 0
			s.rr = &rereader{data: data, lines: true}
		case canReread:
			s.rr = &rereader{ra: ra, lines: true}
		}
	}
	if s.rr == nil || r.opts.noReread {
		s.rr, s.seen = nil, newSeenTable(r.hashID)
		return s, nil
	}
	s.reread, s.idx = true, &hashIndex{}
	s.rdd, s.cdd = newDeltaDecoder(false, nil, nil), newDeltaDecoder(true, nil, nil)
	return s, nil
}

// peekFirstRecord returns the first line of br that holds more than white
// space (a byte-order mark removed) without consuming it; complete is false
// when that line is not one JSON value (a pretty-printed document, broken
// JSON Lines, or a first line longer than br's buffer).
func peekFirstRecord(br *bufio.Reader) (head []byte, complete bool, err error) {
	for n := 4096; ; n *= 2 {
		n = min(n, br.Size())
		b, err := br.Peek(n)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, false, err
		}
		t := bytes.TrimLeft(bytes.TrimPrefix(b, bom), " \t\r\n")
		if bytes.IndexByte(t, '\n') >= 0 || err != nil || n == br.Size() {
			line := firstLine(t)
			return line, len(line) == 0 || oneValue(line), nil
		}
	}
}
