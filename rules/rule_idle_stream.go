package rules

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
)

// Stream rules of idle loop event logs (seed 002 "Event Schema (v0)";
// README, Codes and precedence, INVALID_TRANSITION: "an
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
//     id (the next issue of a grind) starts its own count. Every frame of
//     the stack is checked: the workers pass the stack's digest
//     (idleStackDigest: each frame's id and iter), which the document
//     rules of a STATE read too; a stack it declines comes as its JSON
//     text, which the rule decodes.
//
// Only valid records take part: an invalid STATE has its own envelope.

// idleFields are the values the idle stream rules read: event and run_id,
// and for IL101 the stack's digest (or its JSON text, when the digest
// declines).
var idleFields = []Field{{Pointer: "/event", Type: FieldString}, {Pointer: "/run_id", Type: FieldString}, {Pointer: "/stack", Type: idleStackField}}

// idleAfterEnd is the stream check of IL100.
type idleAfterEnd struct{}

func (idleAfterEnd) Fields() []Field { return idleFields[:2] }

func (idleAfterEnd) NewFile(string, *Options) FileState {
	pf := &pageFile{}
	return &idleAfterEndState{pf: pf, runs: newPagedStrings(pf, true), ends: newPagedArray[idleEnd](pf)}
}

// idleEnd is the DONE or ABORT that ended a run (live: not reopened by a
// STATE since).
type idleEnd struct {
	line  int32
	event uint8 // 1 DONE, 2 ABORT
	live  bool
}

// idleEndEvents names idleEnd.event.
var idleEndEvents = [...]string{1: "DONE", 2: "ABORT"}

// idleAfterEndState numbers the run_ids that a DONE or ABORT ended (runs)
// and keeps the latest end of run n at ends.at(n-1), both in pages, most of
// them in a temporary file (stream_pages.go), so that memory does not grow
// with the runs of a log.
type idleAfterEndState struct {
	current string // run_id of the latest STATE
	// open: the latest record that was a STATE or a DONE or ABORT was a
	// STATE, so the run current names has no live end (a STATE leaves
	// its run's end not live; only a DONE or ABORT makes one): the next
	// STATE of that run needs no lookup.
	open bool
	runs *pagedStrings
	ends *pagedArray[idleEnd]
	pf   *pageFile
}

func (s *idleAfterEndState) Observe(rec *StreamRecord, r *StreamReporter) {
	ev, run := &rec.Values[0], &rec.Values[1]
	if !rec.Valid || ev.Type != ValueString {
		return
	}
	switch string(ev.Str) {
	case "STATE":
		if run.Type != ValueString {
			return
		}
		if s.open && string(run.Str) == s.current {
			return
		}
		s.open = true
		if n := s.runs.Get(run.Str); n > 0 {
			if end := s.ends.get(int(n) - 1); end.live {
				event := idleEndEvents[end.event]
				s.ends.at(int(n) - 1).live = false
				r.Report(StreamFinding{
					Line: rec.Line, Column: run.Column, Pointer: "/run_id",
					Reason: "run " + string(run.Str) + " goes on after its " + event + " on line " + strconv.Itoa(int(end.line)) +
						" (a DONE or ABORT ends the run of the latest STATE before it)",
					Extra: map[string]any{"end_line": int(end.line), "end_event": event},
				})
			}
		}
		if string(run.Str) != s.current {
			s.current = string(run.Str)
		}
	case "DONE", "ABORT":
		s.open = false
		if s.current != "" {
			end := idleEnd{line: int32(rec.Line), event: 1, live: true}
			if string(ev.Str) == "ABORT" {
				end.event = 2
			}
			n, added := s.runs.Add([]byte(s.current))
			if added {
				s.ends.push(end)
			} else {
				*s.ends.at(int(n) - 1) = end
			}
		}
	}
}

// Finish reports, when pages could not be read back, that the checks are
// incomplete, and releases the state.
func (s *idleAfterEndState) Finish(r *StreamReporter) {
	if err := cmp.Or(s.pf.err, s.runs.err()); err != nil {
		r.Report(StreamFinding{Reason: "the ended runs of this log could not be read back from their temporary files (" + err.Error() + "): not all were checked"})
	}
	s.runs.Free()
	s.ends.free()
	s.pf.close()
}

// idleIter is the stream check of IL101.
type idleIter struct{}

func (idleIter) Fields() []Field { return idleFields }

func (idleIter) NewFile(string, *Options) FileState {
	pf := &pageFile{}
	return &idleIterState{pf: pf, pairs: newPagedStrings(pf, true), last: newPagedArray[frameIter](pf)}
}

// frameIter is the latest iter of one frame of one run.
type frameIter struct {
	iter float64
	line int32
}

// idleFrame is what IL101 reads of a stack frame: its id, its iter and
// the byte offset of iter in the stack's JSON text.
type idleFrame struct {
	id      []byte
	iter    float64
	iterOff int64
	ok      bool // both id (a string) and iter (a number) were found
}

// stackReader reads the frames of stacks, reusing its decoder.
type stackReader struct {
	r bytes.Reader
	d jsontext.Decoder
}

// frames reads the frames of a stack's JSON text into dst[:0]; ok is false
// when raw is not an array (a frame that is not an object has ok false).
// The ids of the frames point into raw or into sr's buffers: valid until
// the next call.
func (sr *stackReader) frames(dst []idleFrame, raw []byte) ([]idleFrame, bool) {
	if out, ok := scanFrames(dst[:0], raw); ok {
		return out, true
	}
	return sr.decodeFrames(dst[:0], raw)
}

// scanFrames is frames for the common case, by scanning bytes: it declines
// (ok false) what it does not read exactly as decodeFrames would (a
// member name or an id with an escape, text that is not well formed), and
// decodeFrames decides.
func scanFrames(dst []idleFrame, raw []byte) ([]idleFrame, bool) {
	i := fast.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return dst, false
	}
	i = fast.SkipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return dst, true
	}
	for {
		if i >= len(raw) {
			return dst, false
		}
		var f idleFrame
		if raw[i] != '{' {
			if i = fast.SkipValue(raw, i); i < 0 {
				return dst, false
			}
		} else {
			hasID, hasIter, plain := false, false, true
			end, ok := objectMembers(raw, i, func(name, val []byte, at int) bool {
				switch string(name) {
				case "id":
					if val[0] == '"' {
						if bytes.IndexByte(val, '\\') >= 0 {
							plain = false
							return false
						}
						f.id, hasID = val[1:len(val)-1], true
					}
				case "iter":
					if n, ok := rawNumber(val); ok {
						f.iter, f.iterOff, hasIter = n, int64(at), true
					}
				}
				return true
			})
			if !ok || !plain {
				return dst, false
			}
			i = end
			f.ok = hasID && hasIter
		}
		dst = append(dst, f)
		var more bool
		if i, more = fast.Next(raw, i, ']'); i < 0 {
			return dst, false
		} else if !more {
			return dst, fast.SkipWS(raw, i) == len(raw)
		}
	}
}

// decodeFrames is frames with a JSON decoder.
func (sr *stackReader) decodeFrames(dst []idleFrame, raw []byte) ([]idleFrame, bool) {
	sr.r.Reset(raw)
	sr.d.Reset(&sr.r)
	d := &sr.d
	if t, err := d.ReadToken(); err != nil || t.Kind() != '[' {
		return dst, false
	}
	for d.PeekKind() != ']' {
		var f idleFrame
		if d.PeekKind() != '{' {
			if d.SkipValue() != nil {
				return dst, false
			}
			dst = append(dst, f)
			continue
		}
		d.ReadToken()
		hasID, hasIter := false, false
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return dst, false
			}
			name := tok.String() // before the next read voids tok
			v, err := d.ReadValue()
			if err != nil {
				return dst, false
			}
			start := d.InputOffset() - int64(len(v))
			switch name {
			case "id":
				if v.Kind() == '"' {
					if id, err := jsontext.AppendUnquote(nil, v); err == nil {
						f.id, hasID = id, true
					}
				}
			case "iter":
				if v.Kind() == '0' {
					if n, err := strconv.ParseFloat(string(v), 64); err == nil {
						f.iter, f.iterOff, hasIter = n, start, true
					}
				}
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return dst, false
		}
		f.ok = hasID && hasIter
		dst = append(dst, f)
	}
	return dst, true
}

// idleIterState numbers the (run_id, frame id) pairs (pairKey) and keeps
// pair n's latest iter at last.at(n-1), updated in place, both in pages,
// most of them in a temporary file (stream_pages.go), so that memory does
// not grow with the runs of a log.
type idleIterState struct {
	pairs  *pagedStrings
	last   *pagedArray[frameIter]
	pf     *pageFile
	key    []byte
	frames []idleFrame
	stack  stackReader
	// prev and cur remember the pair numbers of the frames of the latest
	// STATE observed and of the current one: a STATE of the same run whose
	// frame at the same place has the same id (the next iteration of a
	// loop) finds its pair without a lookup.
	prev, cur idlePairs
}

// idlePairs are the pair numbers of the frames of one STATE: its run_id,
// and per frame (by index) its id in ids[ends[i-1]:ends[i]] and its
// number n[i] (0: the frame was not numbered).
type idlePairs struct {
	run  []byte
	ids  []byte
	ends []int
	n    []uint32
}

// reset empties p for the STATE of run.
func (p *idlePairs) reset(run []byte) {
	p.run = append(p.run[:0], run...)
	p.ids, p.ends, p.n = p.ids[:0], p.ends[:0], p.n[:0]
}

// add notes frame len(p.n) with id, numbered n.
func (p *idlePairs) add(id []byte, n uint32) {
	p.ids = append(p.ids, id...)
	p.ends = append(p.ends, len(p.ids))
	p.n = append(p.n, n)
}

// find returns the number of the frame at index i with id, 0 when p does
// not know it.
func (p *idlePairs) find(i int, id []byte) uint32 {
	if i >= len(p.n) {
		return 0
	}
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	if string(p.ids[start:p.ends[i]]) != string(id) {
		return 0
	}
	return p.n[i]
}

func (s *idleIterState) Observe(rec *StreamRecord, r *StreamReporter) {
	ev, run, stack := &rec.Values[0], &rec.Values[1], &rec.Values[2]
	if !rec.Valid || ev.Type != ValueString || string(ev.Str) != "STATE" || run.Type != ValueString {
		return
	}
	var ok bool
	switch stack.Type {
	case ValueDigest:
		s.frames, ok = appendDigestFrames(s.frames[:0], stack.Str)
	case ValueRaw:
		s.frames, ok = s.stack.frames(s.frames[:0], stack.Str)
	}
	if !ok {
		return
	}
	sameRun := string(run.Str) == string(s.prev.run)
	s.cur.reset(run.Str)
	for i := range s.frames {
		f := &s.frames[i]
		if !f.ok {
			s.cur.add(nil, 0)
			continue
		}
		var n uint32
		if sameRun {
			n = s.prev.find(i, f.id)
		}
		if n == 0 {
			s.key = append(pairKey(s.key, run.Str, nil), f.id...)
			var added bool
			n, added = s.pairs.Add(s.key)
			s.cur.add(f.id, n)
			if added {
				s.last.push(frameIter{iter: f.iter, line: int32(rec.Line)})
				continue
			}
		} else {
			s.cur.add(f.id, n)
		}
		prev := s.last.get(int(n) - 1)
		if f.iter < prev.iter {
			p := "/stack/" + strconv.Itoa(i) + "/iter"
			line, col := rec.Line, stack.Column+int(f.iterOff)
			if rec.Locate != nil {
				line, col = rec.Locate(p)
			}
			r.Report(StreamFinding{
				Line: line, Column: col, Pointer: p,
				Reason: "iter " + strconv.FormatFloat(f.iter, 'f', -1, 64) + " of frame " + string(f.id) + " is lower than its iter " +
					strconv.FormatFloat(prev.iter, 'f', -1, 64) + " on line " + strconv.Itoa(int(prev.line)) +
					" (within run " + string(run.Str) + ", a frame's iteration never goes back)",
				Extra: map[string]any{"previous_line": int(prev.line), "previous_iter": prev.iter, "frame": string(f.id)},
			})
		}
		if f.iter != prev.iter {
			*s.last.at(int(n) - 1) = frameIter{iter: f.iter, line: int32(rec.Line)}
		}
	}
	s.prev, s.cur = s.cur, s.prev
}

// Finish reports, when pages could not be read back, that the checks are
// incomplete, and releases the state.
func (s *idleIterState) Finish(r *StreamReporter) {
	if err := cmp.Or(s.pf.err, s.pairs.err()); err != nil {
		r.Report(StreamFinding{Reason: "the frames of this log's runs could not be read back from their temporary files (" + err.Error() + "): not all were checked"})
	}
	s.pairs.Free()
	s.last.free()
	s.pf.close()
}

// idleStreamRules defines the rules of this file (group IL, loaded on first use: see groups).
func idleStreamRules() {
	state := func(iter string) string { return strings.Replace(idleState, `"iter":3`, `"iter":`+iter, 1) }
	done := `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`
	il := []string{"idle/event"}
	register(
		&Rule{
			ID: "IL100", Name: "state-after-end", Code: envelope.InvalidTransition, Severity: envelope.SeverityError, Kinds: il,
			Scope:   ScopeFile,
			Summary: "a STATE of a run that a DONE or ABORT already ended (DONE and ABORT end the run of the latest STATE before them in the log)",
			Source:  "seed 002 sections 3 and 4 (DONE signals completion, ABORT cancellation; neither carries run_id); README, Codes and precedence, INVALID_TRANSITION",
			// The examples are outside the TTL of --now: IL013 warns, as it should.
			ExampleKind: "idle/event",
			examples: func() (string, string) {
				return state("3") + "\n" + done + "\n" + state("4"), state("3") + "\n" + state("4") + "\n" + done
			},
		},
		&Rule{
			ID: "IL101", Name: "frame-iter-order", Code: envelope.InvalidTransition, Severity: envelope.SeverityError, Kinds: il,
			Scope:       ScopeFile,
			Summary:     "within one run, a stack frame's iter is lower than in an earlier STATE of the run (iterations never go back)",
			Source:      "seed 002 section 5 (iter: current iteration, 1-based); README, Codes and precedence, INVALID_TRANSITION",
			ExampleKind: "idle/event",
			examples:    func() (string, string) { return state("3") + "\n" + state("2"), state("2") + "\n" + state("3") },
		},
	)
	registerStream("IL100", idleAfterEnd{})
	registerStream("IL101", idleIter{})
}
