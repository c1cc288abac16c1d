package rules

import (
	"path"
	"strings"
	"sync/atomic"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Ledger rules (seed 003 "Agent Ledger Schema Reference", cue/README.md "ledger").
// LG001–LG005 are schema rules named by cue/ledger.cue; the rules below need two
// fields or the record's path.

// ledgerEntry is seed 003's "Task Start" example, the base of the examples.
const ledgerEntry = `{"ts":"2025-11-16T02:10:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"task_start","task_id":"wo-123","source":"gg_orchestrator","summary":"Starting code review","data":{"task_type":"code_review"}}`

// ledgerStatus is seed 003's "Status Structure" example.
const ledgerStatus = `{"agent":"cls","state":"idle","last_heartbeat":"2025-11-16T02:10:00+07:00","last_task_id":"wo-251116-agents-layout","session_id":"2025-11-16_cls_001","last_error":null}`

// SplitSessionID splits a ledger session id YYYY-MM-DD_<agent>_NNN into its
// date, agent and counter: the date is the first ten bytes, the counter the
// text after the last "_", the agent what lies between (it may itself hold
// "_"), as cue/README.md "ledger" says. ok is false when id is too
// short or lacks either separator; the parts are not validated (the schema,
// cue/ledger.cue, checks the layout).
func SplitSessionID(id string) (date, agent, counter string, ok bool) {
	if len(id) < 13 || id[10] != '_' {
		return "", "", "", false
	}
	i := strings.LastIndexByte(id, '_')
	if i <= 11 {
		return "", "", "", false
	}
	return id[:10], id[11:i], id[i+1:], true
}

// ownerFolder returns the folder name that holds file when the path has the
// layout .../<parent>/<folder>/<base> and base satisfies isBase, or "".
func ownerFolder(file, parent string, isBase func(string) bool) string {
	if file == "" || file == "-" {
		return ""
	}
	p := path.Clean(strings.ReplaceAll(file, `\`, "/"))
	dir, base := path.Split(p)
	if !isBase(base) {
		return ""
	}
	dir = strings.TrimSuffix(dir, "/")
	folder := path.Base(dir)
	if path.Base(path.Dir(dir)) != parent || folder == "." || folder == "/" || folder == "" {
		return ""
	}
	return folder
}

// folderMemo is the last file an ownerFolder memo was asked about and its
// folder.
type folderMemo struct{ file, folder string }

// entryFolders memoizes LG012's ownerFolder: the records of a file all ask
// about the same path. Workers that check records of different files at
// once replace each other's entry, which costs only the work it saves.
var entryFolders atomic.Pointer[folderMemo]

// entryFolder is ownerFolder(file, "ledger", isDayFile), memoized.
func entryFolder(file string) string {
	if m := entryFolders.Load(); m != nil && m.file == file {
		return m.folder
	}
	f := ownerFolder(file, "ledger", isDayFile)
	entryFolders.Store(&folderMemo{file: strings.Clone(file), folder: f})
	return f
}

// isDayFile reports whether base is YYYY-MM-DD.jsonl (digits only; the
// built-in glob of ledger/entry, cue/README.md).
func isDayFile(base string) bool {
	if len(base) != len("2025-11-16.jsonl") || !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	for i, c := range base[:10] {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkSessionAgent: the agent part of session_id must equal agent (LG010).
// It decides in place that a record read in place has no finding
// (Rule.InPlace); a finding is built from the decoded record.
func checkSessionAgent(d *Doc, r *Reporter) {
	if d.inPlace() {
		id, _ := d.DocStr("/session_id")
		agent, ok := d.DocStr("/agent")
		if id == "" || !ok {
			return
		}
		if _, part, _, ok := SplitSessionID(id); !ok || part == agent {
			return
		}
	}
	root := d.Root()
	id := Str(root, "session_id")
	agent, ok := root["agent"].(string)
	if id == "" || !ok {
		return // an absent or ill-typed agent is the schema's finding
	}
	_, part, _, ok := SplitSessionID(id)
	if ok && part != agent {
		r.Reportf(Ptr("session_id"), map[string]any{"session_agent": part, "agent": agent},
			"session_id %q names agent %q, but agent is %q", id, part, agent)
	}
}

// checkSessionDate: the date of session_id should equal the date of ts as
// written, i.e. in ts's own offset (LG011, warning). It decides in place
// that a record read in place has no finding (Rule.InPlace).
func checkSessionDate(d *Doc, r *Reporter) {
	if d.inPlace() {
		id, _ := d.DocStr("/session_id")
		ts, _ := d.DocStr("/ts")
		if date, _, _, ok := SplitSessionID(id); !ok || len(ts) < 10 || ts[:10] == date {
			return
		}
	}
	root := d.Root()
	id, ts := Str(root, "session_id"), Str(root, "ts")
	date, _, _, ok := SplitSessionID(id)
	if !ok || len(ts) < 10 || ts[:10] == date {
		return
	}
	r.Reportf(Ptr("session_id"), map[string]any{"session_date": date, "ts_date": ts[:10]},
		"session_id %q is dated %s, but ts %s is on %s (in its own offset)", id, date, ts, ts[:10])
}

// checkEntryFolder: in ledger/<agent>/YYYY-MM-DD.jsonl, agent must be the
// folder (LG012, LEDGER_INCONSISTENT). It decides in place that a record
// read in place has no finding (Rule.InPlace).
func checkEntryFolder(d *Doc, r *Reporter) {
	folder := entryFolder(d.File)
	if folder == "" {
		return
	}
	if d.inPlace() {
		if agent, _ := d.DocStr("/agent"); agent == folder {
			return
		}
	}
	if agent := Str(d.Root(), "agent"); agent != folder {
		r.Reportf(Ptr("agent"), map[string]any{"folder": folder},
			"agent %q is not the ledger folder %q of %s", agent, folder, d.File)
	}
}

// checkStatusFolder: in agents/<agent>/status.json, agent must be the folder
// (LG013, LEDGER_INCONSISTENT).
func checkStatusFolder(d *Doc, r *Reporter) {
	folder := ownerFolder(d.File, "agents", func(b string) bool { return b == "status.json" })
	if agent := Str(d.Root(), "agent"); folder != "" && agent != folder {
		r.Reportf(Ptr("agent"), map[string]any{"folder": folder},
			"agent %q is not the agent folder %q of %s", agent, folder, d.File)
	}
}

// checkErrorState: state "error" should come with a non-null last_error
// (LG014, warning; seed 003 "Status File Validation" 5 says "should").
func checkErrorState(d *Doc, r *Reporter) {
	root := d.Root()
	if Str(root, "state") != "error" || root["last_error"] != nil {
		return
	}
	p := Ptr("last_error")
	if _, present := root["last_error"]; !present {
		p = Ptr("state")
	}
	r.Report(p, `state is "error" but last_error is null or absent`, nil)
}

// ledgerRules defines the rules of this file (group LG, loaded on first use: see groups).
func ledgerRules() {
	entry := func(old, repl string) string { return strings.Replace(ledgerEntry, old, repl, 1) }
	status := func(old, repl string) string { return strings.Replace(ledgerStatus, old, repl, 1) }
	lg := []string{"ledger/*"}
	register(
		&Rule{
			ID: "LG001", Name: "ledger-timestamp", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "ts and last_heartbeat are RFC 3339 date-times with an offset (a naive timestamp is not accepted)",
			Source:      "seed 003 Timestamp Format; cue/README.md, ledger and All families",
			ExampleKind: "ledger/entry", examples: func() (string, string) {
				return entry(`"2025-11-16T02:10:00+07:00"`, `"2025-11-16T02:10:00"`), ledgerEntry
			},
		},
		&Rule{
			ID: "LG002", Name: "ledger-agent", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "agent is lowercase letters, digits, _ and - (the agent alphabet of session ids)",
			Source:      "seed 003 Required Fields (agent: lowercase) and Session ID Format",
			ExampleKind: "ledger/entry", examples: func() (string, string) { return entry(`"agent":"cls"`, `"agent":"CLS"`), ledgerEntry },
		},
		&Rule{
			ID: "LG003", Name: "session-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "session_id is YYYY-MM-DD_<agent>_NNN: a calendar date, the agent alphabet, a three-digit counter",
			Source:      "seed 003 Session ID Format; cue/README.md, ledger",
			ExampleKind: "ledger/entry", examples: func() (string, string) { return entry(`"2025-11-16_cls_001"`, `"2025-11-16-cls-1"`), ledgerEntry },
		},
		&Rule{
			ID: "LG004", Name: "ledger-event", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "event is one of heartbeat, task_start, task_result, error, info",
			Source:      "seed 003 Event Types; Ledger Entry Validation 3",
			ExampleKind: "ledger/entry", examples: func() (string, string) { return entry(`"task_start"`, `"task_started"`), ledgerEntry },
		},
		&Rule{
			ID: "LG005", Name: "agent-state", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "state is one of idle, busy, error, offline",
			Source:      "seed 003 Agent States; Status File Validation 3",
			ExampleKind: "ledger/status", examples: func() (string, string) { return status(`"idle"`, `"sleeping"`), ledgerStatus },
		},
		&Rule{
			ID: "LG010", Name: "session-agent", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: lg,
			Summary:     "the agent part of session_id must equal agent",
			Source:      "seed 003 Session ID Format; cue/README.md, ledger",
			ExampleKind: "ledger/entry", examples: func() (string, string) { return entry(`"2025-11-16_cls_001"`, `"2025-11-16_andy_001"`), ledgerEntry },
			Check:   checkSessionAgent,
			Fields:  []string{"/agent", "/session_id"},
			InPlace: true,
		},
		&Rule{
			ID: "LG011", Name: "session-date", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning, Kinds: []string{"ledger/entry"},
			Summary:     "the date of session_id should equal the date of ts in ts's own offset",
			Source:      "cue/README.md, ledger",
			ExampleKind: "ledger/entry", examples: func() (string, string) {
				return entry(`"2025-11-16T02:10:00+07:00"`, `"2025-11-17T02:10:00+07:00"`), ledgerEntry
			},
			Check:   checkSessionDate,
			Fields:  []string{"/session_id", "/ts"},
			InPlace: true,
		},
		&Rule{
			ID: "LG012", Name: "ledger-folder", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError, Kinds: []string{"ledger/entry"},
			Summary:     "an entry of ledger/<agent>/YYYY-MM-DD.jsonl must have agent = <agent>",
			Source:      "seed 003 File Pattern g/ledger/<agent>/YYYY-MM-DD.jsonl; README, Codes and precedence, LEDGER_INCONSISTENT; cue/README.md, ledger",
			ExampleKind: "ledger/entry", ExampleFile: "g/ledger/andy/2025-11-16.jsonl",
			examples: func() (string, string) { return ledgerEntry, strings.ReplaceAll(ledgerEntry, "cls", "andy") },
			Check:    checkEntryFolder,
			Fields:   []string{"/agent"},
			InPlace:  true,
		},
		&Rule{
			ID: "LG013", Name: "status-folder", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError, Kinds: []string{"ledger/status"},
			Summary:     "agents/<agent>/status.json must have agent = <agent>",
			Source:      "seed 003 File Pattern agents/<agent>/status.json; README, Codes and precedence, LEDGER_INCONSISTENT (a record vs its own file path)",
			ExampleKind: "ledger/status", ExampleFile: "agents/andy/status.json",
			examples: func() (string, string) { return ledgerStatus, strings.ReplaceAll(ledgerStatus, "cls", "andy") },
			Check:    checkStatusFolder,
		},
		&Rule{
			ID: "LG014", Name: "error-without-last-error", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning, Kinds: []string{"ledger/status"},
			Summary:     `state "error" should come with a non-null last_error`,
			Source:      "seed 003 Status File Validation 5 (should); cue/README.md, ledger",
			ExampleKind: "ledger/status", examples: func() (string, string) {
				return status(`"idle"`, `"error"`), strings.Replace(status(`"idle"`, `"error"`), `"last_error":null`, `"last_error":"Task failed"`, 1)
			},
			Check: checkErrorState,
		},
	)
}
