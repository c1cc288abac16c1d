package rules

import (
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Stream rules of idle loop event logs (seed 002 "Event Schema (v0)";
// issue 4, "Within one log"; CONTRACT.md section 3, INVALID_TRANSITION: "an
// idle run that goes on after its DONE/ABORT"). One log is one file.
//
// DONE and ABORT carry no run_id (seed 002 sections 4.2 and 4.3): they end
// the run of the latest STATE before them in the same log, the loop that was
// current on the loop:current topic when it ended. A DONE or ABORT before any
// STATE ends no run. ANCHOR events (topic loop:anchor) are not part of a
// run's state and are ignored.
//
//   - IL100: a STATE of a run that a DONE or ABORT ended (INVALID_TRANSITION,
//     naming the line of the DONE or ABORT). The STATE reopens the run, so a
//     run that goes on for many STATEs is reported once, at the first.
//   - IL101: within one run, a stack frame's iter never decreases: the frame
//     of the same id in a later STATE of the run has an iter >= the earlier
//     one (seed 002 section 5: iter is the current iteration). A new frame
//     id (the next issue of a grind) starts its own count. The first
//     IdleFrames frames of each stack are checked.
//
// Only valid records take part: an invalid STATE has its own envelope.

// IdleFrames is how many stack frames, from the bottom, IL101 follows (the
// seed's deepest example has two: grind, then issue).
const IdleFrames = 8

// idleFields are the values both idle stream rules read: event, run_id, then
// id and iter of the first IdleFrames frames.
func idleFields(frames int) []Field {
	fs := []Field{{Pointer: "/event", Type: FieldString}, {Pointer: "/run_id", Type: FieldString}}
	for i := 0; i < frames; i++ {
		n := strconv.Itoa(i)
		fs = append(fs, Field{Pointer: "/stack/" + n + "/id", Type: FieldString}, Field{Pointer: "/stack/" + n + "/iter", Type: FieldNumber})
	}
	return fs
}

// idleAfterEnd is the stream check of IL100.
type idleAfterEnd struct{}

func (idleAfterEnd) Fields() []Field { return idleFields(0) }

func (idleAfterEnd) NewFile(string, *Options) FileState {
	return &idleAfterEndState{ended: map[string]idleEnd{}}
}

// idleEnd is the DONE or ABORT that ended a run.
type idleEnd struct {
	event string
	line  int32
}

type idleAfterEndState struct {
	current string             // run_id of the latest STATE
	ended   map[string]idleEnd // run_id → its DONE or ABORT
}

func (s *idleAfterEndState) Observe(rec *StreamRecord, r *StreamReporter) {
	ev, run := &rec.Values[0], &rec.Values[1]
	if !rec.Valid || ev.Kind != ValueString {
		return
	}
	switch string(ev.Str) {
	case "STATE":
		if run.Kind != ValueString {
			return
		}
		if end, ok := s.ended[string(run.Str)]; ok {
			r.Report(StreamFinding{
				Line: rec.Line, Column: run.Column, Pointer: "/run_id",
				Reason: "run " + string(run.Str) + " goes on after its " + end.event + " on line " + strconv.Itoa(int(end.line)) +
					" (a DONE or ABORT ends the run of the latest STATE before it)",
				Extra: map[string]any{"end_line": int(end.line), "end_event": end.event},
			})
			delete(s.ended, string(run.Str))
		}
		if string(run.Str) != s.current {
			s.current = string(run.Str)
		}
	case "DONE", "ABORT":
		if s.current != "" {
			s.ended[s.current] = idleEnd{event: string(ev.Str), line: int32(rec.Line)}
		}
	}
}

func (s *idleAfterEndState) Finish(*StreamReporter) {}

// idleIter is the stream check of IL101.
type idleIter struct{}

func (idleIter) Fields() []Field { return idleFields(IdleFrames) }

func (idleIter) NewFile(string, *Options) FileState {
	return &idleIterState{last: map[string]*frameIter{}}
}

// frameIter is the latest iter of one frame of one run.
type frameIter struct {
	iter float64
	line int32
}

// idleIterState maps (run_id, frame id) (pairKey) to the frame's latest
// iter, updated in place (a key is allocated once per frame).
type idleIterState struct {
	last map[string]*frameIter
	key  []byte
}

func (s *idleIterState) Observe(rec *StreamRecord, r *StreamReporter) {
	ev, run := &rec.Values[0], &rec.Values[1]
	if !rec.Valid || ev.Kind != ValueString || string(ev.Str) != "STATE" || run.Kind != ValueString {
		return
	}
	for i := 0; 2+2*i+1 < len(rec.Values); i++ {
		id, iter := &rec.Values[2+2*i], &rec.Values[2+2*i+1]
		if id.Kind == ValueAbsent {
			break
		}
		if id.Kind != ValueString || iter.Kind != ValueNumber {
			continue
		}
		s.key = pairKey(s.key, run.Str, id.Str)
		prev := s.last[string(s.key)]
		if prev == nil {
			s.last[string(s.key)] = &frameIter{iter: iter.Num, line: int32(rec.Line)}
			continue
		}
		if iter.Num < prev.iter {
			r.Report(StreamFinding{
				Line: rec.Line, Column: iter.Column, Pointer: "/stack/" + strconv.Itoa(i) + "/iter",
				Reason: "iter " + strconv.FormatFloat(iter.Num, 'f', -1, 64) + " of frame " + string(id.Str) + " is lower than its iter " +
					strconv.FormatFloat(prev.iter, 'f', -1, 64) + " on line " + strconv.Itoa(int(prev.line)) +
					" (within run " + string(run.Str) + ", a frame's iteration never goes back)",
				Extra: map[string]any{"previous_line": int(prev.line), "previous_iter": prev.iter, "frame": string(id.Str)},
			})
		}
		if iter.Num != prev.iter {
			prev.iter, prev.line = iter.Num, int32(rec.Line)
		}
	}
}

func (s *idleIterState) Finish(*StreamReporter) {}

func init() {
	state := func(iter string) string { return strings.Replace(idleState, `"iter":3`, `"iter":`+iter, 1) }
	done := `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`
	il := []string{"idle/event"}
	Register(
		&Rule{
			ID: "IL100", Name: "state-after-end", Code: envelope.InvalidTransition, Severity: envelope.SeverityError, Kinds: il,
			Summary: "a STATE of a run that a DONE or ABORT already ended (DONE and ABORT end the run of the latest STATE before them in the log)",
			Source:  "seed 002 sections 3 and 4 (DONE signals completion, ABORT cancellation; neither carries run_id); issue 4, idle; CONTRACT.md section 3, INVALID_TRANSITION",
			// The examples are outside the TTL of --now: IL013 warns, as it should.
			ExampleKind: "idle/event",
			Example:     state("3") + "\n" + done + "\n" + state("4"),
			Fixed:       state("3") + "\n" + state("4") + "\n" + done,
		},
		&Rule{
			ID: "IL101", Name: "frame-iter-order", Code: envelope.InvalidTransition, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "within one run, a stack frame's iter is lower than in an earlier STATE of the run (iterations never go back)",
			Source:      "seed 002 section 5 (iter: current iteration, 1-based); issue 4, idle; CONTRACT.md section 3, INVALID_TRANSITION",
			ExampleKind: "idle/event",
			Example:     state("3") + "\n" + state("2"),
			Fixed:       state("2") + "\n" + state("3"),
		},
	)
	RegisterStream("IL100", idleAfterEnd{})
	RegisterStream("IL101", idleIter{})
}
