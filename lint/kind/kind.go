// Package kind is the catalogue of the kinds agentlint validates (one kind
// per file kind of the seed documents: its name, seed, format, built-in
// globs, sniffing keys and allowing reason) and their detection: by the
// --kind flag, the configuration's globs, the built-in globs, and by
// sniffing the first record (cue/README.md, "Kinds" and "Detection").
// It depends on nothing else of agentlint.
package kind

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-json-experiment/json/jsontext"
)

// Format is how a kind's files are read.
type Format string

// Formats.
const (
	FormatJSON  Format = "json"  // one JSON document per file
	FormatJSONL Format = "jsonl" // JSON Lines: one record per line
	FormatTOML  Format = "toml"
	FormatText  Format = "text"
)

// Kind describes one kind (cue/README.md): its name, the seed it
// comes from, its record unit, its built-in globs and the top-level keys that
// sniffing looks for.
type Kind struct {
	Name   string
	Seed   string
	Format Format
	Globs  []string
	Sniff  string
	// OKReason is the reason of an allowing verdict.
	OKReason string
}

// All lists every kind agentlint validates, in README order.
var All = []*Kind{
	{Name: "operator/assignment", Seed: "001", Format: FormatJSON, Sniff: "packet_type", OKReason: "assignment packet valid"},
	{Name: "operator/orchestrator-output", Seed: "001", Format: FormatJSON, Sniff: "ledger_delta", OKReason: "orchestrator output valid"},
	{Name: "operator/result", Seed: "001", Format: FormatJSON, Sniff: "acceptance_check + task_id", OKReason: "result packet valid"},
	{Name: "operator/worklog", Seed: "001", Format: FormatJSONL, Globs: []string{"**/worklogs/*.jsonl"}, OKReason: "worklog entry valid"},
	{Name: "operator/handoff", Seed: "001", Format: FormatJSON, Sniff: "objective + ledger", OKReason: "handoff bundle valid"},
	{Name: "operator/locks", Seed: "001", Format: FormatJSON, Sniff: "locks", OKReason: "no active lock overlap"},
	{Name: "operator/reconcile", Seed: "001", Format: FormatJSON, Sniff: "ledger + (events or active_locks)", OKReason: "ledger reconciliation passed"},
	{Name: "operator/watchdog", Seed: "001", Format: FormatJSON, Sniff: "now + tasks", OKReason: "watchdog check passed"},

	{Name: "vermas/event", Seed: "000", Format: FormatJSONL, Globs: []string{"**/.work/events.jsonl", "**/.work/feed.jsonl"}, Sniff: "event_id + event_type + actor", OKReason: "event valid"},
	{Name: "vermas/work-order", Seed: "000", Format: FormatJSONL, Globs: []string{"**/.work/work_orders.jsonl"}, OKReason: "work order valid"},
	{Name: "vermas/message", Seed: "000", Format: FormatJSONL, Globs: []string{"**/.work/messages.jsonl"}, OKReason: "message valid"},
	{Name: "vermas/route", Seed: "000", Format: FormatJSONL, Globs: []string{"**/.work/routes.jsonl"}, OKReason: "route valid"},
	{Name: "vermas/assignment", Seed: "000", Format: FormatText, Globs: []string{"**/.work/.assignment-*"}, OKReason: "assignment file valid"},
	{Name: "vermas/template", Seed: "000", Format: FormatTOML, Globs: []string{"**/.work/templates/*.toml"}, OKReason: "template valid"},
	{Name: "vermas/process", Seed: "000", Format: FormatJSON, Globs: []string{"**/.work/processes/*.json"}, OKReason: "process valid"},

	{Name: "idle/event", Seed: "002", Format: FormatJSONL, Sniff: "integer schema + (event or goal)", OKReason: "idle event valid"},

	{Name: "ledger/entry", Seed: "003", Format: FormatJSONL, Globs: []string{"**/ledger/*/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].jsonl"}, Sniff: "ts + session_id + event", OKReason: "ledger entry valid"},
	{Name: "ledger/status", Seed: "003", Format: FormatJSON, Globs: []string{"**/agents/*/status.json"}, OKReason: "agent status valid"},

	{Name: "collector/event", Seed: "004", Format: FormatJSONL, Globs: []string{"**/events-*.jsonl", "**/decisions-*.jsonl"}, Sniff: "version + event_type + agent_id", OKReason: "collector event valid"},
}

// Lookup returns the kind named name, or nil.
func Lookup(name string) *Kind {
	for _, k := range All {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// ByGlob returns the kind whose built-in glob matches the slash-separated
// path p (cue/README.md, "Detection"), or nil. A glob `**/x` also
// matches a relative path that starts with x.
func ByGlob(p string) *Kind {
	p = filepath.ToSlash(p)
	for _, k := range All {
		for _, g := range k.Globs {
			if MatchGlob(g, p) {
				return k
			}
		}
	}
	return nil
}

// MatchGlob matches a doublestar glob against a slash-separated path; a
// pattern starting with **/ also matches when the path is absolute.
func MatchGlob(pattern, p string) bool {
	p = strings.TrimPrefix(p, "/")
	ok, _ := doublestar.Match(pattern, p)
	return ok
}

// identifyingKeys are, per JSON Lines kind, the top-level members that
// identify its records: the sniffing keys of cue/README.md, and for
// the kinds that are not sniffed the members their seed requires of every
// record. A file that a glob gives the kind and whose first record is a JSON
// object with none of them is plainly another format (rule AL011).
var identifyingKeys = map[string][]string{
	"operator/worklog":  {"timestamp", "run_id", "task_id", "actor", "action"},
	"vermas/event":      {"event_id", "event_type", "actor"},
	"vermas/work-order": {"id", "title", "status", "issue_type"},
	"vermas/message":    {"id", "from", "to", "subject", "body"},
	"vermas/route":      {"prefix", "path"},
	"idle/event":        {"schema", "event", "goal"},
	"ledger/entry":      {"ts", "session_id", "event"},
	"collector/event":   {"version", "event_type", "agent_id"},
}

// IdentifyingKeys returns the top-level members that identify k's records
// (nil for a document kind): a JSON Lines file whose first record has none
// of them is plainly another format (OtherFormat, rule AL011).
func (k *Kind) IdentifyingKeys() []string { return identifyingKeys[k.Name] }

// Names returns the names of every kind, sorted.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, k := range All {
		out = append(out, k.Name)
	}
	sort.Strings(out)
	return out
}

// OtherFormat reports whether the first record of a JSON Lines file of kind
// k (head: the file's first bytes, which hold its first line) is plainly
// another format: a JSON object that has none of the kind's identifying
// keys. A first line that is blank, not an object or not whole JSON is not
// judged here (the records' own violations say more).
func OtherFormat(k *Kind, head []byte) bool {
	ids := identifyingKeys[k.Name]
	line := bytes.TrimSpace(firstLine(head))
	if len(ids) == 0 || len(line) == 0 || line[0] != '{' || !jsontext.Value(line).IsValid() {
		return false
	}
	keys := topKeys(line)
	for _, id := range ids {
		if _, ok := keys[id]; ok {
			return false
		}
	}
	return true
}

// Sniff returns the kind named by the top-level keys of the first JSON object
// in data (cue/README.md, "Detection": sniffing), or nil. Only the first value is
// read; a syntax error ends sniffing with what was seen so far.
func Sniff(data []byte) *Kind {
	keys := topKeys(data)
	has := func(k string) bool { _, ok := keys[k]; return ok }
	var name string
	switch {
	case has("packet_type"):
		name = "operator/assignment"
	case has("ledger_delta"):
		name = "operator/orchestrator-output"
	case has("acceptance_check") && has("task_id"):
		name = "operator/result"
	case has("objective") && has("ledger"):
		name = "operator/handoff"
	case has("locks"):
		name = "operator/locks"
	case has("ledger") && (has("events") || has("active_locks")):
		name = "operator/reconcile"
	case has("now") && has("tasks"):
		name = "operator/watchdog"
	case keys["schema"] == '0' && (has("event") || has("goal")):
		name = "idle/event"
	case has("version") && has("event_type") && has("agent_id"):
		name = "collector/event"
	case has("event_id") && has("event_type") && has("actor"):
		name = "vermas/event"
	case has("ts") && has("session_id") && has("event"):
		name = "ledger/entry"
	}
	return Lookup(name)
}

// topKeys returns the member names of the first top-level object with the
// jsontext kind of each value ('0' for numbers).
func topKeys(data []byte) map[string]jsontext.Kind {
	keys := map[string]jsontext.Kind{}
	d := jsontext.NewDecoder(strings.NewReader(string(firstLine(data))), jsontext.AllowDuplicateNames(true))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return keys
	}
	for d.PeekKind() == '"' {
		t, err := d.ReadToken()
		if err != nil {
			return keys
		}
		name := t.String()
		k := d.PeekKind()
		if _, err := d.ReadValue(); err != nil {
			keys[name] = k
			return keys
		}
		keys[name] = k
	}
	return keys
}

// firstLine returns the first JSON value's text: for JSON Lines input, the
// first non-blank line; for a document, all of data.
func firstLine(data []byte) []byte {
	s := strings.TrimLeft(string(data), " \t\r\n\ufeff")
	if strings.HasPrefix(s, "{") {
		// A pretty-printed document spans lines; a JSON Lines record does not.
		if i := strings.IndexByte(s, '\n'); i >= 0 && jsontext.Value(strings.TrimSpace(s[:i])).IsValid() {
			return []byte(s[:i])
		}
	}
	return []byte(s)
}
