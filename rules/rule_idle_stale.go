package rules

import "time"

// The stream check of IL013 (stale-state) for idle loop event logs.
//
// seed 002 (Event Schema v0), Topic Naming: loop:current is a last-value
// topic, so the 2-hour TTL of seed 002 section 4.1 applies to its current value only:
// the last STATE of the log, when no DONE or ABORT came after it (those end
// the run of the latest STATE before them). A superseded STATE of the
// history is not stale: a newer one replaced it.
//
// The clock is --now when given (Options.Now), and otherwise the log's own:
// the latest timestamp it holds (a STATE's updated_at, an ANCHOR's
// timestamp). So `agentlint lint` without --now gives the same verdict for
// the same log at any wall-clock time, and a log is stale without --now
// only when it records, itself, a later moment more than 2 hours after its
// current STATE. The runtime gates (`validate`) pass the current time.

// idleStaleFields: event, updated_at (STATE), timestamp (ANCHOR).
var idleStaleFields = []Field{{Pointer: "/event", Type: FieldString}, {Pointer: "/updated_at", Type: FieldTime}, {Pointer: "/timestamp", Type: FieldTime}}

// idleStale is the stream check of IL013.
type idleStale struct{}

func (idleStale) Fields() []Field { return idleStaleFields }

func (idleStale) NewFile(_ string, o *Options) FileState {
	s := &idleStaleState{}
	if o != nil {
		s.now = o.Now
	}
	return s
}

type idleStaleState struct {
	now    time.Time // --now; zero: the log's own clock
	latest int64     // the latest timestamp of the log, Unix nanoseconds
	seen   bool      // latest is set
	// The current STATE: open while no DONE or ABORT followed it.
	open   bool
	line   int
	column int
	at     int64
	text   []byte // its updated_at as written
}

func (s *idleStaleState) Observe(rec *StreamRecord, _ *StreamReporter) {
	if !rec.Valid {
		return
	}
	ev, upd, ts := &rec.Values[0], &rec.Values[1], &rec.Values[2]
	for _, v := range []*Value{upd, ts} {
		if v.Type == ValueTime && (!s.seen || v.Time > s.latest) {
			s.latest, s.seen = v.Time, true
		}
	}
	if ev.Type != ValueString {
		return // an ANCHOR (no event) is not part of a run's state
	}
	switch string(ev.Str) {
	case "STATE":
		s.open = upd.Type == ValueTime
		if s.open {
			s.line, s.column, s.at, s.text = rec.Line, upd.Column, upd.Time, append(s.text[:0], upd.Str...)
		}
	case "DONE", "ABORT":
		s.open = false
	}
}

// Finish reports the current STATE when it is older than the TTL.
func (s *idleStaleState) Finish(r *StreamReporter) {
	if !s.open {
		return
	}
	clock, against := s.latest, "the latest timestamp of the log"
	if !s.now.IsZero() {
		clock, against = s.now.UnixNano(), "now"
	}
	age := time.Duration(clock - s.at)
	if age <= IdleStateTTL {
		return
	}
	r.Report(StreamFinding{
		Line: s.line, Column: s.column, Pointer: "/updated_at",
		Reason: "current STATE is stale: updated_at " + string(s.text) + " is " + age.Round(time.Second).String() + " before " + against +
			" (TTL 2h; no DONE or ABORT followed it)",
		Extra: map[string]any{"age_seconds": int64(age / time.Second), "clock": clockName(s.now.IsZero())},
	})
}

// clockName names the clock a time rule used, for details: "now" (--now or
// the current time) or "log" (the data's own latest timestamp).
func clockName(log bool) string {
	if log {
		return "log"
	}
	return "now"
}
