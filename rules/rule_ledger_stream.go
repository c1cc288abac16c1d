package rules

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Stream rules of agent ledgers (seed 003 "Agent Ledger Schema Reference",
// Ordering): each ledger/<agent>/YYYY-MM-DD.jsonl file is one log,
// checked on its own.
//
//   - LG100: ts never goes backwards (warning, both lines named).
//   - LG101: the session counter NNN of session_id YYYY-MM-DD_<agent>_NNN
//     never goes backwards for one agent and date: sessions are numbered in
//     the order they start (seed 003 "Session ID Format": 001, 002, ...), so
//     an entry of session 001 after an entry of session 002 of the same agent
//     and date was written into a session that had already ended. Unlike a
//     timestamp, the counter does not depend on a clock, so this is an error.
//
// Only valid entries are compared (an invalid one has its own envelope).

// The value LG101 reads from each entry, and its check.
var (
	ledgerFields    FieldList
	ledgerSessionID = ledgerFields.String("/session_id")
	ledgerSessionCk = &FileCheck[ledgerSessionState]{
		Reads: ledgerFields.Fields(),
		New: func(string, *Options) *ledgerSessionState {
			return &ledgerSessionState{last: map[string]*sessionSeen{}}
		},
		Observe: (*ledgerSessionState).observe,
	}
)

// sessionSeen is the highest counter seen for one agent and date.
type sessionSeen struct {
	counter int
	line    int32
	id      string
}

// ledgerSessionState maps "YYYY-MM-DD_agent" to the highest session counter
// seen, updated in place (a key is allocated once per agent and date).
type ledgerSessionState struct {
	last map[string]*sessionSeen
}

// sessionCounter splits a session id YYYY-MM-DD_<agent>_NNN into the key
// "YYYY-MM-DD_<agent>" and the counter, as SplitSessionID does; ok is false
// when it has no such layout or the counter is not decimal.
func sessionCounter(id []byte) (key []byte, n int, ok bool) {
	i := bytes.LastIndexByte(id, '_')
	if len(id) < 13 || id[10] != '_' || i <= 11 || i == len(id)-1 || len(id)-i > 10 {
		return nil, 0, false
	}
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' {
			return nil, 0, false
		}
		n = 10*n + int(c-'0')
	}
	return id[:i], n, true
}

// observe reports a session counter that goes back for its agent and date.
func (s *ledgerSessionState) observe(rec *StreamRecord, r *StreamReporter) {
	v := rec.Get(ledgerSessionID)
	if !rec.Valid || v.Type != ValueString {
		return
	}
	key, n, ok := sessionCounter(v.Str)
	if !ok {
		return
	}
	prev := s.last[string(key)]
	switch {
	case prev == nil:
		s.last[string(key)] = &sessionSeen{counter: n, line: int32(rec.Line), id: string(v.Str)}
	case n > prev.counter:
		prev.counter, prev.line, prev.id = n, int32(rec.Line), string(v.Str)
	case n < prev.counter:
		id := string(v.Str)
		date, agent, counter, _ := SplitSessionID(id)
		r.Report(StreamFinding{
			Line: rec.Line, Column: v.Column, Pointer: "/session_id",
			Reason: "session_id " + id + " goes back to session " + counter + " of agent " + agent + " on " + date +
				" after " + prev.id + " on line " + strconv.Itoa(int(prev.line)) + " (the sessions of one agent and date are numbered in order)",
			Extra: map[string]any{"previous_line": int(prev.line), "previous": prev.id},
		})
	}
}

// ledgerStreamRules defines the rules of this file (group LG, loaded on first use: see groups).
func ledgerStreamRules() {
	entry := func(ts, session string) string {
		return strings.NewReplacer("2025-11-16T02:10:00+07:00", ts, "2025-11-16_cls_001", session).Replace(ledgerEntry)
	}
	register(
		&Rule{
			ID: "LG100", Name: "ledger-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning,
			Scope:       ScopeFile,
			Kinds:       []string{"ledger/entry"},
			Summary:     "a ledger entry's ts is earlier than the previous entry's (a ledger is append-only, in time order); both lines are named",
			Source:      "seed 003 Ledger Entry Schema (JSONL, one file per agent and day); README, Codes and precedence, LEDGER_INCONSISTENT",
			ExampleKind: "ledger/entry",
			examples: func() (string, string) {
				return entry("2025-11-16T02:12:00+07:00", "2025-11-16_cls_001") + "\n" + entry("2025-11-16T02:10:00+07:00", "2025-11-16_cls_001"), entry("2025-11-16T02:10:00+07:00", "2025-11-16_cls_001") + "\n" + entry("2025-11-16T02:12:00+07:00", "2025-11-16_cls_001")
			},
		},
		&Rule{
			ID: "LG101", Name: "session-counter-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{"ledger/entry"},
			Summary:     "the session counter NNN of session_id never goes back for one agent and date (an entry of session 001 after one of session 002)",
			Source:      "seed 003 Session ID Format (counter 001, 002, ...); README, Codes and precedence, LEDGER_INCONSISTENT",
			ExampleKind: "ledger/entry",
			examples: func() (string, string) {
				return entry("2025-11-16T02:10:00+07:00", "2025-11-16_cls_002") + "\n" + entry("2025-11-16T02:12:00+07:00", "2025-11-16_cls_001"), entry("2025-11-16T02:10:00+07:00", "2025-11-16_cls_001") + "\n" + entry("2025-11-16T02:12:00+07:00", "2025-11-16_cls_002")
			},
		},
	)
	registerStream("LG100", timeOrder{Pointer: "/ts", Log: "a ledger"})
	registerStream("LG101", ledgerSessionCk)
}
