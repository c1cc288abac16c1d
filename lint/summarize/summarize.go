// Package summarize turns agent ledgers (seed 003, kind ledger/entry) into
// the Markdown session summaries of seed 003 "Session Summary Schema":
// title, date, total events, timeline, tasks completed (status, duration),
// errors and notes, one summary per session_id.
//
// Entries are validated first with the engine (record.Validator, kind
// ledger/entry); a denied entry is handed to Options.Denied as its envelope
// and left out of every summary. Ledgers are streamed line by line: memory is
// bounded by the longest line plus, per session summarized, the few strings
// each entry contributes to the summary (never the entry's data).
package summarize

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// Kind is the kind every summarized line is validated as.
const Kind = "ledger/entry"

// Notes is the Notes section's text (seed 003 "Summary Structure").
const Notes = "_Session summary generated from ledger entries._"

// Options configure a Summarizer.
type Options struct {
	// Validator validates each entry as Kind; nil: the fast path with
	// default record.Options.
	Validator *record.Validator
	// Session, when not empty, keeps only the entries of this session_id
	// (every entry is still validated).
	Session string
	// Denied receives, in input order, the envelope of each line that is
	// denied (an entry that fails validation, a line longer than
	// record.MaxLine, a blank line with --strict). Its error stops the read.
	// nil: denied lines are only counted.
	Denied func(envelope.Envelope) error
}

// Summarizer collects the sessions of one or more ledgers. Call Read for
// each ledger, then Sessions. It is not safe for concurrent use.
type Summarizer struct {
	opts     Options
	v        *record.Validator
	sessions map[string]*Session
	denied   int
	entries  int
}

// New returns a Summarizer.
func New(opts Options) *Summarizer {
	v := opts.Validator
	if v == nil {
		v = record.NewValidator(record.Options{}, nil)
	}
	return &Summarizer{opts: opts, v: v, sessions: map[string]*Session{}}
}

// Denied returns the number of denied lines read so far.
func (s *Summarizer) Denied() int { return s.denied }

// Entries returns the number of valid entries read so far (of every
// session, also those that --session leaves out).
func (s *Summarizer) Entries() int { return s.entries }

var bom = []byte("\ufeff")

// Read validates the JSON Lines ledger r, named file in envelopes, and adds
// its valid entries to their sessions, in input order. The line handling is
// that of `agentlint lint` (cue/README.md): a byte-order mark on line
// 1 (AL006) and CRLF endings (AL007) are warnings, blank lines are skipped
// (AL008 with --strict), a line longer than record.MaxLine is AL009 and the
// rest is still read, a final line without a newline is an entry. It returns
// a read error of r or the error of Options.Denied.
func (s *Summarizer) Read(file string, r io.Reader) error {
	lr := record.NewLineReader(r)
	var pre []envelope.Violation
	for {
		text, n, crlf, tooLong, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		pre = pre[:0]
		if tooLong {
			pre = append(pre, envelope.Violation{Rule: "AL009", Line: n, Column: 1, Reason: "line longer than 64 MiB skipped; the rest of the file is checked"})
			if err := s.deny(file, n, pre); err != nil {
				return err
			}
			continue
		}
		if n == 1 && bytes.HasPrefix(text, bom) {
			text = text[len(bom):]
			pre = append(pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"})
		}
		if crlf {
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: n, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
		}
		if len(bytes.TrimSpace(text)) == 0 { // as `agentlint lint`: Unicode white space too
			pre = append(pre[:0], envelope.Violation{Rule: "AL008", Line: n, Column: 1, Reason: "blank line (strict mode)"})
			if vs := s.v.Fill(pre); s.strict() && envelope.HasErrors(vs) {
				if err := s.deny(file, n, vs); err != nil {
					return err
				}
			}
			continue
		}
		vs, _ := s.v.Record(Kind, file, text, n)
		vs = append(slices.Clone(vs), s.v.Fill(pre)...)
		if envelope.HasErrors(vs) {
			if err := s.deny(file, n, vs); err != nil {
				return err
			}
			continue
		}
		if err := s.add(text); err != nil {
			// The engine accepted the entry, so this cannot happen; say so
			// rather than drop the entry silently.
			vs = append(vs, envelope.Violation{Rule: "AL001", Line: n, Column: 1, Parse: true, Reason: "invalid JSON: " + fast.DecodeError(err)})
			if err := s.deny(file, n, s.v.Fill(vs)); err != nil {
				return err
			}
		}
	}
}

// strict reports whether blank lines are violations: AL008 is reported only
// with --strict, as by `agentlint lint`.
func (s *Summarizer) strict() bool { return s.v.Strict() }

// deny counts a denied line and hands its envelope to Options.Denied (the
// envelope of `agentlint lint` for one record).
func (s *Summarizer) deny(file string, line int, vs []envelope.Violation) error {
	s.denied++
	if s.opts.Denied == nil {
		return nil
	}
	env := envelope.Verdict(slices.Clone(vs), "ledger entry valid", map[string]any{"kind": Kind, "file": file, "line": line})
	return s.opts.Denied(env)
}

// entry is what a summary needs of one valid ledger entry.
type entry struct {
	TS        string `json:"ts"`
	Agent     string `json:"agent"`
	SessionID string `json:"session_id"`
	Event     string `json:"event"`
	TaskID    string `json:"task_id"`
	Summary   string `json:"summary"`
	Data      struct {
		Status   jsontext.Value `json:"status"`
		Duration jsontext.Value `json:"duration_sec"`
		Error    jsontext.Value `json:"error"`
	} `json:"data"`
}

// add records one valid entry in its session.
func (s *Summarizer) add(text []byte) error {
	var e entry
	if err := json.Unmarshal(text, &e); err != nil {
		return err
	}
	s.entries++
	if s.opts.Session != "" && e.SessionID != s.opts.Session {
		return nil
	}
	ss := s.sessions[e.SessionID]
	if ss == nil {
		ss = &Session{ID: e.SessionID, Agent: e.Agent}
		s.sessions[e.SessionID] = ss
	}
	ev := Event{TS: e.TS, Event: e.Event, TaskID: e.TaskID, Summary: e.Summary}
	ss.Timeline = append(ss.Timeline, ev)
	switch e.Event {
	case "task_result":
		ss.Tasks = append(ss.Tasks, Task{TaskID: e.TaskID, Summary: e.Summary, Status: text1(e.Data.Status), Duration: text1(e.Data.Duration)})
	case "error":
		ss.Errors = append(ss.Errors, Error{Event: ev, Error: text1(e.Data.Error)})
	}
	return nil
}

// text1 is a data value as summary text: a string's content, any other
// value's compact JSON, "" when absent or null.
func text1(v jsontext.Value) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v.Kind() == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	c := slices.Clone(v)
	if c.Compact() != nil {
		return string(v)
	}
	return string(c)
}

// Sessions returns the sessions read, sorted by session_id (date, agent,
// counter: seed 003 "Session ID Format").
func (s *Summarizer) Sessions() []*Session {
	out := make([]*Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss)
	}
	slices.SortFunc(out, func(a, b *Session) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Session is what the summary of one session_id shows, in ledger order.
type Session struct {
	// ID is the session_id, YYYY-MM-DD_<agent>_NNN (seed 003).
	ID string
	// Agent is the agent of the session's first entry (rule LG010 makes it
	// the agent part of ID).
	Agent string
	// Timeline is every entry of the session, in input order.
	Timeline []Event
	// Tasks are its task_result entries.
	Tasks []Task
	// Errors are its error entries.
	Errors []Error
}

// Event is one timeline line.
type Event struct {
	TS, Event, TaskID, Summary string
}

// Task is one task_result: data.status and data.duration_sec as text (""
// when absent; a duration is the number as written, in seconds).
type Task struct {
	TaskID, Summary, Status, Duration string
}

// Error is one error entry and its data.error ("" when absent).
type Error struct {
	Event
	Error string
}

// Date is the session's date, the YYYY-MM-DD that starts its id.
func (ss *Session) Date() string {
	if len(ss.ID) >= 10 {
		return ss.ID[:10]
	}
	return ss.ID
}

// FileName is the summary's file name, <session_id>.md (seed 003 "Session
// Summary Schema" file pattern YYYY-MM-DD_<agent>_NNN.md). The session id
// pattern (rule LG003) admits no path separator.
func (ss *Session) FileName() string { return ss.ID + ".md" }

// Markdown returns the summary in seed 003's layout ("Summary Structure"):
//
//	# CLS Session Summary: 2025-11-16_cls_001
//
//	**Date:** 2025-11-16
//	**Total Events:** 5
//
//	## Timeline
//
//	- **<ts>** [<event>] <summary>
//	  - Task: `<task_id>`
//
//	## Tasks Completed
//
//	- **<task_id>**: <summary>
//	  - Status: <status>
//	  - Duration: <duration_sec>s
//
//	## Errors
//
//	(none)
//
//	## Notes
//
//	_Session summary generated from ledger entries._
//
// An empty section is "(none)". An error is written as its timeline line
// with an "Error:" line for data.error. Free text is kept on one line (line
// breaks become spaces); task ids are code spans that may hold backticks.
func (ss *Session) Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("# " + strings.ToUpper(ss.Agent) + " Session Summary: " + ss.ID + "\n\n")
	b.WriteString("**Date:** " + ss.Date() + "\n")
	b.WriteString("**Total Events:** " + strconv.Itoa(len(ss.Timeline)) + "\n\n")
	b.WriteString("## Timeline\n\n")
	if len(ss.Timeline) == 0 {
		b.WriteString("(none)\n")
	}
	for _, e := range ss.Timeline {
		writeEvent(&b, e)
	}
	b.WriteString("\n## Tasks Completed\n\n")
	if len(ss.Tasks) == 0 {
		b.WriteString("(none)\n")
	}
	for _, t := range ss.Tasks {
		b.WriteString("- **" + oneLine(t.TaskID) + "**: " + oneLine(t.Summary) + "\n")
		if t.Status != "" {
			b.WriteString("  - Status: " + oneLine(t.Status) + "\n")
		}
		if t.Duration != "" {
			b.WriteString("  - Duration: " + oneLine(t.Duration) + "s\n")
		}
	}
	b.WriteString("\n## Errors\n\n")
	if len(ss.Errors) == 0 {
		b.WriteString("(none)\n")
	}
	for _, e := range ss.Errors {
		writeEvent(&b, e.Event)
		if e.Error != "" {
			b.WriteString("  - Error: " + oneLine(e.Error) + "\n")
		}
	}
	b.WriteString("\n## Notes\n\n" + Notes + "\n")
	return b.Bytes()
}

func writeEvent(b *bytes.Buffer, e Event) {
	b.WriteString("- **" + e.TS + "** [" + e.Event + "] " + oneLine(e.Summary) + "\n")
	if e.TaskID != "" {
		b.WriteString("  - Task: " + codeSpan(oneLine(e.TaskID)) + "\n")
	}
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ")

// oneLine keeps free text on its Markdown line, its other control
// characters written as visible escapes (output.Clean): a summary printed
// on a terminal cannot carry an escape sequence.
func oneLine(s string) string { return output.Clean(lineBreaks.Replace(s)) }

// codeSpan writes s as a CommonMark code span: delimited by one backtick
// more than its longest run of backticks, padded with a space when it starts
// or ends with a backtick.
func codeSpan(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 && (s[0] == '`' || s[len(s)-1] == '`') {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Separator is written between two summaries on one stream: a Markdown
// thematic break between blank lines, so that every summary still starts
// with its "# " title line.
const Separator = "\n---\n\n"

// Write writes the summaries of sessions to w, in order, separated by
// Separator.
func Write(w io.Writer, sessions []*Session) error {
	for i, ss := range sessions {
		if i > 0 {
			if _, err := io.WriteString(w, Separator); err != nil {
				return err
			}
		}
		if _, err := w.Write(ss.Markdown()); err != nil {
			return err
		}
	}
	return nil
}
