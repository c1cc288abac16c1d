package rules

import (
	"sort"
	"strings"
)

// Stream rules need the records of a JSON Lines file in input order:
// duplicate ids, references to earlier records, timestamps that never go
// backwards, replays (README, Usage, "Stream-level rules ... run
// here"). `agentlint lint` runs them in a sequential stage after the parallel
// workers have validated the records:
//
//   - a StreamRule declares the few values it needs (Fields: shallow JSON
//     Pointers to strings, numbers or RFC 3339 timestamps). The workers
//     extract them from every record the schema accepted with a cheap scan
//     of the record's bytes (no decoding into maps) and convert them
//     (timestamps are parsed there, in parallel);
//   - for each file of a kind the rule applies to, the engine asks the rule
//     for a FileState and calls Observe once per accepted record, in input
//     order, with the record's line and the extracted values, then Finish at
//     the end of the file;
//   - a TreeRule also gets every finished FileState of the run, in input
//     order, and reports after the last file.
//
// Documents (JSON documents, TOML templates, assignment text) are observed
// too, as one record with Line 0: their values are extracted from their
// JSON form, StreamRecord.Doc holds the decoded document and
// StreamRecord.Locate finds the source position of a JSON Pointer.
//
// One check may serve several kinds and several rules (a replay of a VerMAS
// .work/ tree that many rules read): attach it to each rule with
// RegisterStream; the engine runs it once per file and it reports under
// each rule with StreamReporter.As. A KindRule extracts different fields
// from each kind and knows the kind of each file.
//
// No cascades: a record that failed per-record validation but is
// still a JSON object is observed too, with Valid false and its values
// extracted as far as its bytes allow, so that it still registers the ids it
// carries and one mistake gives one finding. A rule checks relations
// (references, transitions, ordering) only from valid records. A line that
// is not well-formed JSON or not an object is not observed.
//
// Findings reported by Observe concern the current record and join its
// envelope; findings reported by Finish (of a file or of the tree) are
// printed after the file's (or the tree's) last record, in line order. The
// rule itself is registered like every rule (Register, with ID, code,
// severity, summary and a failing and a passing JSON Lines example) and
// attached with RegisterStream.

// FieldType says how a worker converts an extracted value.
type FieldType uint8

// Field types.
const (
	// FieldString: a JSON string, unescaped (Value.Str).
	FieldString FieldType = iota
	// FieldNumber: a JSON number (Value.Num).
	FieldNumber
	// FieldTime: a JSON string holding an RFC 3339 date-time (cue/README.md,
	// "All families"), parsed to Value.Time (Unix nanoseconds)
	// and Value.Str; a string that is not a date-time has Type ValueString.
	FieldTime
	// FieldRaw: any JSON value, as its JSON text (Value.Str, Type ValueRaw),
	// for the few values a rule decodes itself (an array of dependencies).
	FieldRaw
)

// A FieldType made by DigestField (from fieldDigest0 up) passes any JSON
// value as its digest (digest.go).

// Field is one value a stream rule needs from each record: an RFC 6901
// JSON Pointer made of object member names only ("/timestamp",
// "/correlation/trace_id"), and how to convert it.
type Field struct {
	Pointer string
	Type    FieldType
}

// ValueType is what the worker found at a Field's pointer.
type ValueType uint8

// Value types.
const (
	// ValueAbsent: the record has no value at the pointer.
	ValueAbsent ValueType = iota
	// ValueString: a string (also a FieldTime string that is not a date-time).
	ValueString
	// ValueNumber: a number (FieldNumber only).
	ValueNumber
	// ValueTime: an RFC 3339 date-time (FieldTime only).
	ValueTime
	// ValueOther: a value of another JSON type than the field's (null
	// included).
	ValueOther
	// ValueRaw: the JSON text of the value (FieldRaw only).
	ValueRaw
	// ValueDigest: the digest of the value (a field of a DigestField
	// type, whose Digest did not decline): Str holds its bytes.
	ValueDigest
)

// Value is one extracted value. Str points into the engine's buffers and is
// valid only during the Observe call: copy what you keep (string(v.Str)).
type Value struct {
	Type ValueType
	// Str is the unescaped string (ValueString, ValueTime), the JSON text
	// (ValueRaw) or the digest (ValueDigest).
	Str []byte
	// Num is the number (ValueNumber).
	Num float64
	// Time is the instant in Unix nanoseconds (ValueTime).
	Time int64
	// Column is the 1-based byte column where the value starts in its line
	// (0 when absent, and for documents: use StreamRecord.Locate).
	Column int
}

// StreamRecord is one record as a stream rule sees it: its 1-based line
// (0 for a document), whether the schema accepted it and the values of the
// rule's Fields, in the same order.
type StreamRecord struct {
	Line int
	// Offset is the byte offset of the record's first byte in its file
	// (after a byte-order mark), for Source; -1 for a document.
	Offset int64
	// Source re-reads earlier records of the file; nil when the file
	// cannot be read again (standard input): keep whole keys then.
	Source Source
	// Valid is false for a record that failed per-record validation (an
	// error of the schema or of a line rule) but is a JSON object; its
	// Values hold what could be extracted (a value the schema rejected is
	// there as found, or ValueOther).
	Valid  bool
	Values []Value
	// Doc is, for a document only, its decoded JSON form (map[string]any,
	// as rules.Doc.Value; not checked against the schema when Valid is
	// false); nil for JSON Lines records. Valid during Observe only.
	Doc any
	// Locate returns the 1-based line and column in the source of the value
	// at a JSON Pointer of Doc (or of its nearest ancestor); nil for JSON
	// Lines records. Valid during Observe only.
	Locate func(pointer string) (line, col int)
}

// Source re-reads the records of a file being linted, so that a stream
// rule may keep a hash and an offset of each id instead of the id and
// confirm a possible repeat exactly by reading the earlier record again
// ("a possible repeat must be confirmed exactly"). The engine
// gives one for the files it opens itself, valid until the end of the
// run's sequential stage.
type Source interface {
	// Values re-reads the record at byte offset off (a StreamRecord.Offset
	// of the same file) and extracts fields into out exactly as the engine
	// extracted them for Observe; false when it cannot (the file shrank or
	// vanished). out's strings are valid until the next call.
	Values(off int64, fields []Field, out []Value) bool
	// ReadAt reads the file's bytes at off (io.ReaderAt).
	ReadAt(p []byte, off int64) (int, error)
}

// StreamFinding is a finding of a stream or tree rule: the record it
// concerns (File is set by the engine for stream rules; a tree rule names
// it), the 1-based line and column (0 when unknown), the JSON Pointer of
// the value, a reason and optional details.
type StreamFinding struct {
	Rule    string
	File    string
	Line    int
	Column  int
	Pointer string
	Reason  string
	Extra   map[string]any
	// Checked says that the rule made sure that Reason and the strings of
	// Extra quote no secret (secrets.Scan finds none in each value they
	// quote, and none can span a value and the text around it): the engine
	// then fills the finding without scanning them again, which redacting
	// them would leave unchanged. False: the engine redacts them
	// (README, Codes and precedence: a secret is never echoed).
	Checked bool
}

// StreamReporter collects the findings of one stream or tree check, under
// its rule or (As) the other rules the check serves.
type StreamReporter struct {
	rule string
	on   bool
	sink *streamSink
}

type streamSink struct {
	out  []StreamFinding
	on   map[string]bool
	emit func(StreamFinding) // Stream: findings go there, not to out
	// counting: the findings are only counted (SetCounting)
	counting bool
}

// NewStreamReporter returns a reporter for rule id (for the engine and
// tests); also lists the other rules the check may report under with As
// that are switched on (the findings of any other rule are dropped).
func NewStreamReporter(id string, also ...string) *StreamReporter {
	s := &streamSink{on: map[string]bool{id: true}}
	for _, a := range also {
		s.on[a] = true
	}
	return &StreamReporter{rule: id, on: true, sink: s}
}

// As returns a reporter for rule id sharing r's findings: one check may
// report under several rules. A check attached to several rules always
// reports through As: the reporter it is given runs as the first of its
// rules that is on, which depends on the configuration. It panics on an
// unregistered ID.
func (r *StreamReporter) As(id string) *StreamReporter {
	if Lookup(id) == nil {
		panic("rules: StreamReporter.As: unknown rule " + id)
	}
	return &StreamReporter{rule: id, on: r.sink.on[id], sink: r.sink}
}

// Enabled reports whether the reporter's rule is switched on: a check may
// skip work whose findings would be dropped.
func (r *StreamReporter) Enabled() bool { return r.on }

// Report records a finding; its Rule is set to the reporter's rule. The
// finding is dropped when that rule is off.
func (r *StreamReporter) Report(f StreamFinding) {
	if !r.on {
		return
	}
	f.Rule = r.rule
	if r.sink.emit != nil {
		r.sink.emit(f)
		return
	}
	r.sink.out = append(r.sink.out, f)
}

// SetCounting marks the findings of r (and of the reporters As makes from
// it) as only counted: no one reads their Reason or Extra (a run that
// prints no finding, `agentlint lint --quiet`).
func (r *StreamReporter) SetCounting() { r.sink.counting = true }

// Counting reports whether the findings of r are only counted
// (SetCounting): a check may then leave their Reason and Extra empty
// instead of rendering them; their rule, file, line, column and pointer
// still count.
func (r *StreamReporter) Counting() bool { return r.sink.counting }

// Stream makes every later Report of r (and of the reporters As makes from
// it) pass its finding to emit at once instead of keeping it for Take: the
// engine writes the findings of an OrderedTreeState as they are reported,
// so that a run's memory does not grow with the number of its findings.
func (r *StreamReporter) Stream(emit func(StreamFinding)) { r.sink.emit = emit }

// Take returns the findings reported since the last Take (by r and every
// reporter As made from it) and forgets them. The slice is reused by later
// reports.
func (r *StreamReporter) Take() []StreamFinding {
	out := r.sink.out
	r.sink.out = r.sink.out[:0]
	return out
}

// StreamRule is the stream-level part of a registered rule.
type StreamRule interface {
	// Fields lists the values the rule needs from each record.
	Fields() []Field
	// NewFile returns the rule's state for one file of a kind it applies to.
	NewFile(file string, opts *Options) FileState
}

// FileState is a stream rule's state for one file.
type FileState interface {
	// Observe is called for each record that is a JSON object, in input
	// order, valid or not (rec.Valid). Findings concern rec (report them at
	// rec.Line). rec and its Values belong to the engine: do not modify
	// them, and keep none of them after the call (copy what you need).
	Observe(rec *StreamRecord, r *StreamReporter)
	// Finish is called after the file's last record.
	Finish(r *StreamReporter)
}

// Flusher is a FileState that decides a batch of records at once: for each
// batch (the records of one chunk of a file, in order) the engine calls
// Observe for each record, then Flush, before it writes the batch's
// records; Finish comes after the last batch's Flush. Observe may only note
// a record, and Flush decide the batch's records in order and report their
// findings, each with StreamFinding.Line set to its record's line (a
// record of the batch). Deciding a batch at once lets a rule whose tables
// exceed the caches load the slots the batch's lookups read together, so
// that their cache misses overlap instead of stalling one record at a time
// (the exact id sets of CL100 and CL101).
type Flusher interface {
	Flush(r *StreamReporter)
}

// Expecter is a FileState that remembers something of every record (an
// exact id set) and can make room for a whole file at once instead of
// growing its tables as it reads (growing reads every entry
// again). The engine calls Expect once, after the first batch of a file
// that it reads from disk, with the number of records the file holds by
// its size and the first batch's bytes per record; the state reserves room
// in proportion to what that batch gave it. An estimate too small only
// leaves growing to do, one too large costs memory in that proportion.
type Expecter interface {
	Expect(records int)
}

// KindRule is a stream rule that reads files of several kinds and needs
// different values from each (the rules of a VerMAS .work/ tree): the
// engine extracts, from the records of each kind, the fields KindFields
// returns for it, and creates file states with NewKindFile, which is given
// the kind. Fields must return the union of those fields (RegisterStream
// checks their pointers); NewFile is not called.
type KindRule interface {
	StreamRule
	KindFields(kind string) []Field
	NewKindFile(file, kind string, opts *Options) FileState
}

// TreeRule is a stream rule that also checks across the files of one run.
type TreeRule interface {
	StreamRule
	// NewTree returns the rule's state for one lint run.
	NewTree(opts *Options) TreeState
}

// TreeState is a tree rule's state for one run.
type TreeState interface {
	// AddFile is called with each file's finished state, in input order.
	AddFile(file string, st FileState)
	// Finish is called after the last file; findings name their File.
	Finish(r *StreamReporter)
}

// OrderedTreeState is a TreeState whose Finish reports its findings in the
// order the engine writes them: by file, in the order the files were first
// given to NewFile (a path linted twice ranks at its first time), and within
// a file by line. The engine then writes each finding as it is reported
// (StreamReporter.Stream) instead of keeping every finding until Finish
// returns: a finding that waits for the end of the run is only the state's
// own compact reference to it (CL101: a file, a line, a column and a
// 12-byte key), rendered when it is reported.
type OrderedTreeState interface {
	TreeState
	// ReportsInOrder marks the state; it does nothing.
	ReportsInOrder()
}

// SourceReleaser is a Source that holds resources (an open file) which a
// rule that has read all it needs of it may release; reading it again
// acquires them again. A tree rule that reads the records of many files
// at the end of a run releases each file when done with it, so that the
// files are not all open at once.
type SourceReleaser interface {
	Source
	Release()
}

// RegisterStream attaches the stream-level check s to the registered rule
// id. The same check may be attached to several rules (it must then be
// comparable, e.g. a pointer): it runs once per file when at least one of
// them applies to the file's kind and is on, and reports under them with
// StreamReporter.As. It panics when id is not registered or already has a
// check (programming errors caught by every test); that s declares only
// JSON Pointers of member names is checked by TestRegistryWellFormed. The
// built-in rules attach theirs in their group's definitions
// (registerStream); RegisterStream is for rules defined elsewhere (tests).
func RegisterStream(id string, s StreamRule) {
	load(groupOf(id))
	regMu.Lock()
	defer regMu.Unlock()
	begin()
	registerStream(id, s)
	publish()
}

// registerStream is RegisterStream within a change of the registry (regMu
// held).
func registerStream(id string, s StreamRule) {
	if next.rules[id] == nil {
		panic("rules: RegisterStream: unknown rule " + id)
	}
	if next.streams[id] != nil {
		panic("rules: RegisterStream: rule " + id + " already has a stream check")
	}
	next.streams[id] = s
}

// Stream returns the stream-level check of rule id, or nil.
func Stream(id string) StreamRule {
	load(groupOf(id))
	return snap().streams[id]
}

// StreamsForKind returns the IDs of the rules with a stream-level check that
// apply to kind, sorted.
func StreamsForKind(kind string) []string {
	loadKind(kind)
	s := snap()
	var out []string
	for id := range s.streams {
		if s.rules[id].AppliesTo(kind) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// PointerTokens splits an RFC 6901 JSON Pointer into its unescaped
// reference tokens ("/a~1b/c" → ["a/b", "c"]). ok is false for "" (the whole
// record) and for text that is not a pointer.
func PointerTokens(p string) (tokens []string, ok bool) {
	return appendPointerTokens(nil, p)
}

// appendPointerTokens is PointerTokens appending the tokens to dst (nil,
// false for a malformed pointer), so that a caller with a small array
// reads a pointer without allocating.
func appendPointerTokens(dst []string, p string) ([]string, bool) {
	if p == "" || p[0] != '/' {
		return nil, false
	}
	for rest, more := p[1:], true; more; {
		var t string
		t, rest, more = strings.Cut(rest, "/")
		for i := 0; i < len(t); i++ {
			if t[i] == '~' && (i+1 == len(t) || (t[i+1] != '0' && t[i+1] != '1')) {
				return nil, false
			}
		}
		dst = append(dst, unescapeToken(t))
	}
	return dst, true
}

// unescapeToken undoes escapeToken on a token whose every "~" is followed
// by "0" or "1" (PointerTokens checks).
func unescapeToken(t string) string {
	if strings.IndexByte(t, '~') < 0 {
		return t
	}
	b := make([]byte, 0, len(t))
	for i := 0; i < len(t); i++ {
		if t[i] == '~' && i+1 < len(t) {
			i++
			if t[i] == '1' {
				b = append(b, '/')
			} else {
				b = append(b, '~')
			}
			continue
		}
		b = append(b, t[i])
	}
	return string(b)
}
