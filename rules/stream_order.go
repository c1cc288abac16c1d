package rules

import (
	"encoding/binary"
	"strconv"
)

// Building blocks of the stream rules of the collector, ledger and idle
// families ("Within one log"): timestamps that never go backwards
// and ids seen before. They keep compact keys and line numbers, never
// records: memory grows with the number of distinct ids, not with the
// length of the log.

// timeOrder is a stream check "the timestamps of an append-only log never go
// backwards" (cue/README.md, Decisions, "Ordering": a warning naming both lines).
// Each valid record's timestamp at Pointer is compared with the previous
// valid record's; an invalid record, or one without a date-time there, is
// not compared and does not become the previous one. An equal timestamp is
// in order.
type timeOrder struct {
	// Pointer is the JSON Pointer of the timestamp ("/timestamp", "/ts").
	Pointer string
	// Log says what kind of log it is, for the reason ("a collector log").
	Log string
}

func (t timeOrder) Fields() []Field { return []Field{{Pointer: t.Pointer, Type: FieldTime}} }

func (t timeOrder) NewFile(string, *Options) FileState { return &timeOrderState{t: t} }

type timeOrderState struct {
	t        timeOrder
	prevLine int // 0 before the first timestamp
	prev     int64
	prevText []byte // reused: no allocation per record
}

// Observe compares rec's timestamp with the previous valid record's.
func (s *timeOrderState) Observe(rec *StreamRecord, r *StreamReporter) {
	v := &rec.Values[0]
	if !rec.Valid || v.Type != ValueTime {
		return
	}
	if s.prevLine > 0 && v.Time < s.prev {
		r.Report(StreamFinding{
			Line: rec.Line, Column: v.Column, Pointer: s.t.Pointer,
			Reason: s.t.Pointer[1:] + " " + string(v.Str) + " is earlier than " + string(s.prevText) + " on line " + strconv.Itoa(s.prevLine) +
				" (" + s.t.Log + " is append-only: records are in time order)",
			Extra: map[string]any{"previous_line": s.prevLine, "previous": string(s.prevText)},
		})
	}
	s.prevLine, s.prev = rec.Line, v.Time
	s.prevText = append(s.prevText[:0], v.Str...)
}

func (s *timeOrderState) Finish(*StreamReporter) {}

// firstLines maps an id to the 1-based line of its first occurrence in one
// log. Lines are kept as int32 (logs of more than 2^31 lines wrap, which
// only affects the line named in a finding).
type firstLines map[string]int32

// see records id at line and returns the line of its first occurrence and
// whether that was an earlier record (a duplicate). The lookup does not
// allocate; a new id is copied once.
func (m firstLines) see(id []byte, line int) (first int, dup bool) {
	if l, ok := m[string(id)]; ok {
		return int(l), true
	}
	m[string(id)] = int32(line)
	return line, false
}

// pairKey writes into dst[:0] the map key of the pair (a, b): the length of
// a as a uvarint, a, then b, so that no two pairs share a key.
func pairKey(dst, a, b []byte) []byte {
	return append(append(binary.AppendUvarint(dst[:0], uint64(len(a))), a...), b...)
}
