package rules

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Collector rules (seed 004 "JSONL Event System Specification", cue/README.md
// "collector"). CL001–CL007 are schema rules named by cue/collector.cue; the rules
// below need the reference table of event types.

// collectorEvent is seed 004's lifecycle namespace "Example".
const collectorEvent = `{"version":"1.0.0","event_type":"lifecycle.started","timestamp":"2025-12-13T20:45:00.123Z","agent_id":"@backend-engineer","session_id":"sess-abc123","source":"mcp","message":"Beginning API implementation"}`

// CollectorEventTypes maps each of the 26 known event types (the rows of
// seed 004's "Complete Event Type Reference", whose heading says 22; the rows
// win, cue/README.md "collector") to its legacy status equivalent,
// "" where the table shows "-".
var CollectorEventTypes = map[string]string{
	"lifecycle.started":       "started",
	"lifecycle.completed":     "completed",
	"lifecycle.error":         "error",
	"lifecycle.terminated":    "",
	"activity.thinking":       "thinking",
	"activity.tool_use":       "tool_use",
	"activity.progress":       "progress",
	"coordination.waiting":    "waiting",
	"coordination.blocked":    "blocked",
	"coordination.handoff":    "",
	"hook.session_start":      "started",
	"hook.session_end":        "completed",
	"hook.prompt_submit":      "thinking",
	"hook.pre_tool_use":       "tool_use",
	"hook.post_tool_use":      "progress",
	"hook.permission_request": "waiting",
	"hook.notification":       "progress",
	"hook.stop":               "completed",
	"hook.subagent_stop":      "completed",
	"hook.pre_compact":        "progress",
	"decision.made":           "",
	"decision.rationale":      "",
	"decision.rejected":       "",
	"system.heartbeat":        "",
	"system.config_change":    "",
	"system.error":            "error",
}

// unknownEventType reports event_type when it is not one of the 26 (the
// schema already holds it to a known namespace).
func unknownEventType(d *Doc, r *Reporter) {
	t, _ := d.DocStr("/event_type")
	if t == "" {
		return
	}
	c := collectorTypeOf(t)
	if c.known || d.Options.Extended(FamilyCollector, t) {
		return
	}
	if c.unknown == nil {
		return // CL003 (the schema) reports it
	}
	if r.Counting() {
		r.reportOwned("/event_type", "", nil) // near half of a producer's events: no details to drop
		return
	}
	u := c.unknown
	r.reportChecked("/event_type", u.reason, u.extra, u.checked)
}

// collectorType is what the collector's document rules need to know of one
// event type, whatever the configuration: whether it is one of seed 004's
// 26 (CollectorEventTypes) and its status equivalent (CL012), and, for a
// type outside the table in a known namespace with a lower-case name,
// CL010's finding (unknownTypeOf). Never written once made.
type collectorType struct {
	t       string
	known   bool
	status  string
	unknown *unknownType // nil: known, or not a namespace.name that CL010 reports
}

// collectorTypes remembers the collectorType of the event types seen last:
// a producer's logs hold a few dozen types, so CL010 and CL012 read a slot
// instead of hashing the type into CollectorEventTypes and unknownTypes
// for every record. A type lives in one of collectorTypeProbe slots from
// collectorTypeSlot on (the first empty one when it is made; the first of
// them when none is empty), so that a few dozen types stay, each in a slot
// of its own, whatever their hashes. A slot is used only when its type
// equals the record's; the workers share the slots, each entry is
// immutable and replaced whole.
var collectorTypes [256]atomic.Pointer[collectorType]

// collectorTypeProbe is how many slots from collectorTypeSlot on may hold
// a type.
const collectorTypeProbe = 4

// collectorTypeSlot is the first slot of event type t (not empty) in
// collectorTypes: a multiplicative hash of its length and of its first
// and last eight bytes (all of them when it is shorter).
func collectorTypeSlot(t string) int {
	n := len(t)
	var a, b uint64
	if n >= 8 {
		a = uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		e := t[n-8:]
		b = uint64(e[0]) | uint64(e[1])<<8 | uint64(e[2])<<16 | uint64(e[3])<<24 |
			uint64(e[4])<<32 | uint64(e[5])<<40 | uint64(e[6])<<48 | uint64(e[7])<<56
	} else {
		for k := 0; k < n; k++ {
			a |= uint64(t[k]) << (8 * k)
		}
	}
	h := (a ^ uint64(n)) * 0x9e3779b97f4a7c15
	h = (h ^ b ^ h>>29) * 0xbf58476d1ce4e5b9
	return int(h >> (64 - 8)) // len(collectorTypes) is 1<<8
}

// collectorTypeOf returns the collectorType of event type t (not empty).
func collectorTypeOf(t string) *collectorType {
	first := collectorTypeSlot(t)
	empty := -1
	for k := range collectorTypeProbe {
		s := (first + k) & (len(collectorTypes) - 1)
		c := collectorTypes[s].Load()
		if c == nil {
			empty = s // slots are never emptied: t is not further on
			break
		}
		if c.t == t {
			return c
		}
	}
	if empty < 0 {
		empty = first
	}
	t = strings.Clone(t) // t may alias a record's buffer
	c := &collectorType{t: t}
	c.status, c.known = CollectorEventTypes[t]
	if ns, name, _ := strings.Cut(t, "."); !c.known && collectorNamespace(ns) && lowerName(name) {
		c.unknown = unknownTypeOf(t)
	}
	collectorTypes[empty].Store(c)
	return c
}

// unknownTypes caches the reasons of CL010 by event type (near half of a
// producer's events may be of types outside the table, a few dozen types
// in all): a finding then costs a lookup, not formatting. At most
// unknownTypesMax types are cached, so that a log of ever new types does
// not grow it.
var (
	unknownTypes    sync.Map // event type → unknownType
	unknownTypesLen atomic.Int32
)

const unknownTypesMax = 512

// unknownType is CL010's finding for one event type: its reason and its
// details ({"namespace": ns}), a map shared by every finding of the type
// and never written (the engine copies a finding's details before it
// changes them).
type unknownType struct {
	reason  string
	extra   map[string]any
	checked bool // neither the reason nor the namespace holds a secret (secrets.Scan)
}

// unknownTypeOf returns CL010's finding for event type t (in a known
// namespace), which the caller may keep.
func unknownTypeOf(t string) *unknownType {
	if u, ok := unknownTypes.Load(t); ok {
		return u.(*unknownType)
	}
	t = strings.Clone(t)
	ns, _, _ := strings.Cut(t, ".")
	u := &unknownType{
		reason: "unknown event type " + strconv.Quote(t) + " in namespace " + strconv.Quote(ns) + " (seed 004 lists 26 event types)" + ExtendHint(FamilyCollector),
		extra:  map[string]any{"namespace": ns},
	}
	u.checked = !scans(u.reason) && !scans(ns)
	if unknownTypesLen.Load() < unknownTypesMax {
		if _, loaded := unknownTypes.LoadOrStore(t, u); !loaded {
			unknownTypesLen.Add(1)
		}
	}
	return u
}

// collectorNamespace reports whether ns is one of seed 004's six namespaces.
func collectorNamespace(ns string) bool {
	switch ns {
	case "lifecycle", "activity", "coordination", "hook", "decision", "system":
		return true
	}
	return false
}

// lowerName reports whether s matches [a-z_]+ (seed 004's event name).
func lowerName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && (c < 'a' || c > 'z') {
			return false
		}
	}
	return s != ""
}

// checkUnknownEventType: an unknown type in a known namespace is a warning
// (CL010) without --strict ...
func checkUnknownEventType(d *Doc, r *Reporter) {
	if d.Options == nil || !d.Options.Strict {
		unknownEventType(d, r)
	}
}

// checkUnknownEventTypeStrict: ... and SCHEMA_INVALID (CL011) with --strict
// (cue/README.md, All families).
func checkUnknownEventTypeStrict(d *Doc, r *Reporter) {
	if d.Options != nil && d.Options.Strict {
		unknownEventType(d, r)
	}
}

// checkLegacyStatus: a legacy status that contradicts the event type's
// status equivalent is a warning (CL012). Types without an equivalent accept
// any status.
func checkLegacyStatus(d *Doc, r *Reporter) {
	status, ok := d.DocStr("/status")
	if !ok {
		return
	}
	t, _ := d.DocStr("/event_type")
	if t == "" {
		return
	}
	want := collectorTypeOf(t).status
	if want == "" || status == want {
		return
	}
	r.Reportf(Ptr("status"), map[string]any{"status_equivalent": want},
		"legacy status %q contradicts event type %s, whose status equivalent is %q", status, t, want)
}

// checkLeapSecond: the JSON Schema's date-time format accepts a leap second
// only at 23:59:60 UTC (RFC 3339 section 5.7); the schema's pattern accepts
// :60 at any minute, so this rule holds timestamp to the JSON Schema (CL013).
func checkLeapSecond(d *Doc, r *Reporter) {
	ts, _ := d.DocStr("/timestamp")
	if len(ts) >= 19 && ts[17:19] == "60" && !timefmt.IsRFC3339(ts) {
		r.Reportf(Ptr("timestamp"), nil, "timestamp %q has a leap second that is not at 23:59:60 UTC", ts)
	}
}

// collectorRules defines the rules of this file (group CL, loaded on first use: see groups).
func collectorRules() {
	ev := func(old, repl string) string { return strings.Replace(collectorEvent, old, repl, 1) }
	cl := []string{"collector/event"}
	register(
		&Rule{
			ID: "CL001", Name: "collector-version", Code: envelope.UnknownSchemaVersion, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "version must be a string whose major version is 1 (fail closed on other majors, numbers and null)",
			Source:      "seed 004 Schema Version; README, Codes and precedence, UNKNOWN_SCHEMA_VERSION",
			ExampleKind: "collector/event", examples: func() (string, string) { return ev(`"1.0.0"`, `"2.0.0"`), collectorEvent },
		},
		&Rule{
			ID: "CL002", Name: "collector-version-format", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     `a major-1 version must match the seed's pattern ^\d+\.\d+\.\d+$ ("1.0" is malformed)`,
			Source:      "seed 004 JSON Schema (version.pattern); README, Codes and precedence, UNKNOWN_SCHEMA_VERSION (a known major with a malformed rest)",
			ExampleKind: "collector/event", examples: func() (string, string) { return ev(`"1.0.0"`, `"1.0"`), collectorEvent },
		},
		&Rule{
			ID: "CL003", Name: "collector-event-type", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "event_type is <namespace>.<name>: namespace lifecycle, activity, coordination, hook, decision or system; name [a-z_]+",
			Source:      "seed 004 JSON Schema (event_type.pattern)",
			ExampleKind: "collector/event", examples: func() (string, string) { return ev(`"lifecycle.started"`, `"Lifecycle.Started"`), collectorEvent },
		},
		&Rule{
			ID: "CL004", Name: "collector-timestamp", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "timestamp is an RFC 3339 date-time with an offset",
			Source:      "seed 004 JSON Schema (timestamp format date-time); cue/README.md, All families and collector",
			ExampleKind: "collector/event", examples: func() (string, string) {
				return ev(`"2025-12-13T20:45:00.123Z"`, `"2025-12-13 20:45:00"`), collectorEvent
			},
		},
		&Rule{
			ID: "CL005", Name: "collector-agent-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "agent_id is a string of at least one character",
			Source:      "seed 004 JSON Schema (agent_id.minLength 1); README, Codes and precedence (collector: only absence is MISSING_REQUIRED_INPUT)",
			ExampleKind: "collector/event", examples: func() (string, string) { return ev(`"@backend-engineer"`, `""`), collectorEvent },
		},
		&Rule{
			ID: "CL006", Name: "collector-event-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "event_id is a UUID in the 8-4-4-4-12 form",
			Source:      "seed 004 JSON Schema (event_id format uuid); cue/README.md, collector",
			ExampleKind: "collector/event",
			examples: func() (string, string) {
				return ev(`"session_id"`, `"event_id":"550e8400e29b41d4a716446655440000","session_id"`), ev(`"session_id"`, `"event_id":"550e8400-e29b-41d4-a716-446655440000","session_id"`)
			},
		},
		&Rule{
			ID: "CL007", Name: "collector-progress", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "progress is a number from 0.0 to 1.0 (compared exactly)",
			Source:      "seed 004 JSON Schema (progress minimum 0.0, maximum 1.0)",
			ExampleKind: "collector/event", examples: func() (string, string) {
				return ev(`"source"`, `"progress":75,"source"`), ev(`"source"`, `"progress":0.75,"source"`)
			},
		},
		&Rule{
			ID: "CL010", Name: "unknown-event-type", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning, Kinds: cl,
			Summary:     "event_type is in a known namespace but is not one of the 26 event types of seed 004 (with --strict: CL011)",
			Source:      "seed 004 Complete Event Type Reference (26 rows); cue/README.md, All families and collector",
			ExampleKind: "collector/event", examples: func() (string, string) { return ev(`"lifecycle.started"`, `"lifecycle.paused"`), collectorEvent },
			Check:   checkUnknownEventType,
			InPlace: true,
			Fields:  []string{"/event_type"},
		},
		&Rule{
			ID: "CL011", Name: "unknown-event-type-strict", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "with --strict, event_type must be one of the 26 event types of seed 004",
			Source:      "seed 004 Complete Event Type Reference; cue/README.md, All families (unknown event types: --strict makes them SCHEMA_INVALID)",
			ExampleKind: "collector/event", Options: []string{"--strict"},
			examples: func() (string, string) { return ev(`"lifecycle.started"`, `"lifecycle.paused"`), collectorEvent },
			Check:    checkUnknownEventTypeStrict,
			InPlace:  true,
			Fields:   []string{"/event_type"},
		},
		&Rule{
			ID: "CL012", Name: "legacy-status", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning, Kinds: cl,
			Summary:     "a legacy status must not contradict the event type's status equivalent",
			Source:      "seed 004 Backward Compatibility and Complete Event Type Reference (Status Equivalent); cue/README.md, collector",
			ExampleKind: "collector/event", examples: func() (string, string) {
				return ev(`"source"`, `"status":"completed","source"`), ev(`"source"`, `"status":"started","source"`)
			},
			Check:   checkLegacyStatus,
			InPlace: true,
			Fields:  []string{"/event_type", "/status"},
		},
		&Rule{
			ID: "CL013", Name: "collector-leap-second", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: cl,
			Summary:     "a leap second in timestamp must fall at 23:59:60 UTC",
			Source:      "seed 004 JSON Schema (format date-time, asserted); RFC 3339 section 5.7; cue/README.md, collector",
			ExampleKind: "collector/event", examples: func() (string, string) {
				return ev(`"2025-12-13T20:45:00.123Z"`, `"2025-12-13T20:45:60Z"`), ev(`"2025-12-13T20:45:00.123Z"`, `"2025-12-31T23:59:60Z"`)
			},
			Check:   checkLeapSecond,
			InPlace: true,
			Fields:  []string{"/timestamp"},
		},
	)
}
