package record

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/secrets"
	"github.com/agentlint/agentlint/rules"
)

// SchemaEngine validates one JSON text of a kind against its schema and
// returns violations with Rule, Pointer, Line, Column and Reason set (codes
// and severities are filled by the Validator). The fast path is the default;
// lint/cueeval provides the CUE evaluator (--engine cue).
type SchemaEngine interface {
	Schema(kind string, raw []byte, line1 int, strict bool) []envelope.Violation
}

// RuleMissingValidator is the rule of a kind without a generated validator.
const RuleMissingValidator = "AL010"

// FastEngine runs the validators generated from the CUE definitions. It is
// not safe for concurrent use: give each worker its own.
//
// A kind that has an acceptor (fast.Acceptors) is first read by it: a
// record it accepts has no violation, and the values of its declared
// members are where Acc recorded them; the validator runs only on the
// records the acceptor declines, and names their violations.
type FastEngine struct {
	dec  *fast.Dec
	acc  fast.Acc
	kind string         // of the last Accept call
	accs *fast.Acceptor // its acceptor (nil: none)
}

// NewFastEngine returns a fast-path engine.
func NewFastEngine() *FastEngine { return &FastEngine{dec: fast.NewDec()} }

// Accept reports whether kind's acceptor accepts raw: then the validator
// would report nothing, and Captured gives the declared members' values.
// False when the kind has no acceptor.
func (e *FastEngine) Accept(kind string, raw []byte, strict bool) bool {
	if kind != e.kind {
		e.kind, e.accs = kind, fast.Acceptors[kind]
	}
	if e.accs == nil {
		return false
	}
	e.acc.Strict = strict
	return e.acc.Accept(e.accs, raw)
}

// Captured returns the acceptor state of the last Accept that returned
// true: the spans of the declared members of its record.
func (e *FastEngine) Captured() *fast.Acc { return &e.acc }

// Schema implements SchemaEngine: the kind's acceptor first, then, when it
// declines, the validator. The returned slice is reused by the next call.
func (e *FastEngine) Schema(kind string, raw []byte, line1 int, strict bool) []envelope.Violation {
	if e.Accept(kind, raw, strict) {
		e.dec.Out = e.dec.Out[:0]
		return e.dec.Out
	}
	return e.validate(kind, raw, line1, strict)
}

// validate runs kind's validator.
func (e *FastEngine) validate(kind string, raw []byte, line1 int, strict bool) []envelope.Violation {
	fn := fast.Validators[kind]
	if fn == nil {
		return []envelope.Violation{{Rule: RuleMissingValidator, Line: line1, Column: 1, Reason: "no schema validator for kind " + kind}}
	}
	e.dec.Strict = strict
	e.dec.Reset(raw, line1)
	e.dec.Validate(fn)
	return e.dec.Out
}

// Options configure a Validator.
type Options struct {
	// Strict: unknown non-x_ fields and blank JSON Lines lines are violations.
	Strict bool
	// Now is the clock of time rules (--now). Zero: the data's own clock
	// (rule IL013 compares a log's current STATE with the latest timestamp
	// the log holds, and a lone document is never stale), so that `agentlint
	// lint` gives the same verdicts at any wall-clock time; the runtime gates
	// (`validate`, `replay`) set it to the current time when --now is not
	// given.
	Now time.Time
	// MaxSkew is the tolerated future skew of heartbeats (--max-skew).
	MaxSkew time.Duration
	// Severity overrides a rule's severity: "error", "warning" or "off"
	// (config file [rules.ID]); the code never changes.
	Severity map[string]string
	// Assignment is the validated assignment a result is checked against.
	Assignment *rules.Doc
	// Extend: event types and namespaces a project declares beyond the
	// seeds, per family (config [collector] / [vermas]; rules.Extension).
	Extend map[string]rules.Extension
	// CountOnly: the violations are only counted (a quiet lint run prints
	// none): the document rules' findings get no line, column or details,
	// and no reason is scanned for secrets (every reason is dropped). Rule,
	// code, severity and pointer, all that counting and the verdict read,
	// are as always.
	CountOnly bool
}

// Validator validates documents and records. It is not safe for concurrent
// use; create one per worker.
type Validator struct {
	opts   Options
	engine SchemaEngine
	fast   *FastEngine // engine, when it is the fast path
	// accepted: the last Record was accepted by its kind's acceptor, whose
	// spans (fast.Captured) hold its declared members.
	accepted bool
	ldoc     rules.Doc // the document of RecordLine, reused
	vs       []envelope.Violation
	plans    map[string]*docPlan // by kind (shallow.go)
	ropts    *rules.Options      // what document rules see, shared by all records
	runner   rules.Runner        // the document rules, with reused state
	red      secrets.Redactor    // redacts the texts of violations (fill)
	lastRule *rules.Rule         // the registry entry fill looked up last: findings of one rule come in runs
	digests  rules.DigestMemo    // the digests made of the last record (Digests)
}

// NewValidator returns a Validator using engine (nil: the fast path).
func NewValidator(opts Options, engine SchemaEngine) *Validator {
	if engine == nil {
		engine = NewFastEngine()
	}
	if opts.MaxSkew == 0 {
		opts.MaxSkew = 60 * time.Second
	}
	fe, _ := engine.(*FastEngine)
	return &Validator{opts: opts, engine: engine, fast: fe}
}

// Enabled reports whether rule id is switched on by the configuration.
func (v *Validator) Enabled(id string) bool { return v.opts.Severity[id] != "off" }

// Record validates one JSON text raw of kind (a document, or a JSON Lines
// record whose first byte is on line line1) in file. It returns every
// violation, sorted, with code and severity from the registry and the
// configuration, and the decoded document when the schema passed (nil
// otherwise). The slice is reused by the next call.
//
// Document rules run on every record that is well-formed JSON, whatever
// the schema found (README, Codes and precedence: details.violations lists every
// violation, and the primary code follows the precedence): a secret in an
// untrusted field is reported even when another field is ill-typed. The
// rules read values with checked accessors and skip what has not the type
// they need.
func (v *Validator) Record(kind, file string, raw []byte, line1 int) ([]envelope.Violation, *rules.Doc) {
	return v.record(kind, file, raw, line1, true, false)
}

// RecordLine is Record for a JSON Lines record whose document the caller
// does not keep: the same violations, without building the decoded form of
// a record the acceptor read (the document rules read its values in place,
// rules.Doc.Flat). The slice is reused by the next call.
func (v *Validator) RecordLine(kind, file string, raw []byte, line1 int) []envelope.Violation {
	vs, _ := v.record(kind, file, raw, line1, false, true)
	return vs
}

// record is Record; keep says whether the returned document may outlive the
// call (otherwise it is reused, and its values may point into raw); inLog
// says whether raw is one line of a JSON Lines log (rules.Doc.InLog).
func (v *Validator) record(kind, file string, raw []byte, line1 int, keep, inLog bool) ([]envelope.Violation, *rules.Doc) {
	v.digests.Reset()
	plan := v.plan(kind)
	if v.fast != nil {
		v.fast.acc.Want, v.fast.acc.WantElems = plan.want, plan.wantElems
	}
	v.accepted = v.fast != nil && v.fast.Accept(kind, raw, v.opts.Strict)
	if v.accepted {
		v.vs = v.vs[:0]
	} else {
		if v.fast != nil {
			v.vs = append(v.vs[:0], v.fast.validate(kind, raw, line1, v.opts.Strict)...)
		} else {
			v.vs = append(v.vs[:0], v.engine.Schema(kind, raw, line1, v.opts.Strict)...)
		}
		v.finish()
		if kind == collectorKind {
			v.collectorEventType(raw)
		}
	}
	// A record is decoded only for enabled document rules, and only the
	// values they declare when they all do (shallow.go).
	if !plan.rules || hasParse(v.vs) {
		envelope.Sort(v.vs)
		return v.vs, nil
	}
	valid := !envelope.HasErrors(v.vs)
	if v.ropts == nil {
		v.ropts = &rules.Options{Now: v.opts.Now, MaxSkew: v.opts.MaxSkew, Strict: v.opts.Strict, Assignment: v.opts.Assignment, Extend: v.opts.Extend, CountOnly: v.opts.CountOnly}
	}
	var doc *rules.Doc
	if keep {
		doc = &rules.Doc{Kind: kind, File: file, Raw: raw, Options: v.ropts, InLog: inLog}
	} else {
		doc = &v.ldoc
		*doc = rules.Doc{Kind: kind, File: file, Raw: raw, Options: v.ropts, InLog: inLog}
	}
	var err error
	var flat bool
	if plan.whole && (!v.accepted || v.fast.acc.Wide) && !numbersFit(raw) {
		// A document is judged whole: a number beyond float64 anywhere in
		// it, declared value or not, is the error of decoding it whole.
		var x any
		err = json.Unmarshal(raw, &x)
	} else if plan.shallow && v.accepted && plan.slots != nil && plan.inPlace {
		doc.Flat, flat = plan.flat(raw, v.fast.Captured())
	} else if plan.shallow && plan.inPlace && !plan.whole {
		doc.Flat, flat = plan.scannedFlat(raw)
	}
	switch {
	case err != nil:
	case flat:
	case plan.shallow && v.accepted && plan.slots != nil:
		doc.Value, err = plan.capturedValue(raw, v.fast.Captured())
	case plan.shallow:
		doc.Value, err = plan.shallowValue(raw)
	default:
		var ok bool
		if doc.Value, ok = fast.Decode(raw); !ok {
			err = json.Unmarshal(raw, &doc.Value)
		}
	}
	if err != nil {
		// Well-formed text the decoder cannot hold (a number such as 1e999
		// beyond float64 in a member the schema does not type): reported,
		// never hidden, as a syntax error that sorts first.
		v.vs = append(v.vs, envelope.Violation{Rule: fast.RuleSyntax, Parse: true, Reason: "invalid JSON: " + fast.DecodeError(err)})
		v.finish()
		envelope.Sort(v.vs) // a parse error comes first, also after schema findings
		return v.vs, nil
	}
	n := len(v.vs)
	doc.Digests = &v.digests
	enabled := v.Enabled
	if len(v.opts.Severity) == 0 {
		enabled = nil // no rule is off: plan.enabled is every rule, every finding is kept
	}
	fs := v.runner.RunRules(doc, plan.enabled, enabled)
	if keep {
		doc.Digests = nil // the memo is the next record's
	}
	for _, f := range fs {
		if v.opts.CountOnly {
			v.vs = append(v.vs, envelope.Violation{Rule: f.Rule, Pointer: f.Pointer, Line: line1})
			continue
		}
		line, col := LineCol(raw, v.locate(raw, f.Pointer), line1)
		if p, ok := f.Extra[rules.FirstPointer].(string); ok {
			// A finding about two places of the document (a repeated id)
			// names the line of the other one too.
			f.Extra["first_line"], _ = LineCol(raw, Locate(raw, p), line1)
		}
		v.vs = append(v.vs, envelope.Violation{Rule: f.Rule, Pointer: f.Pointer, Line: line, Column: col, Reason: f.Reason, Extra: f.Extra})
	}
	v.fillFrom(n, fs)
	v.vs = dropOff(v.vs)
	envelope.Sort(v.vs)
	if !valid {
		return v.vs, nil
	}
	switch {
	case keep && plan.whole:
		// A JSON document the caller keeps (the assignment of
		// --assignment, a document the stream and tree rules read) holds
		// all its values, as it always did: its document rules read only
		// those they declared, its callers any. Its numbers fit float64
		// (checked above), so decoding cannot fail.
		if x, err := decodeRaw(raw); err == nil {
			doc.Value, doc.Flat = x, nil
		}
	case keep && doc.Flat != nil:
		doc.Root() // decoded from the values, which point into raw
		doc.Flat = nil
	}
	return v.vs, doc
}

// Digests returns the digests (rules.Digest) that the document rules made
// of the values of the last record, for the extraction of its stream
// values (Extractor.Digests): valid until the next record.
func (v *Validator) Digests() *rules.DigestMemo { return &v.digests }

// locate is Locate for a finding of the last record: from the span its
// kind's acceptor recorded when the record was accepted and the pointer
// names a member the acceptor captures (the same offset:
// TestCapturedLocateAgrees), otherwise by reading the record again.
func (v *Validator) locate(raw []byte, ptr string) int64 {
	if v.accepted && v.fast.accs != nil {
		if s := slices.Index(v.fast.accs.Fields, ptr); s >= 0 && v.fast.acc.Got&(1<<uint(s)) != 0 && v.fast.accs.Cond&(1<<uint(s)) == 0 {
			return int64(v.fast.acc.Spans[s].Start)
		}
	}
	return Locate(raw, ptr)
}

const collectorKind = "collector/event"

// collectorEventType adjusts the schema's CL003 finding on a collector
// event_type outside seed 004's six namespaces: it is dropped when the
// project declares that event type or namespace ([collector] in
// .agentlint.toml), and otherwise says where to declare it. Only records
// with that finding pay for reading event_type.
func (v *Validator) collectorEventType(raw []byte) {
	for i := 0; i < len(v.vs); i++ {
		x := &v.vs[i]
		if x.Rule != "CL003" || x.Pointer != "/event_type" {
			continue
		}
		var rec struct {
			EventType any `json:"event_type"`
		}
		_ = json.Unmarshal(raw, &rec, json.RejectUnknownMembers(false))
		if t, ok := rec.EventType.(string); ok && v.opts.Extend[rules.FamilyCollector].Knows(t) {
			v.vs = append(v.vs[:i], v.vs[i+1:]...)
			return
		}
		x.Reason += rules.ExtendHint(rules.FamilyCollector)
		return
	}
}

// hasParse reports whether vs holds a syntax error (the record is not
// well-formed JSON, so no rule can read it).
func hasParse(vs []envelope.Violation) bool {
	for i := range vs {
		if vs[i].Parse {
			return true
		}
	}
	return false
}

// finish fills codes and severities of all violations and drops rules
// switched off.
func (v *Validator) finish() {
	v.fill(v.vs)
	v.vs = dropOff(v.vs)
}

func (v *Validator) fill(vs []envelope.Violation) { v.fillAs(vs, true) }

// fillFrom fills v.vs[n:], the violations of the findings fs (in order):
// the texts of a Checked finding are not scanned for secrets again.
func (v *Validator) fillFrom(n int, fs []rules.Finding) {
	for i := range fs {
		v.fillAs(v.vs[n+i:n+i+1], !fs[i].Checked)
	}
}

// fillAs is fill; redact false leaves the texts unscanned (FillChecked).
func (v *Validator) fillAs(vs []envelope.Violation, redact bool) {
	for i := range vs {
		x := &vs[i]
		r := v.lastRule
		if r == nil || r.ID != x.Rule {
			if r = rules.Lookup(x.Rule); r == nil {
				panic(fmt.Sprintf("lint: violation of unregistered rule %s", x.Rule))
			}
			v.lastRule = r
		}
		x.Code, x.Severity = r.Code, r.Severity
		if v.opts.CountOnly {
			x.Reason, x.Extra = "", nil
		} else if redact {
			v.redact(x)
		}
		if len(v.opts.Severity) == 0 {
			continue
		}
		switch v.opts.Severity[x.Rule] {
		case "warning":
			x.Severity = envelope.SeverityWarning
		case "error":
			x.Severity = envelope.SeverityError
		case "off":
			x.Severity = "off"
		}
	}
}

// redact replaces every secret that the violation's reason or details
// quote with the name of its pattern: a reason quotes values of any field,
// not only those scanned for secrets (an AWS key as a task id), and a
// secret is never echoed. Every violation is finished here (fill); only a
// reason that quotes (a '"') and string details are scanned.
func (v *Validator) redact(x *envelope.Violation) {
	if strings.IndexByte(x.Reason, '"') >= 0 {
		x.Reason = v.red.Redact(x.Reason)
	}
	copied := false
	for k, val := range x.Extra {
		if s, ok := val.(string); ok {
			if r := v.red.Redact(s); r != s {
				if !copied { // the map may be shared: change a copy
					x.Extra, copied = maps.Clone(x.Extra), true
				}
				x.Extra[k] = r
			}
		}
	}
}

func dropOff(vs []envelope.Violation) []envelope.Violation {
	out := vs[:0]
	for _, x := range vs {
		if x.Severity != "off" {
			out = append(out, x)
		}
	}
	return out
}

// Document validates a whole file's content as one payload of kind: a UTF-8
// byte-order mark is skipped with a warning (AL006) and an empty payload is
// AL005 (README, Codes and precedence; Kinds). A kind of format TOML or text (the
// vermas template and assignment) is converted into its JSON equivalent
// first (convert.go): a TOML syntax error is VM030, a malformed assignment
// line VM020, and the violations of the JSON text are reported at the
// source's line and column. The returned Doc then holds the JSON text.
func (v *Validator) Document(kindName, file string, raw []byte) ([]envelope.Violation, *rules.Doc) {
	return v.document(kindName, file, raw, true)
}

// DocumentViolations is Document for a caller that does not keep the
// document (a stream of packets, a server's request): the same
// violations, without building the decoded form of a document its kind's
// acceptor accepted, whose values the document rules then read in place
// (rules.Doc.Flat; rules/inplace.go). The slice is reused by the next call.
func (v *Validator) DocumentViolations(kindName, file string, raw []byte) []envelope.Violation {
	vs, _ := v.document(kindName, file, raw, false)
	return vs
}

// document is Document; keep says whether the returned document may
// outlive the call (Validator.record).
func (v *Validator) document(kindName, file string, raw []byte, keep bool) ([]envelope.Violation, *rules.Doc) {
	var pre []envelope.Violation
	if bytes.HasPrefix(raw, []byte("\ufeff")) {
		raw = raw[3:]
		pre = append(pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"})
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		pre = append(pre, envelope.Violation{Rule: "AL005", Line: 1, Column: 1, Reason: "empty payload"})
		v.vs = append(v.vs[:0], pre...)
		v.finish()
		envelope.Sort(v.vs)
		return v.vs, nil
	}
	if k := kind.Lookup(kindName); k != nil && (k.Format == kind.FormatTOML || k.Format == kind.FormatText) {
		return v.foreign(k, file, raw, pre)
	}
	vs, doc := v.record(kindName, file, raw, 1, keep, false)
	if len(pre) > 0 {
		v.vs = append(append(v.vs[:0:0], pre...), vs...)
		v.finish()
		envelope.Sort(v.vs)
		return v.vs, doc
	}
	return vs, doc
}

// foreign validates a TOML or text document: convert, validate the JSON,
// map positions back to the source.
func (v *Validator) foreign(k *kind.Kind, file string, raw []byte, pre []envelope.Violation) ([]envelope.Violation, *rules.Doc) {
	c := convert(k.Format, raw)
	pre = append(pre, c.errs...)
	var doc *rules.Doc
	if c.js != nil {
		var vs []envelope.Violation
		vs, doc = v.Record(k.Name, file, c.js, 1)
		for i := range vs {
			if !vs[i].Parse {
				p := c.pos.at(vs[i].Pointer)
				vs[i].Line, vs[i].Column = p.line, p.col
			}
		}
		pre = append(pre, vs...)
	}
	v.vs = append(v.vs[:0], pre...)
	v.finish()
	envelope.Sort(v.vs)
	if envelope.HasErrors(v.vs) {
		doc = nil
	}
	return v.vs, doc
}

// SetNow sets the clock of time rules (Options.Now) for the records
// validated from now on: a server reuses one Validator for requests made at
// different times. Documents returned before keep the clock they had.
func (v *Validator) SetNow(t time.Time) {
	v.opts.Now = t
	if v.ropts != nil {
		r := *v.ropts // documents of earlier calls may still hold the old one
		r.Now = t
		v.ropts = &r
	}
}

// Options returns the options the validator was made with (MaxSkew
// defaulted).
func (v *Validator) Options() Options { return v.opts }

// Engine returns the validator's schema engine (a *FastEngine unless
// another was given to NewValidator).
func (v *Validator) Engine() SchemaEngine { return v.engine }

// Captured returns the spans of the declared members of the last record
// given to Record or RecordLine when its kind's acceptor accepted it (the
// fast path), for Extractor.Values; nil otherwise. It is valid until the
// next call.
func (v *Validator) Captured() *fast.Acc {
	if !v.accepted {
		return nil
	}
	return v.fast.Captured()
}

// Strict reports whether the validator runs in strict mode (Options.Strict):
// readers of JSON Lines report blank lines (AL008) only then.
func (v *Validator) Strict() bool { return v.opts.Strict }
