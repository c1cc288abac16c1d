package rules

import "unsafe"

// FieldList declares, by name, the values a stream rule reads from each
// record: every call adds one Field and returns its FieldRef, with which
// the rule reads the value back (StreamRecord.Get), so that the pointers and
// the code that reads them cannot drift apart as positional indices can.
// Declare it once, at package level, next to the rule:
//
//	var sessionFields FieldList
//	var sessionID = sessionFields.String("/session_id")
//
// A FieldList holds at most 64 fields (the engine's limit per rule).
type FieldList struct{ fields []Field }

// FieldRef names one field of a FieldList: its index in the list's Fields
// and in StreamRecord.Values.
type FieldRef int

func (l *FieldList) add(pointer string, t FieldType) FieldRef {
	l.fields = append(l.fields, Field{Pointer: pointer, Type: t})
	return FieldRef(len(l.fields) - 1)
}

// String declares a JSON string at pointer (Value.Str, Value.Text).
func (l *FieldList) String(pointer string) FieldRef { return l.add(pointer, FieldString) }

// Number declares a JSON number at pointer (Value.Num).
func (l *FieldList) Number(pointer string) FieldRef { return l.add(pointer, FieldNumber) }

// Time declares an RFC 3339 date-time string at pointer (Value.Time, Unix
// nanoseconds; a string that is not a date-time is a ValueString).
func (l *FieldList) Time(pointer string) FieldRef { return l.add(pointer, FieldTime) }

// Raw declares any JSON value at pointer, as its JSON text (Value.Str).
func (l *FieldList) Raw(pointer string) FieldRef { return l.add(pointer, FieldRaw) }

// Digested declares any JSON value at pointer, passed as its digest
// (Value.Str, Type ValueDigest) or, when the digest declines, as its JSON
// text (Type ValueRaw); t is a DigestField type.
func (l *FieldList) Digested(pointer string, t FieldType) FieldRef { return l.add(pointer, t) }

// Fields returns the declared fields, in declaration order (StreamRule.Fields).
func (l *FieldList) Fields() []Field { return l.fields }

// Get returns the value of field f of the record (a FieldRef of the
// rule's FieldList). It belongs to the engine: valid during Observe only.
func (rec *StreamRecord) Get(f FieldRef) *Value { return &rec.Values[f] }

// Text returns a string value's text (ValueString or ValueTime), "" for any
// other value. It points into the engine's buffer without a copy: valid
// during Observe only; convert it (strings.Clone) to keep it.
func (v *Value) Text() string {
	if (v.Type != ValueString && v.Type != ValueTime) || len(v.Str) == 0 {
		return ""
	}
	return unsafe.String(&v.Str[0], len(v.Str))
}

// FileCheck is a stream rule written as functions over a state S of one
// file: the shortest way to add a stream rule (rules/README.md, "Adding a
// rule"). The engine makes a new S for every file of a kind the rule
// applies to (New, or the zero S), calls Observe for each record that is a
// JSON object, in input order (rec.Valid says whether it passed per-record
// validation), and Finish after the file's last record. Findings of Observe
// concern rec; those of Finish name their Line. Attach it with
// RegisterStream (a *FileCheck: the engine compares checks by identity).
type FileCheck[S any] struct {
	// Reads are the values the rule needs from each record (a
	// FieldList's Fields).
	Reads []Field
	// New returns the state of one file; nil: the zero S.
	New func(file string, opts *Options) *S
	// Observe checks one record.
	Observe func(s *S, rec *StreamRecord, r *StreamReporter)
	// Finish reports what only the whole file decides; nil: nothing.
	Finish func(s *S, r *StreamReporter)
}

// Fields implements StreamRule.
func (c *FileCheck[S]) Fields() []Field { return c.Reads }

// NewFile implements StreamRule.
func (c *FileCheck[S]) NewFile(file string, opts *Options) FileState {
	st := &fileCheckState[S]{c: c}
	if c.New != nil {
		st.s = c.New(file, opts)
	} else {
		st.s = new(S)
	}
	return st
}

// fileCheckState is the FileState of a FileCheck.
type fileCheckState[S any] struct {
	c *FileCheck[S]
	s *S
}

func (st *fileCheckState[S]) Observe(rec *StreamRecord, r *StreamReporter) {
	st.c.Observe(st.s, rec, r)
}

func (st *fileCheckState[S]) Finish(r *StreamReporter) {
	if st.c.Finish != nil {
		st.c.Finish(st.s, r)
	}
}
