package rules

import (
	"sort"
	"strings"
)

// Stream rules need the records of a JSON Lines file in input order:
// duplicate ids, references to earlier records, timestamps that never go
// backwards, replays (CONTRACT.md section 6, "Stream-level rules ... run
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
// No cascades (issue 4): a record that failed per-record validation but is
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
	// FieldTime: a JSON string holding an RFC 3339 date-time (CONTRACT.md
	// section 4, "All families"), parsed to Value.Time (Unix nanoseconds)
	// and Value.Str; a string that is not a date-time has Kind ValueString.
	FieldTime
)

// Field is one value a stream rule needs from each record: an RFC 6901
// JSON Pointer made of object member names only ("/timestamp",
// "/correlation/trace_id"), and how to convert it.
type Field struct {
	Pointer string
	Type    FieldType
}

// ValueKind is what the worker found at a Field's pointer.
type ValueKind uint8

// Value kinds.
const (
	// ValueAbsent: the record has no value at the pointer.
	ValueAbsent ValueKind = iota
	// ValueString: a string (also a FieldTime string that is not a date-time).
	ValueString
	// ValueNumber: a number (FieldNumber only).
	ValueNumber
	// ValueTime: an RFC 3339 date-time (FieldTime only).
	ValueTime
	// ValueOther: a value of another JSON type than the field's.
	ValueOther
)

// Value is one extracted value. Str points into the engine's buffers and is
// valid only during the Observe call: copy what you keep (string(v.Str)).
type Value struct {
	Kind ValueKind
	// Str is the unescaped string (ValueString, ValueTime).
	Str []byte
	// Num is the number (ValueNumber).
	Num float64
	// Time is the instant in Unix nanoseconds (ValueTime).
	Time int64
	// Column is the 1-based byte column where the value starts in its line
	// (0 when absent).
	Column int
}

// StreamRecord is one record as a stream rule sees it: its 1-based line,
// whether the schema accepted it and the values of the rule's Fields, in the
// same order.
type StreamRecord struct {
	Line int
	// Valid is false for a record that failed per-record validation (an
	// error of the schema or of a line rule) but is a JSON object; its
	// Values hold what could be extracted (a value the schema rejected is
	// there as found, or ValueOther).
	Valid  bool
	Values []Value
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
}

// StreamReporter collects the findings of one stream or tree rule.
type StreamReporter struct {
	rule string
	out  []StreamFinding
}

// NewStreamReporter returns a reporter for rule id (for the engine and tests).
func NewStreamReporter(id string) *StreamReporter { return &StreamReporter{rule: id} }

// Report records a finding; its Rule is set to the reporter's rule.
func (r *StreamReporter) Report(f StreamFinding) {
	f.Rule = r.rule
	r.out = append(r.out, f)
}

// Take returns the findings reported since the last Take and forgets them.
// The slice is reused by later reports.
func (r *StreamReporter) Take() []StreamFinding {
	out := r.out
	r.out = r.out[:0]
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
	// rec.Line).
	Observe(rec *StreamRecord, r *StreamReporter)
	// Finish is called after the file's last record.
	Finish(r *StreamReporter)
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

var streams = map[string]StreamRule{}

// RegisterStream attaches the stream-level check s to the registered rule
// id. It panics when id is not registered, already has one, or declares a
// pointer that is not a JSON Pointer of member names (programming errors
// caught by every test).
func RegisterStream(id string, s StreamRule) {
	if registry[id] == nil {
		panic("rules: RegisterStream: unknown rule " + id)
	}
	if streams[id] != nil {
		panic("rules: RegisterStream: rule " + id + " already has a stream check")
	}
	for _, f := range s.Fields() {
		if _, ok := PointerTokens(f.Pointer); !ok {
			panic("rules: RegisterStream: rule " + id + ": bad field pointer " + f.Pointer)
		}
	}
	streams[id] = s
}

// Stream returns the stream-level check of rule id, or nil.
func Stream(id string) StreamRule { return streams[id] }

// StreamsForKind returns the IDs of the rules with a stream-level check that
// apply to kind, sorted.
func StreamsForKind(kind string) []string {
	var out []string
	for id := range streams {
		if registry[id].AppliesTo(kind) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// PointerTokens splits an RFC 6901 JSON Pointer into its unescaped
// reference tokens ("/a~1b/c" → ["a/b", "c"]). ok is false for "" (the whole
// record) and for text that is not a pointer.
func PointerTokens(p string) (tokens []string, ok bool) {
	if p == "" || p[0] != '/' {
		return nil, false
	}
	for _, t := range strings.Split(p[1:], "/") {
		for i := 0; i < len(t); i++ {
			if t[i] == '~' && (i+1 == len(t) || (t[i+1] != '0' && t[i+1] != '1')) {
				return nil, false
			}
		}
		tokens = append(tokens, pointerUnescaper.Replace(t))
	}
	return tokens, true
}
