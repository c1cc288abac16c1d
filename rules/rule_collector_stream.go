package rules

import (
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Stream rules of collector logs (seed 004 "JSONL Event System
// Specification"; issue 4, "Within one log"): every events-*.jsonl and
// decisions-*.jsonl file is one log, checked on its own.
//
//   - CL100: an event_id appears once per log (seed 004: "UUID for this
//     event"). UUIDs are compared as 128-bit values, so the same UUID in
//     upper and lower case is a duplicate (RFC 9562 section 4: UUIDs are
//     case-insensitive on input); other strings are compared as written.
//   - CL101: correlation.parent_span_id names a span_id seen earlier in the
//     same trace_id (seed 004 "Correlation Object", OpenTelemetry trace
//     context: a parent span starts before its children). Events without a
//     trace_id form one trace of their own.
//   - CL102: timestamps never go backwards (warning).
//
// No cascades (ISSUE4.md): a record that failed validation still registers
// its event_id and span_id when they are strings; only valid records are
// checked for dangling parents and time order.

// collectorTrace is seed 004's "Multi-Agent Pipeline" example with event ids:
// its spans form a tree inside trace-abc.
var collectorTrace = []string{
	`{"version":"1.0.0","event_type":"lifecycle.started","timestamp":"2025-12-13T20:00:00.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000001","session_id":"pipeline-001","message":"Starting PRD creation","correlation":{"trace_id":"trace-abc","span_id":"span-001"}}`,
	`{"version":"1.0.0","event_type":"activity.thinking","timestamp":"2025-12-13T20:00:05.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000002","session_id":"pipeline-001","message":"Analyzing requirements","correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-001"}}`,
	`{"version":"1.0.0","event_type":"lifecycle.completed","timestamp":"2025-12-13T20:05:00.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000003","session_id":"pipeline-001","message":"PRD complete","correlation":{"trace_id":"trace-abc","span_id":"span-003","parent_span_id":"span-001"}}`,
}

// uuidKey returns the 128-bit value of a UUID in the 8-4-4-4-12 layout
// (hex digits of either case); ok is false for anything else.
func uuidKey(s []byte) (k [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	n := 0
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		c := s[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return k, false
		}
		k[n/2] |= d << (4 * (1 - n%2))
		n++
	}
	return k, true
}

// collectorDupID is the stream check of CL100.
type collectorDupID struct{}

func (collectorDupID) Fields() []Field { return []Field{{Pointer: "/event_id", Type: FieldString}} }

func (collectorDupID) NewFile(string, *Options) FileState {
	return &collectorDupIDState{uuids: map[[16]byte]int32{}, other: firstLines{}}
}

// collectorDupIDState keeps the first line of every event_id: UUIDs as 16
// bytes, other strings (which the schema rejects) as written.
type collectorDupIDState struct {
	uuids map[[16]byte]int32
	other firstLines
}

func (s *collectorDupIDState) Observe(rec *StreamRecord, r *StreamReporter) {
	v := &rec.Values[0]
	if v.Kind != ValueString {
		return
	}
	first, dup := 0, false
	if k, ok := uuidKey(v.Str); ok {
		if l, seen := s.uuids[k]; seen {
			first, dup = int(l), true
		} else {
			s.uuids[k] = int32(rec.Line)
		}
	} else {
		first, dup = s.other.see(v.Str, rec.Line)
	}
	if dup {
		r.Report(StreamFinding{
			Line: rec.Line, Column: v.Column, Pointer: "/event_id",
			Reason: "event_id " + strconv.Quote(string(v.Str)) + " was already used on line " + strconv.Itoa(first) + " (an event_id identifies one event)",
			Extra:  map[string]any{"first_line": first},
		})
	}
}

func (s *collectorDupIDState) Finish(*StreamReporter) {}

// collectorParentSpan is the stream check of CL101. Bound to a run
// (RunBinder), it also collects the distinct trace_id values of every
// collector log of the run, valid records or not: the summary reports their
// number as correlation_groups.trace_id (issue 4: correlation groups are
// reported in the summary).
type collectorParentSpan struct {
	traces map[string]struct{} // nil in the registered value
}

// BindRun implements RunBinder.
func (collectorParentSpan) BindRun(run *LintRun) StreamRule {
	return &collectorParentSpan{traces: run.Group("trace_id")}
}

func (collectorParentSpan) Fields() []Field {
	return []Field{
		{Pointer: "/correlation/trace_id", Type: FieldString},
		{Pointer: "/correlation/span_id", Type: FieldString},
		{Pointer: "/correlation/parent_span_id", Type: FieldString},
	}
}

func (c collectorParentSpan) NewFile(string, *Options) FileState {
	return &collectorSpanState{ids: map[string]uint32{}, spans: map[spanKey]struct{}{}, long: firstLines{}, traces: c.traces}
}

// collectorSpanState keeps the spans seen so far, by (trace_id, span_id):
// each trace_id of the file once (ids: its number, 0 for the events without
// a trace_id), each span as a fixed 24-byte key of that number and the
// span_id (about 35 bytes a span, no allocation), or, for a span_id longer
// than spanMax bytes, as a string key (long, pairKey).
type collectorSpanState struct {
	ids    map[string]uint32
	spans  map[spanKey]struct{}
	long   firstLines
	key    []byte
	traces map[string]struct{} // the run's trace_ids
}

// spanMax is the longest span_id a spanKey holds.
const spanMax = 19

// spanKey is a span of one trace: the trace's number, the span_id's length
// and its bytes.
type spanKey struct {
	trace uint32
	n     uint8
	span  [spanMax]byte
}

// traceID returns the number of trace (0: absent), numbering new ones.
func (s *collectorSpanState) traceID(trace *Value) uint32 {
	if trace.Kind != ValueString {
		return 0
	}
	id, ok := s.ids[string(trace.Str)]
	if !ok {
		id = uint32(len(s.ids) + 1)
		s.ids[string(trace.Str)] = id
	}
	return id
}

// seen reports whether span of trace was recorded; add records it.
func (s *collectorSpanState) seen(trace uint32, traceStr, span []byte, add bool) bool {
	if len(span) > spanMax {
		s.key = pairKey(s.key, traceStr, span)
		if add {
			s.long.see(s.key, 0)
			return true
		}
		_, ok := s.long[string(s.key)]
		return ok
	}
	k := spanKey{trace: trace, n: uint8(len(span))}
	copy(k.span[:], span)
	if add {
		s.spans[k] = struct{}{}
		return true
	}
	_, ok := s.spans[k]
	return ok
}

func (s *collectorSpanState) Observe(rec *StreamRecord, r *StreamReporter) {
	trace, span, parent := &rec.Values[0], &rec.Values[1], &rec.Values[2]
	if trace.Kind != ValueString && trace.Kind != ValueAbsent {
		return
	}
	if trace.Kind == ValueString && s.traces != nil {
		if _, ok := s.traces[string(trace.Str)]; !ok {
			s.traces[string(trace.Str)] = struct{}{}
		}
	}
	tid := s.traceID(trace)
	if rec.Valid && parent.Kind == ValueString {
		if !s.seen(tid, trace.Str, parent.Str, false) {
			where := "trace_id " + strconv.Quote(string(trace.Str))
			if trace.Kind == ValueAbsent {
				where = "the events without a trace_id"
			}
			r.Report(StreamFinding{
				Line: rec.Line, Column: parent.Column, Pointer: "/correlation/parent_span_id",
				Reason: "parent_span_id " + strconv.Quote(string(parent.Str)) + " names no span_id seen earlier in " + where +
					" (a parent span is logged before its children)",
				Extra: map[string]any{"trace_id": string(trace.Str)},
			})
		}
	}
	if span.Kind == ValueString {
		s.seen(tid, trace.Str, span.Str, true)
	}
}

func (s *collectorSpanState) Finish(*StreamReporter) {}

func init() {
	cl := []string{"collector/event"}
	trace := strings.Join(collectorTrace, "\n")
	Register(
		&Rule{
			ID: "CL100", Name: "duplicate-event-id", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError, Kinds: cl,
			Summary: "an event_id appears once per collector log (UUIDs compared as 128-bit values); the finding names the line of the first occurrence",
			Source:  "seed 004 Optional Fields (event_id: UUID for this event); issue 4, Duplicate ids; CONTRACT.md section 3, LEDGER_INCONSISTENT",
			// The third event reuses the first one's id, in upper case.
			ExampleKind: "collector/event",
			Example:     collectorTrace[0] + "\n" + collectorTrace[1] + "\n" + strings.Replace(collectorTrace[2], "0b6f3c1e-1d2a-4b7c-9e8f-000000000003", "0B6F3C1E-1D2A-4B7C-9E8F-000000000001", 1),
			Fixed:       trace,
		},
		&Rule{
			ID: "CL101", Name: "dangling-parent-span", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "correlation.parent_span_id must name a span_id seen earlier in the same trace_id of the log",
			Source:      "seed 004 Correlation Object and Multi-Agent Pipeline example; issue 4, References; CONTRACT.md section 3, LEDGER_INCONSISTENT (dangling references across records)",
			ExampleKind: "collector/event",
			Example:     collectorTrace[0] + "\n" + strings.Replace(collectorTrace[1], `"parent_span_id":"span-001"`, `"parent_span_id":"span-000"`, 1),
			Fixed:       collectorTrace[0] + "\n" + collectorTrace[1],
		},
		&Rule{
			ID: "CL102", Name: "collector-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning, Kinds: cl,
			Summary:     "a collector event's timestamp is earlier than the previous event's (the log is append-only, in time order); both lines are named",
			Source:      "seed 004 Overview (audit trails, one event per line); issue 4, Ordering; CONTRACT.md section 3, LEDGER_INCONSISTENT",
			ExampleKind: "collector/event",
			Example:     collectorTrace[0] + "\n" + strings.Replace(collectorTrace[1], "2025-12-13T20:00:05.000Z", "2025-12-13T19:59:05.000Z", 1),
			Fixed:       collectorTrace[0] + "\n" + collectorTrace[1],
		},
	)
	RegisterStream("CL100", collectorDupID{})
	RegisterStream("CL101", &collectorParentSpan{})
	RegisterStream("CL102", timeOrder{Pointer: "/timestamp", Log: "a collector log"})
}
