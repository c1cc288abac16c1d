package lint

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// SessionConfig configures a Session.
type SessionConfig struct {
	// Options configure the validator (strict mode, severities, the
	// clock of time rules: a zero Now is the time the session was created,
	// fixed for the session's life: a session is a runtime gate).
	Options record.Options
	// Engine is the schema engine; nil: the fast path.
	Engine record.SchemaEngine
	// File names the stream in envelopes (details.file); "" is "-".
	File string
	// MaxLine is the longest line validated, in bytes (default MaxLine);
	// a longer line is one AL009 verdict and is not a record.
	MaxLine int
	// StreamRules, when non-nil, lists the cross-record rules to run (as
	// LintConfig.StreamRules); nil: every registered one.
	StreamRules []string
}

// Session validates a JSON Lines stream online, one line at a time: the
// engine of `agentlint validate --stream` and of the sessions of `agentlint
// serve` (README, "Orchestrators: validate without a process per packet").
//
// Each line is one payload and gets exactly one envelope, allowed or not,
// decided from that line and the lines before it, never from later ones:
//
//   - for a record kind (JSON Lines, e.g. collector/event of seed 004 "JSONL
//     Event System", vermas/event of seed 000 "VerMAS Data Schemas") the
//     line is validated as `agentlint lint` validates a record, and the
//     cross-record rules of `lint` observe it at once, with the same rule
//     states: a duplicate id, a reference to an unknown earlier record or
//     a timestamp that goes backwards is reported in the envelope of the
//     line that causes it. details holds kind, file and line (1-based line
//     of the stream), and violations when there are any;
//   - for a document kind (a JSON document, e.g. operator/assignment of
//     seed 001 "Contracts") the line is one document, validated as
//     `agentlint validate` validates one; its violations' lines are lines
//     of the stream;
//   - a blank line is no record: its envelope allows ("blank line skipped"),
//     or denies with AL008 in strict mode.
//
// Findings that need the whole stream (a reference still unresolved at the
// end, run-wide counts) come from Close, in one summary envelope.
//
// Memory is bounded by the longest line and the compact state of the
// cross-record rules (the same as `agentlint lint` keeps for a file it
// cannot re-read: one key per id, not the records). A Session is not safe
// for concurrent use.
type Session struct {
	cfg     SessionConfig
	kind    *kind.Kind
	p       *pipeline
	w       *worker
	e       *emitter
	f       *fileRun
	run     *rules.LintRun
	line    int   // lines seen
	off     int64 // bytes seen
	started bool  // the emitter's file is open (record kinds)
	closed  bool
	got     []envelope.Envelope // envelopes the emitter wrote for the current line
	buf     []byte
}

// NewSession returns a session for kind (a name of Kinds; "" detects the
// kind from the first non-blank line, by the top-level keys of its JSON
// object as `agentlint validate` does). It fails for an unknown kind name
// and for a kind whose payloads are not JSON (TOML templates, assignment
// text), which cannot be one line each.
func NewSession(kindName string, cfg SessionConfig) (*Session, error) {
	s := &Session{cfg: cfg}
	if s.cfg.Options.Now.IsZero() {
		// A session is a runtime gate: its clock is fixed when it starts.
		s.cfg.Options.Now = time.Now()
	}
	if s.cfg.File == "" {
		s.cfg.File = "-"
	}
	if kindName != "" {
		k := kind.Lookup(kindName)
		if k == nil {
			return nil, fmt.Errorf("unknown kind %q; known kinds: %s", kindName, strings.Join(kind.Names(), ", "))
		}
		if err := s.setKind(k); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// setKind fixes the session's kind and builds its engine.
func (s *Session) setKind(k *kind.Kind) error {
	if k.Format != kind.FormatJSON && k.Format != kind.FormatJSONL {
		return fmt.Errorf("kind %s is not JSON (%s); a stream holds JSON payloads, one per line", k.Name, k.Format)
	}
	s.kind = k
	s.p = newPipeline(LintConfig{Options: s.cfg.Options, Jobs: 1, MaxLine: s.cfg.MaxLine, StreamRules: s.cfg.StreamRules,
		Emit: func(e envelope.Envelope) error {
			s.got = append(s.got, e)
			return nil
		}})
	s.run = &rules.LintRun{}
	s.p.bindRun(s.run)
	s.w = &worker{p: s.p, v: record.NewValidator(s.cfg.Options, s.cfg.Engine), xs: map[*streamPlan]*record.Extractor{}}
	s.e = newEmitter(s.p)
	s.f = &fileRun{path: s.cfg.File, kind: k, plan: s.p.plans[k]}
	return nil
}

// Kind returns the session's kind, nil while it is still undetected.
func (s *Session) Kind() *kind.Kind { return s.kind }

// Lines returns the number of lines the session has seen.
func (s *Session) Lines() int { return s.line }

// Bytes returns the number of input bytes the session has seen.
func (s *Session) Bytes() int64 { return s.off }

// Record validates the next line of the stream and returns its envelope.
// line holds one line, with or without its final "\n" (a final "\r\n" is a
// CRLF warning, AL007); it must not hold another "\n". A line whose kind
// cannot be detected (no kind given and none sniffed) gets an envelope with
// code MISSING_REQUIRED_INPUT; the next line is sniffed again. After Close,
// Record returns an envelope with code MISSING_REQUIRED_INPUT.
func (s *Session) Record(line []byte) envelope.Envelope {
	if s.closed {
		return envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput, Reason: "the session is closed"}
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	s.line++
	n := s.line
	defer func() { s.off += int64(len(line)) + 1 }()
	if s.kind == nil {
		if isBlank(line) {
			return s.blank(n)
		}
		k := kind.Sniff(line)
		if k == nil || s.setKind(k) != nil {
			return envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput,
				Reason:  fmt.Sprintf("line %d: cannot determine the kind from its top-level keys; name it (agentlint kinds lists them)", n),
				Details: map[string]any{"file": s.cfg.File, "line": n}}
		}
	}
	if s.kind.Format == kind.FormatJSON {
		return s.document(line, n)
	}
	return s.record(line, n)
}

// blank is the envelope of a blank line that is not a record (a blank
// line before the kind is known, or in a stream of documents): AL008 in
// strict mode.
func (s *Session) blank(n int) envelope.Envelope {
	d := map[string]any{"file": s.cfg.File, "line": n}
	if s.kind != nil {
		d["kind"] = s.kind.Name
	}
	if s.e != nil {
		s.e.stats.BlankLines++
	}
	if !s.cfg.Options.Strict {
		return envelope.Envelope{Allow: true, Code: envelope.OK, Reason: "blank line skipped", Details: d}
	}
	v := record.NewValidator(s.cfg.Options, noEngine{})
	vs := v.Fill([]envelope.Violation{{Rule: "AL008", Line: n, Column: 1, Reason: "blank line (strict mode)"}})
	if s.e != nil {
		s.e.stats.Add(vs)
	}
	return envelope.Verdict(vs, "blank line skipped", d)
}

// document validates line n as one JSON document.
func (s *Session) document(line []byte, n int) envelope.Envelope {
	if isBlank(line) {
		return s.blank(n)
	}
	vs := s.w.v.DocumentViolations(s.kind.Name, s.cfg.File, bytes.TrimSuffix(line, []byte("\r")))
	vs = append([]envelope.Violation(nil), vs...)
	for i := range vs {
		if vs[i].Line > 0 {
			vs[i].Line += n - 1
		}
	}
	s.e.stats.Records++
	s.e.stats.Add(vs)
	return envelope.Verdict(vs, s.kind.OKReason, map[string]any{"file": s.cfg.File, "kind": s.kind.Name, "line": n})
}

// record validates line n as a JSON Lines record and runs the cross-record
// rules on it, as Lint's worker and emitter do for a chunk of one line.
func (s *Session) record(line []byte, n int) envelope.Envelope {
	s.buf = append(append(s.buf[:0], line...), '\n')
	it := s.p.newItem(itemChunk, s.f)
	it.first = !s.started
	s.started = true
	it.line1, it.off, it.data = n, s.off, s.buf
	it.done = closedChan
	s.w.process(it)
	blank := isBlank(line)
	s.got = s.got[:0]
	_ = s.e.item(it) // Emit never fails
	switch {
	case len(s.got) == 1:
		return s.got[0]
	case len(s.got) > 1: // not expected: one line, one record
		var vs []envelope.Violation
		for _, e := range s.got {
			x, _ := e.Details["violations"].([]envelope.Violation)
			vs = append(vs, x...)
		}
		return recordEnvelope(s.f, n, vs)
	case blank:
		d := map[string]any{"file": s.cfg.File, "kind": s.kind.Name, "line": n}
		return envelope.Envelope{Allow: true, Code: envelope.OK, Reason: "blank line skipped", Details: d}
	}
	return recordEnvelope(s.f, n, nil)
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Close ends the stream and returns its summary envelope: the counts of
// Stats.Summary (records, blank_lines, denied, warnings, by_code,
// by_rule, correlation_groups) plus kind and file, and, in violations, the
// findings that the cross-record rules could only decide at the end (each
// with the line it concerns). It allows when no line was denied and no
// such finding is an error. Close is idempotent in effect: a second call
// returns the same counts without findings.
func (s *Session) Close() envelope.Envelope {
	var vs []envelope.Violation
	if !s.closed && s.e != nil && s.started {
		s.got = s.got[:0]
		_ = s.e.finishFile()
		_ = s.e.finishTree()
		for _, e := range s.got {
			x, _ := e.Details["violations"].([]envelope.Violation)
			vs = append(vs, x...)
		}
	}
	s.closed = true
	st := s.Stats()
	if s.e != nil {
		st.Groups = s.run.Groups()
	}
	sum := st.Summary()
	if s.kind != nil {
		sum.Details["kind"] = s.kind.Name
	}
	sum.Details["file"] = s.cfg.File
	sum.Details["lines"] = s.line
	if len(vs) > 0 {
		envelope.Sort(vs)
		sum.Details["violations"] = vs
	}
	return sum
}

// Stats returns the session's counts so far (after Close: with the run-wide
// findings), as its summary envelope reports them; Groups are left out.
func (s *Session) Stats() Stats {
	var st Stats
	if s.e != nil {
		st = s.e.stats
	}
	st.Files = 1
	return st
}

// MemoryBytes estimates the memory the session retains, in bytes: its
// buffers and the state of its cross-record rules (Go values reached from
// them, and the tables those rules keep outside the Go heap), counted by
// walking them. It is O(state) and meant for metrics, not for every line.
func (s *Session) MemoryBytes() int64 {
	if s.e == nil {
		return int64(cap(s.buf))
	}
	var z sizer
	n := int64(cap(s.buf))
	for i := range s.e.runs {
		n += z.of(reflect.ValueOf(s.e.runs[i].state))
	}
	for i := range s.e.trees {
		n += z.of(reflect.ValueOf(s.e.trees[i].state))
	}
	return n
}
