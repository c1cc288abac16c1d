package fast

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
)

// JSONType is a bit set of JSON value types, shared by the schema compiler
// (lint/schema) and the generated validators. Int is a number written
// without fraction or exponent (cue/README.md: 1200.0 is not an integer);
// Float one written with them.
type JSONType uint8

// The JSON value types; KNumber is either kind of number, KAny every type.
const (
	KString JSONType = 1 << iota
	KInt
	KFloat
	KBool
	KNull
	KObject
	KArray

	KNumber = KInt | KFloat
	KAny    = KString | KNumber | KBool | KNull | KObject | KArray
)

// String names the types in t, e.g. "string|null"; KAny is "any".
func (t JSONType) String() string {
	if t == KAny {
		return "any"
	}
	var parts []string
	for _, p := range []struct {
		t JSONType
		n string
	}{{KString, "string"}, {KNumber, "number"}, {KInt, "integer"}, {KFloat, "float"}, {KBool, "boolean"}, {KNull, "null"}, {KObject, "object"}, {KArray, "array"}} {
		if t&p.t == p.t {
			parts = append(parts, p.n)
			t &^= p.t
		}
	}
	return strings.Join(parts, "|")
}

// Generic rule IDs used by the runtime (defined in rules.Registry).
const (
	RuleSyntax   = "AL001" // not well-formed JSON (SCHEMA_INVALID)
	RuleRequired = "AL002" // required field absent or null (MISSING_REQUIRED_INPUT)
	RuleValue    = "AL003" // wrong type, enum, pattern, bound (SCHEMA_INVALID)
	RuleUnknown  = "AL004" // unknown field in strict mode (SCHEMA_INVALID)
)

// MaxDepth is the deepest nesting of arrays and objects a document may have;
// deeper input is a syntax violation with a clear reason, never a stack
// overflow. It is the limit jsontext itself enforces on the values the
// validators skip (x_ members, open objects), so one limit holds everywhere.
const MaxDepth = 10000

// Regex is a regular expression compiled on first use (start-up stays cheap).
type Regex struct {
	Src string
	// Desc says what a match is ("an RFC 3339 date-time ..."), from the
	// @desc attribute of the CUE definition; "" prints Src in reasons.
	Desc   string
	once   sync.Once
	re     *regexp.Regexp
	native func([]byte) bool // Natives[Src], when there is one
}

// mismatch is the reason for a string s that does not match r.
func (r *Regex) mismatch(s []byte) string {
	if r.Desc != "" {
		return strconv.Quote(clip(s)) + " is not " + r.Desc
	}
	return strconv.Quote(clip(s)) + " does not match " + r.Src
}

// Match reports whether b matches. The regex dialect is RE2, the same as
// CUE's =~ operator, so both engines agree by construction; a pattern of
// Natives is matched by its hand-written equivalent instead.
func (r *Regex) Match(b []byte) bool {
	r.once.Do(func() {
		if r.native = Natives[r.Src]; r.native == nil {
			r.re = regexp.MustCompile(r.Src)
		}
	})
	if r.native != nil {
		return r.native(b)
	}
	return r.re.Match(b)
}

// Bound is a numeric bound with a literal limit: Num is Lit (a JSON number
// literal) rounded to float64; comparisons are exact (see CompareNumbers).
type Bound struct {
	Op  string // ">=", ">", "<=", "<"
	Num float64
	Lit string
}

// Holds reports whether the number x, whose JSON literal is raw, satisfies
// the bound, comparing exactly: 1.0000000000000001 does not satisfy <=1.
func (b *Bound) Holds(x float64, raw []byte) bool {
	return holdsCmp(b.Op, compareExact(x, b.Num, raw, b.Lit))
}

// Leaf describes the constraints of one value that the runtime checks
// directly: allowed kinds, enum, patterns, code-point lengths, literal bounds
// and list lengths. Unset limits are -1. Rule is reported for violations of
// the value; EmptyRule (if set) for an empty string or empty list; NullRule
// (if set) for null in a required field instead of RuleRequired; RestRule
// (if set) for the violations of a string that matches the first pattern.
type Leaf struct {
	Kinds     JSONType
	Enum      []string
	Patterns  []*Regex
	MinRunes  int
	MaxRunes  int
	Bounds    []Bound
	MinItems  int
	MaxItems  int
	Rule      string
	EmptyRule string
	NullRule  string
	RestRule  string
	// Required marks a required field: null is then "absent or null".
	Required bool
}

type seg struct {
	name string
	idx  int // -1 for a member name
}

type syntaxAbort struct{}

// Dec is one validation run over one JSON text (a JSON Lines record or a
// whole document). It is reusable: Reset it for every record.
type Dec struct {
	d       *jsontext.Decoder // the slow path (see scanner)
	rd      bytes.Reader
	sc      scanner
	slow    bool   // this run reads with d, not sc
	in      []byte // the JSON text of this run (buf, or a span of it)
	buf     []byte
	offBase int64 // offset of the decoder's input within buf
	line1   int   // line number of buf[0]
	path    []seg
	scratch []byte
	scan    []byte // unquoted strings of the Conds pre-scan
	// Strict rejects unknown fields that are not x_ extensions (seed 001
	// "Extension Policy", cue/README.md).
	Strict bool
	// Out collects the violations of the current run.
	Out []envelope.Violation
	sub *Dec
	// last is the absolute byte range of the last scalar read by Value.
	last Span
}

// NewDec returns a decoder ready for Reset.
func NewDec() *Dec {
	d := &Dec{}
	d.d = jsontext.NewDecoder(&d.rd)
	return d
}

// Reset prepares d for one JSON text buf whose first byte is on line line1.
func (d *Dec) Reset(buf []byte, line1 int) {
	d.buf = buf
	d.offBase = 0
	d.line1 = line1
	d.path = d.path[:0]
	d.Out = d.Out[:0]
	d.in = buf
	d.slow = false
	d.sc.reset(buf)
}

// Validate runs fn over the JSON text and then requires the end of input
// (trailing garbage is a syntax violation). A syntax error anywhere replaces
// the violations found so far with one AL001 violation: the reason names the
// problem and its position.
//
// The run reads with the optimistic scanner first; when the scanner does
// not accept the text, the run starts again over jsontext (the slow path),
// so the violations, syntax or not, are always those of jsontext's reading.
func (d *Dec) Validate(fn func(*Dec)) {
	n0, o0 := len(d.path), len(d.Out)
	if !d.slow && d.run(fn) {
		return
	}
	d.path, d.Out = d.path[:n0], d.Out[:o0]
	d.slow = true
	d.rd.Reset(d.in)
	d.d.Reset(&d.rd)
	d.run(fn)
}

// run runs fn once; false means the scanner bailed out.
func (d *Dec) run(fn func(*Dec)) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case syntaxAbort:
				ok = true
			case scanBail:
				ok = false
			default:
				panic(r)
			}
		}
	}()
	fn(d)
	if !d.slow {
		if d.sc.next() >= 0 {
			bail()
		}
		return true
	}
	if _, err := d.d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the top-level value")
		}
		d.syntax(err)
	}
	return true
}

// syntax records a syntax error and aborts the run.
func (d *Dec) syntax(err error) {
	off := d.d.InputOffset()
	msg := DecodeError(err)
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
		msg = se.Err.Error()
		if strings.Contains(msg, "max depth") || strings.Contains(msg, "nesting") {
			msg = fmt.Sprintf("nesting deeper than %d levels", MaxDepth)
		}
	} else if err == io.ErrUnexpectedEOF || err == io.EOF {
		msg = "unexpected end of input"
		off = int64(len(d.buf)) - d.offBase
	}
	msg = strings.TrimPrefix(msg, "jsontext: ")
	d.Out = d.Out[:0]
	line, col := d.pos(off + d.offBase)
	d.Out = append(d.Out, envelope.Violation{
		Rule: RuleSyntax, Line: line, Column: col, Parse: true,
		Reason: "invalid JSON: " + msg,
	})
	panic(syntaxAbort{})
}

// pos converts an absolute offset into buf to a 1-based line and byte column.
func (d *Dec) pos(off int64) (int, int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(d.buf)) {
		off = int64(len(d.buf))
	}
	b := d.buf[:off]
	line := d.line1 + bytes.Count(b, []byte{'\n'})
	col := int(off) - (bytes.LastIndexByte(b, '\n') + 1) + 1
	return line, col
}

// valueStart skips white space, ':' and ',' from an absolute offset: the
// decoder's offset before a value points just after the previous token.
func (d *Dec) valueStart(off int64) int64 {
	for off < int64(len(d.buf)) {
		switch d.buf[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// Off is the absolute offset where the next value starts (for positions).
func (d *Dec) Off() int64 {
	if !d.slow {
		return int64(d.sc.p) + d.offBase
	}
	return d.d.InputOffset() + d.offBase
}

// Pointer renders the current path as an RFC 6901 JSON Pointer.
func (d *Dec) Pointer() string {
	var b strings.Builder
	for _, s := range d.path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
			continue
		}
		b.WriteString(escapePointer(s.name))
	}
	return b.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// Report records a violation of rule at the value starting at absolute
// offset off; its pointer is the current path.
func (d *Dec) Report(rule string, off int64, reason string) {
	d.report(rule, off, d.Pointer(), reason)
}

// ReportMember records a violation of rule at member of the current object
// (its value, or the object itself when the member is absent, starts at
// absolute offset off). The pointer is the object's plus "/" and the escaped
// member name, also when the name is empty (RFC 6901: member "" of the
// root is "/").
func (d *Dec) ReportMember(rule string, off int64, member, reason string) {
	d.report(rule, off, d.Pointer()+"/"+escapePointer(member), reason)
}

func (d *Dec) report(rule string, off int64, ptr, reason string) {
	line, col := d.pos(d.valueStart(off))
	d.Out = append(d.Out, envelope.Violation{Rule: rule, Pointer: ptr, Line: line, Column: col, Reason: reason})
}

// Push enters member name (a constant from the generated code).
func (d *Dec) Push(name string) { d.path = append(d.path, seg{name: name, idx: -1}) }

// PushIndex enters array element i.
func (d *Dec) PushIndex(i int) { d.path = append(d.path, seg{idx: i}) }

// Pop leaves the innermost member or element.
func (d *Dec) Pop() { d.path = d.path[:len(d.path)-1] }

func (d *Dec) peek() jsontext.Kind {
	if !d.slow {
		k := d.sc.peek()
		if k == 0 {
			bail()
		}
		return k
	}
	k := d.d.PeekKind()
	if k == 0 {
		_, err := d.d.ReadToken()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		d.syntax(err)
	}
	return k
}

func (d *Dec) readValue() jsontext.Value {
	if !d.slow {
		return d.sc.value()
	}
	v, err := d.d.ReadValue()
	if err != nil {
		d.syntax(err)
	}
	if d.d.StackDepth() >= MaxDepth {
		d.syntax(&jsontext.SyntacticError{Err: errors.New("max depth")})
	}
	return v
}

func (d *Dec) readToken() {
	if !d.slow {
		d.sc.token()
		return
	}
	_, err := d.d.ReadToken()
	if err != nil {
		d.syntax(err)
	}
	if d.d.StackDepth() > MaxDepth {
		d.syntax(&jsontext.SyntacticError{ByteOffset: d.d.InputOffset(), Err: errors.New("max depth")})
	}
}

func kindOf(k jsontext.Kind, raw []byte) JSONType {
	switch k {
	case '"':
		return KString
	case '0':
		if isInt(raw) {
			return KInt
		}
		return KFloat
	case 't', 'f':
		return KBool
	case 'n':
		return KNull
	case '{':
		return KObject
	case '[':
		return KArray
	}
	return 0
}

func isInt(raw []byte) bool {
	for _, c := range raw {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

func kindName(k JSONType) string {
	switch k {
	case KString:
		return "a string"
	case KInt:
		return "an integer"
	case KFloat:
		return "a number with a fraction or exponent"
	case KBool:
		return "a boolean"
	case KNull:
		return "null"
	case KObject:
		return "an object"
	case KArray:
		return "an array"
	}
	return "a value"
}

func wantName(k JSONType) string {
	var parts []string
	if k&KString != 0 {
		parts = append(parts, "string")
	}
	switch {
	case k&KNumber == KNumber:
		parts = append(parts, "number")
	case k&KInt != 0:
		parts = append(parts, "integer")
	}
	if k&KBool != 0 {
		parts = append(parts, "boolean")
	}
	if k&KObject != 0 {
		parts = append(parts, "object")
	}
	if k&KArray != 0 {
		parts = append(parts, "array")
	}
	if k&KNull != 0 {
		parts = append(parts, "null")
	}
	return strings.Join(parts, " or ")
}

// typeMismatch reports a value of the wrong kind (or null for a required field).
func (d *Dec) typeMismatch(l *Leaf, off int64, got JSONType) {
	if got == KNull && l.Required && l.NullRule == "" {
		d.Report(RuleRequired, off, "required field is null")
		return
	}
	if got == KNull && l.Required {
		d.Report(l.NullRule, off, fmt.Sprintf("must be %s, not null", wantName(l.Kinds)))
		return
	}
	d.Report(l.Rule, off, fmt.Sprintf("must be %s, not %s", wantName(l.Kinds), kindName(got)))
}

// Value reads one value and checks it against l. Objects and arrays are
// skipped (their syntax is still checked). It returns the value's kind, its
// unquoted string content (valid until the next read) and its number value.
func (d *Dec) Value(l *Leaf) (k JSONType, s []byte, num float64, ok bool) {
	off := d.Off()
	jk := d.peek()
	raw := d.readValue()
	d.last = Span{Start: d.Off() - int64(len(raw)), End: d.Off(), Set: true}
	k = kindOf(jk, raw)
	if k&l.Kinds == 0 {
		d.typeMismatch(l, off, k)
		return k, nil, 0, false
	}
	ok = true
	switch k {
	case KString:
		s = d.unquote(raw)
		ok = d.checkString(l, off, s)
	case KInt, KFloat:
		num, _ = strconv.ParseFloat(string(raw), 64)
		for i := range l.Bounds {
			b := &l.Bounds[i]
			if !b.Holds(num, raw) {
				d.Report(l.Rule, off, fmt.Sprintf("%s is out of bound %s%s", raw, b.Op, b.Lit))
				ok = false
			}
		}
	}
	return k, s, num, ok
}

func (d *Dec) unquote(raw []byte) []byte {
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in
	}
	var err error
	d.scratch, err = jsontext.AppendUnquote(d.scratch[:0], raw)
	if err != nil {
		if !d.slow {
			bail()
		}
		d.syntax(err)
	}
	return d.scratch
}

func (d *Dec) checkString(l *Leaf, off int64, s []byte) bool {
	ok := true
	patterns := l.Patterns
	rule := l.Rule
	if l.RestRule != "" && len(patterns) > 0 {
		// The first pattern decides: a violation of it is Rule, of the
		// rest (once it holds) RestRule.
		if !patterns[0].Match(s) {
			d.Report(l.Rule, off, patterns[0].mismatch(s))
			return false
		}
		patterns, rule = patterns[1:], l.RestRule
	}
	if !l.inEnum(s) {
		d.Report(rule, off, fmt.Sprintf("%s is not one of %s", strconv.Quote(clip(s)), strings.Join(quoteAll(l.Enum), ", ")))
		return false
	}
	if l.MinRunes >= 0 || l.MaxRunes >= 0 {
		n := utf8.RuneCount(s)
		if l.MinRunes >= 0 && n < l.MinRunes {
			r := rule
			reason := fmt.Sprintf("must have at least %d characters, has %d", l.MinRunes, n)
			if n == 0 {
				reason = "must not be empty"
				if l.EmptyRule != "" {
					r = l.EmptyRule
				}
			}
			d.Report(r, off, reason)
			ok = false
		}
		if l.MaxRunes >= 0 && n > l.MaxRunes {
			d.Report(rule, off, fmt.Sprintf("must have at most %d characters, has %d", l.MaxRunes, n))
			ok = false
		}
	}
	for _, p := range patterns {
		if !p.Match(s) {
			d.Report(rule, off, p.mismatch(s))
			ok = false
		}
	}
	return ok
}

// inEnum reports whether s is allowed by l's enum (any string when unset).
func (l *Leaf) inEnum(s []byte) bool {
	if l.Enum == nil {
		return true
	}
	for _, e := range l.Enum {
		if string(s) == e {
			return true
		}
	}
	return false
}

func clip(s []byte) string {
	if len(s) > 60 {
		return string(s[:57]) + "..."
	}
	return string(s)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// BeginObject reads '{' when the next value is an object and returns its
// offset. Otherwise it checks the value against l (a type violation unless
// l allows that kind, e.g. null) and returns ok=false.
func (d *Dec) BeginObject(l *Leaf) (off int64, ok bool) {
	off = d.Off()
	if d.peek() != '{' {
		d.Value(l)
		return off, false
	}
	d.readToken()
	return off, true
}

// BeginArray is BeginObject for '['.
func (d *Dec) BeginArray(l *Leaf) (off int64, ok bool) {
	off = d.Off()
	if d.peek() != '[' {
		d.Value(l)
		return off, false
	}
	d.readToken()
	return off, true
}

// More reports whether the current object or array has another member;
// at the end it consumes the closing '}' or ']'.
func (d *Dec) More() bool {
	switch d.peek() {
	case '}', ']':
		d.readToken()
		return false
	}
	return true
}

// Name reads a member name, unquoted (valid until the next read).
func (d *Dec) Name() []byte {
	raw := d.readValue()
	return d.unquote(raw)
}

// Unknown handles a member that the schema does not declare: x_ fields and
// open objects accept anything; otherwise, in strict mode, the member is an
// AL004 violation. The value is skipped.
func (d *Dec) Unknown(name []byte, open, allowX bool) {
	off := d.Off()
	if !open && d.Strict && !(allowX && bytes.HasPrefix(name, []byte("x_"))) {
		d.ReportMember(RuleUnknown, off, string(name), fmt.Sprintf("unknown field %s (strict mode; extensions must start with x_)", strconv.Quote(clip(name))))
	}
	d.readValue()
}

// Skip reads and discards one value.
func (d *Dec) Skip() { d.readValue() }

// Missing reports required field name absent from the object at off.
func (d *Dec) Missing(off int64, name string) {
	d.ReportMember(RuleRequired, off, name, "required field "+strconv.Quote(name)+" is missing")
}

// ArrayLen checks list lengths after an array of n elements at off.
func (d *Dec) ArrayLen(l *Leaf, off int64, n int) {
	if l.MinItems >= 0 && n < l.MinItems {
		rule := l.Rule
		reason := fmt.Sprintf("must have at least %d items, has %d", l.MinItems, n)
		if n == 0 {
			reason = "must not be empty"
			if l.EmptyRule != "" {
				rule = l.EmptyRule
			}
		}
		d.Report(rule, off, reason)
	}
	if l.MaxItems >= 0 && n > l.MaxItems {
		d.Report(l.Rule, off, fmt.Sprintf("must have at most %d items, has %d", l.MaxItems, n))
	}
}

// RefBound reports a violated bound between two sibling fields: the number
// x of member name (whose value starts at off) must satisfy `x op refName`,
// where y is the sibling's number. xs and ys are the byte ranges of the two
// literals (Last after reading each): when the floats are equal the
// literals decide, so integers above 2^53 compare exactly.
func (d *Dec) RefBound(rule string, off int64, name, op, refName string, x, y float64, xs, ys Span) {
	xl, yl := d.buf[xs.Start:xs.End], d.buf[ys.Start:ys.End]
	if holdsCmp(op, compareExact(x, y, xl, yl)) {
		return
	}
	d.ReportMember(rule, off, name, fmt.Sprintf("%s must be %s %s (%s), is %s", name, op, refName, yl, xl))
}

// Span is a saved value: its absolute byte range and its path, for checks
// that run after the enclosing object is complete.
type Span struct {
	Start, End int64
	Set        bool
}

// Mark returns the absolute offset where the next value starts.
func (d *Dec) Mark() int64 { return d.valueStart(d.Off()) }

// Last returns the absolute byte range of the last scalar that Value read
// (for RefBound).
func (d *Dec) Last() Span { return d.last }

// Check validates the saved span sp (member name of the current object)
// with fn in a sub-run; its violations join d's, their reasons suffixed with
// the condition that made the check apply (e.g. `when status is "done"`).
func (d *Dec) Check(sp Span, name, cond string, fn func(*Dec)) {
	if !sp.Set {
		return
	}
	if d.sub == nil {
		d.sub = NewDec()
	}
	s := d.sub
	s.buf = d.buf
	s.offBase = sp.Start
	s.line1 = d.line1
	s.Strict = false
	s.path = append(append(s.path[:0], d.path...), seg{name: name, idx: -1})
	s.Out = s.Out[:0]
	s.in = d.buf[sp.Start:sp.End]
	s.slow = false
	s.sc.reset(s.in)
	s.Validate(fn)
	for _, v := range s.Out {
		v.Reason += " (required when " + cond + ")"
		d.Out = append(d.Out, v)
	}
}

// CondSet describes the conditions of one object with conditional fields
// (cue: `if f == "lit" { g!: T }`, `if f == _|_ { ... }`): its
// discriminators and, per condition, the discriminator it tests and the
// literal, or Absent.
type CondSet struct {
	Fields []CondField
	Conds  []CondSpec

	once  sync.Once
	index *condIndex // made on first use (Conds)
}

// condIndex is what Conds reads of a CondSet: per discriminator, the bits
// of the conditions that it equals each literal (one lookup instead of a
// comparison per condition: an event log's discriminator has a literal
// per event type), and the Absent conditions, in order.
type condIndex struct {
	eq     []map[string]uint64
	absent []int
}

// indexed returns cs's condIndex of its first nf discriminators.
func (cs *CondSet) indexed(nf int) *condIndex {
	cs.once.Do(func() {
		x := &condIndex{eq: make([]map[string]uint64, nf)}
		for i, c := range cs.Conds {
			switch {
			case c.Field >= nf:
			case c.Absent:
				x.absent = append(x.absent, i)
			default:
				if x.eq[c.Field] == nil {
					x.eq[c.Field] = map[string]uint64{}
				}
				x.eq[c.Field][c.Equals] |= 1 << uint(i)
			}
		}
		cs.index = x
	})
	return cs.index
}

// CondField is a discriminator: a scalar member and the leaf its value is
// checked against (an invalid value counts as absent for Absent conditions).
type CondField struct {
	Name string
	Leaf *Leaf
}

// CondSpec is one condition: Fields[Field] equals the string Equals, or,
// with Absent, Fields[Field] is absent or invalid (CUE's `f == _|_`).
type CondSpec struct {
	Field  int
	Equals string
	Absent bool
}

// maxDiscriminators is the most discriminators one CondSet may have.
const maxDiscriminators = 8

// Conds pre-scans the object whose value starts at absolute offset off (as
// returned by BeginObject) for its discriminators and returns a bit mask:
// bit i is set when condition cs.Conds[i] holds. Records are in memory, so
// the scan reads the object's bytes directly: member values are skipped
// without decoding and the scan stops once every discriminator is found. It
// never allocates once the decoder is warm and never reports anything: a
// malformed object is left to the token stream, which aborts the run with a
// syntax violation.
func (d *Dec) Conds(off int64, cs *CondSet) uint64 {
	var spans [maxDiscriminators][2]int
	var found [maxDiscriminators]bool
	nf := len(cs.Fields)
	if nf > maxDiscriminators {
		nf = maxDiscriminators
	}
	d.scanMembers(int(d.valueStart(off)), cs.Fields[:nf], &spans, &found)
	return d.condsOf(cs, nf, &spans, &found)
}

// condsOf is Conds from the value spans of cs's first nf discriminators
// in d.buf (spans[f], when found[f]; absent otherwise).
func (d *Dec) condsOf(cs *CondSet, nf int, spans *[maxDiscriminators][2]int, found *[maxDiscriminators]bool) uint64 {
	x := cs.indexed(nf)
	var m uint64
	// Each discriminator's string is looked up before any Absent
	// condition is checked: accepts may reuse scanString's buffer.
	for f, eq := range x.eq {
		if eq == nil || !found[f] {
			continue
		}
		if s, ok := d.scanString(d.buf[spans[f][0]:spans[f][1]]); ok {
			m |= eq[string(s)]
		}
	}
	for _, i := range x.absent {
		c := cs.Conds[i]
		if !found[c.Field] || !d.accepts(cs.Fields[c.Field].Leaf, d.buf[spans[c.Field][0]:spans[c.Field][1]]) {
			m |= 1 << uint(i)
		}
	}
	return m
}

// scanMembers records the value spans of the members named by fields in the
// object starting at buf[i] ('{'). Names with escapes are unquoted.
func (d *Dec) scanMembers(i int, fields []CondField, spans *[maxDiscriminators][2]int, found *[maxDiscriminators]bool) {
	buf := d.buf
	if i >= len(buf) || buf[i] != '{' {
		return
	}
	i++
	left := len(fields)
	for left > 0 {
		i = skipSpace(buf, i)
		if i >= len(buf) || buf[i] != '"' {
			return
		}
		end := SkipString(buf, i)
		if end < 0 {
			return
		}
		name, ok := d.scanString(buf[i:end])
		i = skipSpace(buf, end)
		if !ok || i >= len(buf) || buf[i] != ':' {
			return
		}
		i = skipSpace(buf, i+1)
		vend := SkipValue(buf, i)
		if vend < 0 {
			return
		}
		for k, f := range fields {
			if !found[k] && string(name) == f.Name {
				found[k] = true
				spans[k] = [2]int{i, vend}
				left--
			}
		}
		i = skipSpace(buf, vend)
		if i >= len(buf) || buf[i] != ',' {
			return
		}
		i++
	}
}

// scanString returns the content of a JSON string token raw, unquoted
// (valid until the next scanString), and false if raw is not a string.
func (d *Dec) scanString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in, true
	}
	var err error
	d.scan, err = jsontext.AppendUnquote(d.scan[:0], raw)
	return d.scan, err == nil
}

// accepts reports, without reporting anything, whether the scalar JSON
// value raw satisfies l (what Value checks).
func (d *Dec) accepts(l *Leaf, raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	var jk jsontext.Kind
	switch c := raw[0]; {
	case c == '"', c == 't', c == 'f', c == 'n', c == '{', c == '[':
		jk = jsontext.Kind(c)
	case c == '-' || (c >= '0' && c <= '9'):
		jk = '0'
	default:
		return false
	}
	k := kindOf(jk, raw)
	if k&l.Kinds == 0 {
		return false
	}
	switch k {
	case KString:
		s, ok := d.scanString(raw)
		if !ok {
			return false
		}
		if !l.inEnum(s) {
			return false
		}
		if l.MinRunes >= 0 || l.MaxRunes >= 0 {
			n := utf8.RuneCount(s)
			if (l.MinRunes >= 0 && n < l.MinRunes) || (l.MaxRunes >= 0 && n > l.MaxRunes) {
				return false
			}
		}
		for _, p := range l.Patterns {
			if !p.Match(s) {
				return false
			}
		}
	case KInt, KFloat:
		num, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false
		}
		for i := range l.Bounds {
			if !l.Bounds[i].Holds(num, raw) {
				return false
			}
		}
	}
	return true
}

func skipSpace(buf []byte, i int) int {
	for i < len(buf) {
		switch buf[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		break
	}
	return i
}

// SkipString returns the index after the JSON string literal that starts
// at buf[i] == '"', or -1 if it does not end in buf. Escapes are skipped,
// not checked: the callers scan records whose syntax the validator checks.
func SkipString(buf []byte, i int) int {
	j := i + 1
	// Eight bytes at a time up to the first '"' or '\\' (scanPlain's
	// tests for those two): most strings of a record end there.
	for j+8 <= len(buf) {
		x := binary.LittleEndian.Uint64(buf[j:])
		q := x ^ (lsb * '"')
		s := x ^ (lsb * '\\')
		if t := ((q-lsb)&^q | (s-lsb)&^s) & msb; t != 0 {
			j += bits.TrailingZeros64(t) >> 3
			if buf[j] == '"' {
				return j + 1
			}
			break // an escape: counted below
		}
		j += 8
	}
	for {
		k := bytes.IndexByte(buf[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote ends the string unless an odd number of backslashes precede it.
		n := 0
		for b := j - 1; b > i && buf[b] == '\\'; b-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// SkipValue returns the index after the JSON value starting at buf[i], or
// -1 if it does not end in buf or is empty. Nesting is counted, not
// recursed. It is the byte scanner of the conditional-field pre-scan and of
// the lint engine's extraction of stream-rule values.
func SkipValue(buf []byte, i int) int {
	if i >= len(buf) {
		return -1
	}
	switch buf[i] {
	case '"':
		return SkipString(buf, i)
	case '{', '[':
		depth := 0
		for i < len(buf) {
			switch buf[i] {
			case '"':
				i = SkipString(buf, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for j := i; j < len(buf); j++ {
		switch buf[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if j == i {
				return -1
			}
			return j
		}
	}
	return len(buf)
}
