package rules

import (
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Rules of the vermas family (seed 000 "VerMAS Data Schemas", cue/README.md
// "vermas"). The per-record constraints CUE can say are in cue/vermas.cue and name
// the schema rules registered here; the document rules below say the rest. Checks
// across records or files (duplicate ids, work-order prefixes declared in
// routes.jsonl, projections) are stream rules and live elsewhere.

// Rule IDs the engine reports itself for the non-JSON vermas formats
// (record.Validator.Document): the assignment text form and the TOML syntax of
// a template. Both are parse errors (SCHEMA_INVALID, highest precedence).
const (
	RuleVermasAssignmentFormat = "VM020"
	RuleVermasTemplateSyntax   = "VM030"
)

// VermasEventTypes are the event types of seed 000 "Event Types", the
// types whose data cue/vermas.cue types (a test keeps both lists equal).
// Another type is unknown: a warning (VM003), SCHEMA_INVALID with --strict
// (VM004), cue/README.md "All families".
var VermasEventTypes = []string{
	"work_order.created", "work_order.updated", "work_order.status_changed", "work_order.assigned", "work_order.closed",
	"mail.sent", "mail.delivered", "mail.read",
	"agent.started", "agent.assignment_checked", "agent.working", "agent.idle", "agent.stopped",
	"process.created", "process.step_started", "process.step_completed", "process.completed",
	"verify.started", "verify.verdict",
}

// VermasTimestamps lists, per vermas kind, the date-time fields whose value
// should carry milliseconds (seed 000 "ISO 8601 with milliseconds";
// cue/README.md: without them, a warning), as JSON Pointers where
// "*" stands for every array element. An event's data fields are keyed
// "event_type:pointer": they apply to that event type only. A test keeps the
// list equal to the #DateTime fields of cue/vermas.cue.
var VermasTimestamps = map[string][]string{
	"vermas/event":      {"/timestamp", "mail.read:/data/read_at", "agent.idle:/data/idle_since"},
	"vermas/work-order": {"/created_at", "/updated_at", "/dependencies/*/created_at"},
	"vermas/message":    {"/timestamp", "/read_at"},
	"vermas/process":    {"/created_at", "/steps/*/started_at", "/steps/*/completed_at"},
}

// vermasEvent is seed 000's Base Event whose data is the example of
// work_order.created ("Event Types"); the base example itself has empty data.
const vermasEvent = `{"event_id":"evt-abc123def456","event_type":"work_order.created","timestamp":"2026-01-06T12:00:00.000Z",` +
	`"actor":"project-a/teams/frontend","correlation_id":"sprint-xyz789","caused_by":"evt-previous123",` +
	`"data":{"work_order_id":"wo-abc123","title":"Implement feature X","description":"Full description...",` +
	`"issue_type":"feature","priority":2,"created_by":"ceo"}}`

// vermasWorkOrder is seed 000's Work Order Schema example.
const vermasWorkOrder = `{"id":"wo-abc123","title":"Implement feature X","description":"Full description with markdown...",` +
	`"status":"open","priority":2,"issue_type":"feature","created_at":"2026-01-06T10:00:00.000Z",` +
	`"updated_at":"2026-01-06T12:00:00.000Z","created_by":"ceo","assignee":"project-a/workers/slot0",` +
	`"dependencies":[{"depends_on_id":"wo-dep456","type":"blocks","created_at":"2026-01-06T10:05:00.000Z","created_by":"ceo"}],` +
	`"labels":["backend","api"],"metadata":{}}`

// vermasMessage is seed 000's Message Schema example.
const vermasMessage = `{"id":"msg-xyz789","from":"project-a/workers/slot0","to":"project-a/supervisor","subject":"WORKER_DONE",` +
	`"body":"Work completed for work order wo-abc123","message_type":"WORKER_DONE","timestamp":"2026-01-06T12:00:00.000Z",` +
	`"read_at":null,"priority":"normal","metadata":{"work_order_id":"wo-abc123"}}`

// vermasProcess is seed 000's Process Schema example, shortened to two steps.
const vermasProcess = `{
  "id": "proc-abc123",
  "template": "worker-execute",
  "work_order_id": "wo-xyz789",
  "state": "active",
  "created_at": "2026-01-06T10:00:00.000Z",
  "steps": [
    {"id": "understand", "status": "completed", "started_at": "2026-01-06T10:00:00.000Z", "completed_at": "2026-01-06T10:05:00.000Z"},
    {"id": "implement", "status": "in_progress", "started_at": "2026-01-06T10:05:00.000Z", "completed_at": null}
  ]
}`

// vermasTemplate is seed 000's Template Schema example, shortened.
const vermasTemplate = `template = "worker-execute"
description = "Execute assigned work order to completion"
version = 1

[[steps]]
id = "understand"
title = "Understand the task"
description = "Read the work order details and plan your approach."

[[steps]]
id = "implement"
title = "Implement the solution"
needs = ["understand"]
description = "Write the code to solve the problem."
`

// vermasRepl replaces old, which must occur in s, by repl once; it panics
// otherwise (the examples are constants, checked by every test run).
func vermasRepl(s, old, repl string) string {
	if !strings.Contains(s, old) {
		panic("rules: vermas example lacks " + old)
	}
	return strings.Replace(s, old, repl, 1)
}

// vermasEventOf returns an event of type typ with the given data.
func vermasEventOf(typ, data string) string {
	return `{"event_id":"evt-abc123def456","event_type":"` + typ + `","timestamp":"2026-01-06T12:00:00.000Z",` +
		`"actor":"project-a/workers/slot0","data":` + data + `}`
}

func checkVermasEventIDLength(d *Doc, r *Reporter) {
	if id, _ := d.DocStr("/event_id"); d.inPlace() && vermasEventIDLength(id) == 12 {
		return
	}
	id := Str(d.Root(), "event_id")
	if n := vermasEventIDLength(id); n != 12 {
		r.Reportf(Ptr("event_id"), map[string]any{"event_id": id, "length": n},
			"event_id %q has %d character(s) after evt-, not 12 (seed 000: evt-{random12})", id, n)
	}
}

// vermasEventIDLength returns the number of characters after evt- of an
// event_id, 12 (nothing to report) when it does not start with evt-.
func vermasEventIDLength(id string) int {
	rest, ok := strings.CutPrefix(id, "evt-")
	if !ok {
		return 12
	}
	if len(rest) == 12 && vermasASCII12(rest) {
		return 12 // the common case: twelve ASCII characters
	}
	return utf8.RuneCountInString(rest)
}

// vermasASCII12 reports whether the 12 bytes of s are all ASCII (an
// 8-byte and a 4-byte word, each a single load: words that share bytes
// are assembled byte by byte).
func vermasASCII12(s string) bool {
	_ = s[11]
	a := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	b := uint32(s[8]) | uint32(s[9])<<8 | uint32(s[10])<<16 | uint32(s[11])<<24
	return a&0x8080808080808080 == 0 && b&0x80808080 == 0
}

func vermasKnownEventType(t string) bool {
	if len(t) >= len(vermasTypesByLen) {
		return false
	}
	for _, k := range vermasTypesByLen[len(t)] {
		if k == t {
			return true
		}
	}
	return false
}

// vermasTypesByLen is VermasEventTypes by length (none is longer than
// 31 bytes), so that vermasKnownEventType compares a type only with those
// of its length.
var vermasTypesByLen = func() (by [32][]string) {
	for _, k := range VermasEventTypes {
		by[len(k)] = append(by[len(k)], k)
	}
	return by
}()

// vermasEventTypeForm reports whether t matches VM005's pattern
// ^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$ (cue/vermas.cue).
func vermasEventTypeForm(t string) bool {
	parts := strings.Split(t, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || p[0] < 'a' || p[0] > 'z' {
			return false
		}
		for i := 1; i < len(p); i++ {
			if c := p[i]; c != '_' && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// checkVermasEventType reports an unknown event type: under VM003 without
// --strict, under VM004 with it.
func checkVermasEventType(strict bool) func(d *Doc, r *Reporter) {
	return func(d *Doc, r *Reporter) {
		if d.Options == nil || d.Options.Strict != strict {
			return
		}
		if t, ok := d.DocStr("/event_type"); d.inPlace() && (!ok || vermasKnownEventType(t) || !vermasEventTypeForm(t) || d.Options.Extended(FamilyVermas, t)) {
			return
		}
		t, ok := d.Root()["event_type"].(string)
		if !ok || vermasKnownEventType(t) || !vermasEventTypeForm(t) || d.Options.Extended(FamilyVermas, t) {
			return // the schema (VM005) reports a malformed one
		}
		ns, _, _ := strings.Cut(t, ".")
		var same []string
		spaces := []string{}
		for _, k := range VermasEventTypes {
			kns, name, _ := strings.Cut(k, ".")
			if kns == ns {
				same = append(same, name)
			}
			if len(spaces) == 0 || spaces[len(spaces)-1] != kns {
				spaces = append(spaces, kns)
			}
		}
		if len(same) > 0 {
			r.Reportf(Ptr("event_type"), map[string]any{"event_type": t},
				"unknown event type %q: the %s events of seed 000 are %s%s", t, ns, strings.Join(same, ", "), ExtendHint(FamilyVermas))
			return
		}
		r.Reportf(Ptr("event_type"), map[string]any{"event_type": t},
			"unknown event type %q: seed 000 has the namespaces %s%s", t, strings.Join(spaces, ", "), ExtendHint(FamilyVermas))
	}
}

// vermasEach calls fn with the JSON Pointer and value of every value at
// pointer pattern p ("*" matches every array element) in v.
func vermasEach(v any, p string, fn func(ptr string, v any)) {
	var walk func(v any, parts []string, ptr string)
	walk = func(v any, parts []string, ptr string) {
		if len(parts) == 0 {
			fn(ptr, v)
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if c, ok := x[parts[0]]; ok {
				walk(c, parts[1:], ptr+Ptr(parts[0]))
			}
		case []any:
			if parts[0] == "*" {
				for i, c := range x {
					walk(c, parts[1:], ptr+Ptr(i))
				}
			}
		}
	}
	walk(v, strings.Split(strings.TrimPrefix(p, "/"), "/"), "")
}

func checkVermasMilliseconds(d *Doc, r *Reporter) {
	if d.inPlace() && vermasMillisecondsInPlace(d) {
		return
	}
	typ := Str(d.Root(), "event_type")
	for _, p := range VermasTimestamps[d.Kind] {
		if t, rest, ok := strings.Cut(p, ":"); ok {
			if t != typ {
				continue
			}
			p = rest
		}
		vermasEach(d.Value, p, func(ptr string, v any) {
			s, ok := v.(string)
			if ok && timefmt.IsRFC3339(s) && !timefmt.HasFraction(s) {
				r.Reportf(ptr, map[string]any{"timestamp": s},
					"timestamp %q has no milliseconds (seed 000: ISO 8601 with milliseconds, e.g. 2026-01-06T12:00:00.000Z)", s)
			}
		})
	}
}

// vermasMillisecondsInPlace reports, for a record read in place, that
// VM006 finds nothing in it: every timestamp of its kind that it has is
// not an RFC 3339 date-time or has a fraction. False when one lacks the
// fraction, or a pointer pattern has "*" (the kinds with such patterns
// are not read in place) or a scanner declined.
func vermasMillisecondsInPlace(d *Doc) bool {
	typ, _ := d.DocStr("/event_type")
	stamps := vermasEventStamps
	if d.Kind != "vermas/event" {
		stamps = vermasStampsOf(d.Kind)
	}
	for _, p := range stamps {
		if p.typ != "" && p.typ != typ {
			continue
		}
		v, found, ok := d.flatAt(p.ptr)
		if !ok {
			return false
		}
		if !found {
			continue
		}
		s, str, plain := rawString(v)
		if !plain {
			return false
		}
		// A fraction follows the seconds at s[19]: such a date-time, valid or
		// not, has nothing to report.
		if str && (len(s) <= 19 || s[19] != '.') && timefmt.IsRFC3339(s) && !timefmt.HasFraction(s) {
			return false
		}
	}
	return true
}

// vermasStamp is one entry of VermasTimestamps: the event type it is
// limited to ("" for every record) and the JSON Pointer pattern.
type vermasStamp struct{ typ, ptr string }

// vermasStampsOf returns VermasTimestamps[kind] split into vermasStamps.
func vermasStampsOf(kind string) []vermasStamp {
	var out []vermasStamp
	for _, p := range VermasTimestamps[kind] {
		t, rest, ok := strings.Cut(p, ":")
		if !ok {
			t, rest = "", p
		}
		out = append(out, vermasStamp{t, rest})
	}
	return out
}

// vermasEventStamps is vermasStampsOf the most common kind, made once.
var vermasEventStamps = vermasStampsOf("vermas/event")

// checkVermasAssignmentPath: the assignment file of work_order.assigned is
// .assignment-{agent} with "/" replaced by "-" (seed 000 "Agent ID in
// Filename").
func checkVermasAssignmentPath(d *Doc, r *Reporter) {
	if d.inPlace() && vermasAssignmentPathAgrees(d) {
		return
	}
	root := d.Root()
	if Str(root, "event_type") != "work_order.assigned" {
		return
	}
	data := Obj(root["data"])
	agent, p := Str(data, "agent"), Str(data, "assignment_path")
	if agent == "" || p == "" {
		return
	}
	if got, want := vermasAssignmentFile(agent, p); got != want {
		r.Reportf(Ptr("data", "assignment_path"), map[string]any{"agent": agent, "expected_file": want},
			"assignment_path names file %q, but the assignment file of agent %q is %q", got, agent, want)
	}
}

// vermasAssignmentFile returns the file an assignment_path names and the
// assignment file of agent (VM016).
func vermasAssignmentFile(agent, p string) (got, want string) {
	return path.Base(strings.ReplaceAll(p, `\`, "/")), ".assignment-" + strings.ReplaceAll(agent, "/", "-")
}

// vermasAssignmentPathAgrees reports, for a record read in place, that
// VM016 finds nothing in it: not a work_order.assigned event, agent or
// assignment_path not a non-empty string, or the path names the agent's
// file. False when it names another or a scanner declined.
func vermasAssignmentPathAgrees(d *Doc) bool {
	if t, _ := d.DocStr("/event_type"); t != "work_order.assigned" {
		return true
	}
	data, _ := d.flatRaw("/data")
	var agent, p string
	plain := true
	ok, _ := rawMembers(data, func(n, v []byte) bool {
		var pl bool
		switch string(n) {
		case "agent":
			agent, _, pl = rawString(v)
		case "assignment_path":
			p, _, pl = rawString(v)
		default:
			return true
		}
		plain = plain && pl
		return true
	})
	if !ok || !plain {
		return false
	}
	if agent == "" || p == "" {
		return true
	}
	got, want := vermasAssignmentFile(agent, p)
	return got == want
}

// checkVermasTimeOrder: a work order is not updated before it was created;
// a process step does not complete before it started.
func checkVermasTimeOrder(d *Doc, r *Reporter) {
	before := func(a, b string) bool {
		ta, ok1 := timefmt.ParseRFC3339(a)
		tb, ok2 := timefmt.ParseRFC3339(b)
		return ok1 && ok2 && tb.Before(ta)
	}
	root := d.Root()
	switch d.Kind {
	case "vermas/work-order":
		c, u := Str(root, "created_at"), Str(root, "updated_at")
		if before(c, u) {
			r.Reportf(Ptr("updated_at"), nil, "updated_at %s is before created_at %s", u, c)
		}
	case "vermas/process":
		for i, s := range Arr(root, "steps") {
			st := Obj(s)
			b, e := Str(st, "started_at"), Str(st, "completed_at")
			if before(b, e) {
				r.Reportf(Ptr("steps", i, "completed_at"), nil, "step %q: completed_at %s is before started_at %s", Str(st, "id"), e, b)
			}
		}
	}
}

// checkVermasStepIDs reports every step (of a template or a process) whose
// id repeats an earlier step's.
func checkVermasStepIDs(d *Doc, r *Reporter) {
	first := map[string]int{}
	for i, s := range Arr(d.Root(), "steps") {
		id, ok := Obj(s)["id"].(string)
		if !ok {
			continue
		}
		if j, dup := first[id]; dup {
			r.Reportf(Ptr("steps", i, "id"), map[string]any{"id": id, "first": Ptr("steps", j)},
				"step id %q is already the id of step %d (/steps/%d)", id, j, j)
			continue
		}
		first[id] = i
	}
}

// vermasTemplateGraph returns the step ids (first occurrence wins) and, per
// step, the indexes of the steps it needs that exist.
func vermasTemplateGraph(steps []any) (index map[string]int, needs [][]int, needPos [][]int) {
	index = map[string]int{}
	for i, s := range steps {
		if id, ok := Obj(s)["id"].(string); ok {
			if _, dup := index[id]; !dup {
				index[id] = i
			}
		}
	}
	needs = make([][]int, len(steps))
	needPos = make([][]int, len(steps))
	for i, s := range steps {
		for k, n := range Arr(Obj(s), "needs") {
			name, _ := n.(string)
			if j, ok := index[name]; ok {
				needs[i] = append(needs[i], j)
				needPos[i] = append(needPos[i], k)
			}
		}
	}
	return index, needs, needPos
}

func checkVermasTemplateNeeds(d *Doc, r *Reporter) {
	steps := Arr(d.Root(), "steps")
	for _, s := range steps {
		if _, ok := Obj(s)["id"].(string); !ok {
			return // a step without a readable id: the schema's finding; no name is known missing
		}
	}
	index, _, _ := vermasTemplateGraph(steps)
	for i, s := range steps {
		st := Obj(s)
		for k, n := range Arr(st, "needs") {
			name, _ := n.(string)
			if _, ok := index[name]; !ok {
				r.Reportf(Ptr("steps", i, "needs", k), map[string]any{"needs": name},
					"step %q needs %q, which is not a step of this template", Str(st, "id"), name)
			}
		}
	}
}

// checkVermasTemplateCycle reports every cycle of `needs` once, at the
// needs entry of its first step (in file order) that continues it, naming
// the cycle: implement → test → implement.
func checkVermasTemplateCycle(d *Doc, r *Reporter) {
	steps := Arr(d.Root(), "steps")
	_, needs, needPos := vermasTemplateGraph(steps)
	id := func(i int) string { return Str(Obj(steps[i]), "id") }
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(steps))
	var stack []int
	seen := map[string]bool{}
	type cyc struct {
		start, pos int
		names      []string
		key        string
	}
	var found []cyc
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		stack = append(stack, i)
		for _, j := range needs[i] {
			switch color[j] {
			case white:
				visit(j)
			case grey:
				// The stack from j to i is a cycle; rotate it to start at
				// its lowest step index so that it is reported once.
				var c []int
				for k := len(stack) - 1; k >= 0; k-- {
					c = append([]int{stack[k]}, c...)
					if stack[k] == j {
						break
					}
				}
				low := 0
				for k := range c {
					if c[k] < c[low] {
						low = k
					}
				}
				c = append(c[low:], c[:low]...)
				var names []string
				var key []string
				for _, k := range c {
					names = append(names, id(k))
					key = append(key, Ptr(k))
				}
				names = append(names, id(c[0]))
				k := strings.Join(key, "")
				if seen[k] {
					continue
				}
				seen[k] = true
				// The needs entry of c[0] that names c[1] (or itself).
				next := c[0]
				if len(c) > 1 {
					next = c[1]
				}
				pos := 0
				for n, t := range needs[c[0]] {
					if t == next {
						pos = needPos[c[0]][n]
						break
					}
				}
				found = append(found, cyc{c[0], pos, names, k})
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range steps {
		if color[i] == white {
			visit(i)
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].start < found[b].start })
	for _, c := range found {
		r.Reportf(Ptr("steps", c.start, "needs", c.pos), map[string]any{"cycle": c.names},
			"steps form a cycle: %s", strings.Join(c.names, " → "))
	}
}

// vermasRules defines the rules of this file (group VM, loaded on first use: see groups).
func vermasRules() {
	const kEvent, kWO, kMsg, kRoute, kAssign, kTmpl, kProc = "vermas/event", "vermas/work-order", "vermas/message",
		"vermas/route", "vermas/assignment", "vermas/template", "vermas/process"
	assigned := vermasEventOf("work_order.assigned",
		`{"work_order_id":"wo-abc123","agent":"project-a/workers/slot0","assignment_path":".work/.assignment-project-a-workers-slot0"}`)
	verdict := vermasEventOf("verify.verdict",
		`{"work_order_id":"wo-abc123","verdict":"PASS","criteria_passed":5,"criteria_failed":0,"reasoning":"All acceptance criteria met"}`)
	cyclic := vermasRepl(vermasTemplate, `id = "understand"`, "id = \"understand\"\nneeds = [\"implement\"]")
	register(
		// Schema rules (cue/vermas.cue).
		&Rule{
			ID: "VM001", Name: "event-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent},
			Summary:     "event_id (and caused_by, which names an event) must match ^evt-[A-Za-z0-9]+$",
			Source:      `seed 000 "Base Event"; cue/README.md, vermas "Ids"`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasRepl(vermasEvent, `"evt-abc123def456"`, `"evt_abc123def456"`), vermasEvent
			},
		},
		&Rule{
			ID: "VM005", Name: "event-type-format", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent},
			Summary:     "event_type must be a namespaced type, lowercase words joined by dots (work_order.created)",
			Source:      `seed 000 "Base Event" (Namespaced type)`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasRepl(vermasEvent, `"work_order.created"`, `"WorkOrderCreated"`), vermasEvent
			},
		},
		&Rule{
			ID: "VM010", Name: "work-order-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent, kWO, kProc},
			Summary:     "a work order id must match ^[a-z][a-z0-9]*-[A-Za-z0-9]+(\\.[0-9]+)*$ (wo-{hash}, wo-{hash}.{n}); a prefix other than wo is allowed per record, routes.jsonl is checked across files",
			Source:      `seed 000 "Work Order Schema" (id); cue/README.md, vermas "Ids"`,
			ExampleKind: kWO,
			examples: func() (string, string) {
				return vermasRepl(vermasWorkOrder, `"id":"wo-abc123"`, `"id":"WO_abc123"`), vermasWorkOrder
			},
		},
		&Rule{
			ID: "VM011", Name: "work-order-title", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent, kWO},
			Summary:     "a work order title has 1 to 100 characters (Unicode code points)",
			Source:      `seed 000 "Field Definitions" (title: max 100 chars); cue/README.md (code points)`,
			ExampleKind: kWO,
			examples: func() (string, string) {
				return vermasRepl(vermasWorkOrder, `"Implement feature X"`, `"`+strings.Repeat("é", 101)+`"`), vermasWorkOrder
			},
		},
		&Rule{
			ID: "VM012", Name: "work-order-priority", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent, kWO},
			Summary:     "a work order priority is an integer from 0 (P0, critical) to 4 (P4, backlog)",
			Source:      `seed 000 "Priority Values"`,
			ExampleKind: kWO,
			examples: func() (string, string) {
				return vermasRepl(vermasWorkOrder, `"priority":2`, `"priority":5`), vermasWorkOrder
			},
		},
		&Rule{
			ID: "VM013", Name: "message-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent, kMsg},
			Summary:     "a message id must match ^msg-[A-Za-z0-9]+$",
			Source:      `seed 000 "Message Schema" (msg-{random}); cue/README.md, vermas "Ids"`,
			ExampleKind: kMsg,
			examples: func() (string, string) {
				return vermasRepl(vermasMessage, `"msg-xyz789"`, `"message-xyz789"`), vermasMessage
			},
		},
		&Rule{
			ID: "VM014", Name: "process-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent, kProc},
			Summary:     "a process id must match ^proc-[A-Za-z0-9-]+$",
			Source:      `seed 000 "Process Schema"; cue/README.md, vermas "Ids"`,
			ExampleKind: kProc,
			examples: func() (string, string) {
				return vermasRepl(vermasProcess, `"proc-abc123"`, `"process/abc123"`), vermasProcess
			},
		},
		&Rule{
			ID: "VM015", Name: "verdict-pass-with-failures", Code: envelope.AcceptanceFailed, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent},
			Summary:     "a verify.verdict PASS must have criteria_failed 0",
			Source:      `seed 000 "Verification Events"; README, Codes and precedence, ACCEPTANCE_FAILED`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasRepl(verdict, `"criteria_failed":0`, `"criteria_failed":2`), verdict
			},
		},
		&Rule{
			ID: "VM021", Name: "assignment-type", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kAssign},
			Summary:     "an assignment's type is work_order, mail or process",
			Source:      `seed 000 "Assignment Types"`,
			ExampleKind: kAssign,
			Example:     "task:wo-abc123\n",
			Fixed:       "work_order:wo-abc123\n",
		},
		&Rule{
			ID: "VM022", Name: "assignment-reference", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kAssign},
			Summary:     "an assignment's reference is an id of its type: a work order id, msg-… or proc-…",
			Source:      `seed 000 "Assignment Types"; cue/README.md, vermas "Ids"`,
			ExampleKind: kAssign,
			Example:     "mail:wo-abc123\n",
			Fixed:       "mail:msg-xyz789\n",
		},
		&Rule{
			ID: "VM031", Name: "template-version", Code: envelope.UnknownSchemaVersion, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "a template's version must be the integer 1 (another value or type fails closed)",
			Source:      `seed 000 "Template Fields"; README, Codes and precedence, UNKNOWN_SCHEMA_VERSION; cue/README.md, vermas "Templates"`,
			ExampleKind: kTmpl,
			examples: func() (string, string) {
				return vermasRepl(vermasTemplate, "version = 1", "version = 2"), vermasTemplate
			},
		},
		&Rule{
			ID: "VM032", Name: "template-steps", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "a template has at least one step, each a table",
			Source:      `seed 000 "Template Fields"; cue/README.md, vermas`,
			ExampleKind: kTmpl,
			Example:     "template = \"empty\"\ndescription = \"Nothing to do\"\nversion = 1\nsteps = []\n",
			Fixed:       vermasTemplate,
		},
		&Rule{
			ID: "VM050", Name: "route-prefix", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kRoute},
			Summary:     "a route prefix is a work order id prefix: a lowercase letter, then lowercase letters and digits",
			Source:      `seed 000 "Route Schema"; cue/README.md, vermas "Ids"`,
			ExampleKind: kRoute,
			Example:     `{"prefix": "wo-", "path": "/path/to/project-a/.work", "factory": "project-a"}`,
			Fixed:       `{"prefix": "wo", "path": "/path/to/project-a/.work", "factory": "project-a"}`,
		},
		&Rule{
			ID: "VM051", Name: "route-path", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kRoute},
			Summary:     "a route path is absolute (/… or a Windows drive path)",
			Source:      `seed 000 "Route Fields" (Absolute path to .work/)`,
			ExampleKind: kRoute,
			Example:     `{"prefix": "wo", "path": "project-a/.work", "factory": "project-a"}`,
			Fixed:       `{"prefix": "wo", "path": "/path/to/project-a/.work", "factory": "project-a"}`,
		},

		// Formats the engine parses (record.Validator.Document).
		&Rule{
			ID: RuleVermasAssignmentFormat, Name: "assignment-format", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kAssign},
			Summary:     "an assignment file holds one line {type}:{reference_id} in UTF-8 (a final newline is fine)",
			Source:      `seed 000 "Assignment Schema"`,
			ExampleKind: kAssign,
			Example:     "work_order wo-abc123\n",
			Fixed:       "work_order:wo-abc123\n",
		},
		&Rule{
			ID: RuleVermasTemplateSyntax, Name: "template-toml-syntax", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "a template is not valid TOML (the position of the error is reported)",
			Source:      `seed 000 "Template Schema (TOML)"`,
			ExampleKind: kTmpl,
			examples: func() (string, string) {
				return vermasRepl(vermasTemplate, "version = 1", "version = "), vermasTemplate
			},
		},

		// Document rules.
		&Rule{
			ID: "VM002", Name: "event-id-length", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
			Kinds:       []string{kEvent},
			Summary:     "event_id should have 12 characters after evt- (evt-{random12})",
			Source:      `seed 000 "Base Event"; cue/README.md, vermas "Ids"`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasRepl(vermasEvent, `"evt-abc123def456"`, `"evt-abc123"`), vermasEvent
			},
			Check:   checkVermasEventIDLength,
			Fields:  []string{"/event_id"},
			InPlace: true,
		},
		&Rule{
			ID: "VM003", Name: "unknown-event-type", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
			Kinds:       []string{kEvent},
			Summary:     "event_type is not one of the 19 types of seed 000 (with --strict: VM004)",
			Source:      `seed 000 "Event Types"; cue/README.md, All families`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasEventOf("work_order.archived", `{"work_order_id":"wo-abc123"}`), vermasEventOf("work_order.closed", `{"work_order_id":"wo-abc123","reason":"Archived"}`)
			},
			Check:   checkVermasEventType(false),
			Fields:  []string{"/event_type"},
			InPlace: true,
		},
		&Rule{
			ID: "VM004", Name: "unknown-event-type-strict", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent},
			Summary:     "with --strict, an event_type that is not one of the 19 types of seed 000",
			Source:      `seed 000 "Event Types"; cue/README.md, All families`,
			ExampleKind: kEvent,
			Options:     []string{"--strict"},
			examples: func() (string, string) {
				return vermasEventOf("work_order.archived", `{"work_order_id":"wo-abc123"}`), vermasEventOf("work_order.closed", `{"work_order_id":"wo-abc123","reason":"Archived"}`)
			},
			Check:   checkVermasEventType(true),
			Fields:  []string{"/event_type"},
			InPlace: true,
		},
		&Rule{
			ID: "VM006", Name: "timestamp-milliseconds", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
			Kinds:       []string{kEvent, kWO, kMsg, kProc},
			Summary:     "a timestamp should carry milliseconds (2026-01-06T12:00:00.000Z)",
			Source:      `seed 000 "Base Event" (ISO 8601 with milliseconds); cue/README.md, vermas`,
			ExampleKind: kMsg,
			examples: func() (string, string) {
				return vermasRepl(vermasMessage, `"2026-01-06T12:00:00.000Z"`, `"2026-01-06T12:00:00Z"`), vermasMessage
			},
			Check:   checkVermasMilliseconds,
			Fields:  []string{"/event_type", "/timestamp", "/data", "/created_at", "/updated_at", "/dependencies", "/read_at", "/steps"},
			InPlace: true,
		},
		&Rule{
			ID: "VM016", Name: "assignment-path-agent", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kEvent},
			Summary:     "work_order.assigned: assignment_path names .assignment-{agent} with / replaced by -",
			Source:      `seed 000 "Assignment Schema", "Agent ID in Filename"`,
			ExampleKind: kEvent,
			examples: func() (string, string) {
				return vermasRepl(assigned, `.assignment-project-a-workers-slot0`, `.assignment-project-a-workers-slot1`), assigned
			},
			Check:   checkVermasAssignmentPath,
			Fields:  []string{"/event_type", "/data"},
			InPlace: true,
		},
		&Rule{
			ID: "VM033", Name: "template-step-ids-unique", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "the steps of a template have distinct ids",
			Source:      `seed 000 "Step Fields" (Unique step ID); cue/README.md, vermas`,
			ExampleKind: kTmpl,
			examples: func() (string, string) {
				return vermasRepl(vermasTemplate, `id = "implement"`, `id = "understand"`), vermasTemplate
			},
			Check: checkVermasStepIDs,
		},
		&Rule{
			ID: "VM034", Name: "template-needs", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "every entry of a step's needs names a step of the same template",
			Source:      `seed 000 "Step Fields" (needs); README, Codes and precedence, SCHEMA_INVALID; cue/README.md, vermas "Templates"`,
			ExampleKind: kTmpl,
			examples: func() (string, string) {
				return vermasRepl(vermasTemplate, `needs = ["understand"]`, `needs = ["understnad"]`), vermasTemplate
			},
			Check: checkVermasTemplateNeeds,
		},
		&Rule{
			ID: "VM035", Name: "template-cycle", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kTmpl},
			Summary:     "the needs of a template's steps form no cycle (the cycle is named)",
			Source:      `seed 000 "Step Fields" (Step IDs that must complete first); README, Codes and precedence, SCHEMA_INVALID; cue/README.md, vermas "Templates"`,
			ExampleKind: kTmpl,
			examples:    func() (string, string) { return cyclic, vermasTemplate },
			Check:       checkVermasTemplateCycle,
		},
		&Rule{
			ID: "VM040", Name: "timestamp-order", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kWO, kProc},
			Summary:     "a work order's updated_at is not before its created_at; a process step's completed_at is not before its started_at",
			Source:      `seed 000 "Work Order Schema", "Process Schema (JSON)"`,
			ExampleKind: kProc,
			examples: func() (string, string) {
				return vermasRepl(vermasProcess, `"completed_at": "2026-01-06T10:05:00.000Z"`, `"completed_at": "2026-01-06T09:55:00.000Z"`), vermasProcess
			},
			Check:  checkVermasTimeOrder,
			Fields: []string{"/created_at", "/updated_at", "/steps"},
		},
		&Rule{
			ID: "VM041", Name: "process-step-ids-unique", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{kProc},
			Summary:     "the steps of a process have distinct ids",
			Source:      `seed 000 "Process Schema (JSON)" (step instances of a template, whose step ids are unique)`,
			ExampleKind: kProc,
			examples: func() (string, string) {
				return vermasRepl(vermasProcess, `"id": "implement"`, `"id": "understand"`), vermasProcess
			},
			Check: checkVermasStepIDs,
		},
	)
}
