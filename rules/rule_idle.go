package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Idle loop rules (seed 002 "Event Schema (v0)", cue/README.md
// "idle"). IL001–IL009 are schema rules named by cue/idle.cue; the rules
// below need two fields, the clock or a numeric comparison of text.

// idleState is seed 002's "Simple Loop STATE" example, compacted.
const idleState = `{"schema":0,"event":"STATE","run_id":"loop-1703123456-12345","updated_at":"2024-12-21T10:00:00Z","stack":[{"id":"loop-1703123456-12345","mode":"loop","iter":3,"max":10,"prompt_file":"/tmp/idle-loop-xxx/prompt.txt"}]}`

// idleAnchor is seed 002's "ANCHOR Event" example, compacted.
const idleAnchor = `{"schema":0,"goal":"Working on issue: auth-123","mode":"issue","iteration":"3/10","progress":"Recent commits: abc1234; def5678; ghi9012","modified_files":"src/auth.py, tests/test_auth.py, README.md","next_step":"Continue working on the task. Check git status and loop state.","timestamp":"2024-12-21T10:30:00Z"}`

// idleExampleNow is the --now of the idle examples (lint/examples_test.go
// runs every example at 2026-02-14T20:00:00Z; the STATE examples are
// dated relative to it where staleness matters).
const idleExampleNow = "2026-02-14T19:00:00Z"

// IdleEvents are the event names of seed 002 section 3.
var IdleEvents = []string{"STATE", "DONE", "ABORT", "ANCHOR"}

// IdleStateTTL is how long a STATE stays fresh (seed 002 section 4.1: "TTL:
// 2 hours (state is considered stale after this period)").
const IdleStateTTL = 2 * time.Hour

// checkIdleSchema1: schema 1, what the seed says the code base emits, is
// accepted with a warning (IL010; cue/README.md "idle").
func checkIdleSchema1(d *Doc, r *Reporter) {
	if d.inPlace() {
		raw, _ := d.flatRaw("/schema")
		if n, ok := rawNumber(raw); !ok || n != 1 {
			return
		}
	}
	if n, ok := d.Root()["schema"].(float64); ok && n == 1 {
		r.Report(Ptr("schema"), "schema 1 is accepted but seed 002 formalizes the events as schema 0", nil)
	}
}

// checkIdleEmptyStack: a STATE whose stack is an empty array (IL009,
// warning): no loop is active, which seed 002 does not forbid.
func checkIdleEmptyStack(d *Doc, r *Reporter) {
	if d.inPlace() {
		if st := idleStackOf(d); st.ok && (!st.state || st.frames != 0) {
			return
		}
	}
	root := d.Root()
	if stack, ok := root["stack"].([]any); ok && len(stack) == 0 && Str(root, "event") == "STATE" {
		r.Report(Ptr("stack"), "STATE with an empty stack: no loop is active", nil)
	}
}

// checkIdleEvent: event, when present, is one of the four names (IL014).
func checkIdleEvent(d *Doc, r *Reporter) {
	if d.inPlace() {
		_, present := d.flatRaw("/event")
		if s, _ := d.DocStr("/event"); !present || slices.Contains(IdleEvents, s) {
			return
		}
	}
	ev, present := d.Root()["event"]
	s, _ := ev.(string)
	if !present {
		return
	}
	for _, e := range IdleEvents {
		if s == e {
			return
		}
	}
	r.Reportf(Ptr("event"), nil, "event %q is not one of STATE, DONE, ABORT, ANCHOR", s)
}

// checkIdleRunMode: the mode in a STATE's run_id (<mode>-<timestamp>-<pid>)
// equals the mode of the first stack frame (IL012).
func checkIdleRunMode(d *Doc, r *Reporter) {
	if d.inPlace() && idleRunModeAgrees(d) {
		return
	}
	root := d.Root()
	if Str(root, "event") != "STATE" {
		return
	}
	stack := Arr(root, "stack")
	if len(stack) == 0 {
		return
	}
	runID, ok1 := root["run_id"].(string)
	frameMode, ok2 := Obj(stack[0])["mode"].(string)
	if !ok1 || !ok2 {
		return // the schema reports an absent or ill-typed run_id or mode
	}
	runMode, _, _ := strings.Cut(runID, "-")
	if runMode != frameMode {
		r.Reportf(Ptr("run_id"), map[string]any{"frame_mode": frameMode},
			"run_id %q is a %s run, but the first stack frame's mode is %q", Str(root, "run_id"), runMode, frameMode)
	}
}

// idleRunModeAgrees reports, for a record read in place, that IL012 finds
// nothing in it: not a STATE, no run_id or first frame's mode to compare,
// or the two agree. False when they differ or a scanner declined.
func idleRunModeAgrees(d *Doc) bool {
	st := idleStackOf(d)
	if !st.ok {
		return false
	}
	if !st.state || st.frames <= 0 || st.mode0 == nil {
		return true // not a STATE, its stack not an array, empty, or no mode in a first frame
	}
	runID, ok := d.DocStr("/run_id")
	if !ok {
		return true
	}
	m, str, plain := rawString(st.mode0)
	runMode, _, _ := strings.Cut(runID, "-")
	return plain && (!str || m == runMode)
}

// checkIdleFrameIter: iter <= max in every stack frame of a STATE (IL015;
// the schema checks both are integers >= 1).
func checkIdleFrameIter(d *Doc, r *Reporter) {
	if d.inPlace() && idleFramesWithinMax(d) {
		return
	}
	root := d.Root()
	if Str(root, "event") != "STATE" {
		return
	}
	for i, f := range Arr(root, "stack") {
		fr := Obj(f)
		iter, ok1 := fr["iter"].(float64)
		max, ok2 := fr["max"].(float64)
		if ok1 && ok2 && iter > max {
			r.Reportf(Ptr("stack", i, "iter"), nil, "iter %v must be <= max %v", iter, max)
		}
	}
}

// idleFramesWithinMax reports, for a record read in place, that IL015
// finds nothing in it: not a STATE, or no frame whose iter and max are
// numbers with iter > max. False when one is over or a scanner declined.
func idleFramesWithinMax(d *Doc) bool {
	st := idleStackOf(d)
	return st.ok && (!st.state || !st.over)
}

// idleStack is what IL009, IL012 and IL015 read of an idle record read in
// place (Doc.Flat), from the digest of its stack (idleStackOf).
type idleStack struct {
	done bool // read (a Doc's zero value: not yet)
	// ok: read exactly as decoding reads it; false when the digest
	// declined (a member name with an escape, text that is not well
	// formed: the rules then decode).
	ok bool
	// state: the event is "STATE"; the rest is read only then.
	state bool
	// frames is the number of elements of the stack, -1 when it is absent
	// or not an array.
	frames int
	// mode0 is the JSON text of the first frame's mode (nil when the first
	// element is not an object or has no mode).
	mode0 []byte
	// over: some frame is an object whose iter and max are numbers with
	// iter > max.
	over bool
}

// idleStackOf returns what the rules read of the stack of d, a record read
// in place, from its digest (idleStackDigest, which the engine keeps for
// IL101: one scan of the stack serves both), made on first use.
func idleStackOf(d *Doc) *idleStack {
	st := &d.stack
	if st.done {
		return st
	}
	*st = idleStack{done: true, ok: true, frames: -1}
	if ev, _ := d.DocStr("/event"); ev != "STATE" {
		return st
	}
	st.state = true
	var raw, dg []byte
	ok := false
	if f := d.flatOf("/stack"); f != nil && f.Elems != nil {
		// What the acceptor recorded of the frames, when it read them
		// (the stack of a STATE it accepted is an array of StackFrame
		// objects): no scan of the stack; the digest is the one
		// idleStackDigest makes, kept for IL101.
		raw = f.Raw
		var found bool
		if dg, ok, found = d.Digests.Lookup(idleStackDigest, raw); !found {
			s := d.ipState()
			var made bool
			if s.digest, made = idleDigestFromElems(s.digest[:0], f); made {
				if d.Digests == nil {
					d.Digests = new(DigestMemo)
				}
				dg, ok = d.Digests.Put(idleStackDigest, raw, s.digest, true), true
			} else {
				dg, ok = d.digest(idleStackDigest, raw)
			}
		}
	} else {
		raw, _ = d.flatRaw("/stack")
		dg, ok = d.digest(idleStackDigest, raw)
	}
	if !ok {
		st.ok = false
		return st
	}
	frames, flags, mode0 := idleDigestFrames(dg)
	st.frames, st.over = frames, flags&idleOver != 0
	if flags&idleMode0 != 0 {
		st.mode0 = raw[mode0[0]:mode0[1]]
	}
	return st
}

// idleDocFields are the members the idle document rules read (rules.Rule.Fields:
// only these are decoded).
var idleDocFields = []string{"/schema", "/event", "/run_id", "/stack", "/updated_at", "/iteration", "/mode", "/goal"}

// isAnchor reports whether an idle event is an ANCHOR (no event, or event
// "ANCHOR"; cue/README.md "idle").
func isAnchor(root map[string]any) bool {
	ev, present := root["event"]
	return !present || ev == "ANCHOR"
}

// checkIdleAnchorIteration: an ANCHOR's iteration "current/max" has
// 1 <= current <= max (IL011); the schema (IL008) checks the layout. The
// numbers are compared as decimal text, so any length is exact.
func checkIdleAnchorIteration(d *Doc, r *Reporter) {
	if d.inPlace() {
		_, present := d.flatRaw("/event")
		ev, _ := d.DocStr("/event")
		it, _ := d.DocStr("/iteration")
		if !idleIterationOut(it, !present || ev == "ANCHOR") {
			return
		}
	}
	root := d.Root()
	if it := Str(root, "iteration"); idleIterationOut(it, isAnchor(root)) {
		r.Reportf(Ptr("iteration"), nil, "iteration %q must have 1 <= current <= max", it)
	}
}

// idleIterationOut reports whether the iteration "current/max" of an
// ANCHOR (anchor) is out of bounds (IL011).
func idleIterationOut(it string, anchor bool) bool {
	cur, max, ok := strings.Cut(it, "/")
	if !anchor || !ok || cur == "" || max == "" {
		return false
	}
	c1, _ := fast.CompareNumbers(cur, "1")
	c2, _ := fast.CompareNumbers(cur, max)
	return c1 < 0 || c2 > 0
}

// checkIdleStale: a STATE document whose updated_at is more than
// IdleStateTTL before --now is stale (IL013, warning). A lone document is
// the current value of its loop:current topic (seed 002, Topic Naming:
// last-value topics); without a clock (Options.Now zero: `agentlint lint`
// without --now) it is its own latest timestamp and never stale. Lines of a
// log are left to the stream check (idleStale), which judges only the log's
// current STATE.
func checkIdleStale(d *Doc, r *Reporter) {
	if d.InLog {
		return
	}
	root := d.Root()
	if Str(root, "event") != "STATE" || d.Options == nil || d.Options.Now.IsZero() {
		return
	}
	at, ok := timefmt.ParseRFC3339(Str(root, "updated_at"))
	if !ok {
		return
	}
	if age := d.Options.Now.Sub(at); age > IdleStateTTL {
		r.Reportf(Ptr("updated_at"), map[string]any{"age_seconds": int64(age / time.Second)},
			"STATE is stale: updated_at %s is %s before now (TTL 2h)", Str(root, "updated_at"), age.Round(time.Second))
	}
}

// idleRules defines the rules of this file (group IL, loaded on first use: see groups).
func idleRules() {
	state := func(old, repl string) string { return strings.Replace(idleState, old, repl, 1) }
	anchor := func(old, repl string) string { return strings.Replace(idleAnchor, old, repl, 1) }
	fresh := state(`2024-12-21T10:00:00Z`, idleExampleNow)
	il := []string{"idle/event"}
	register(
		&Rule{
			ID: "IL001", Name: "idle-schema-version", Code: envelope.UnknownSchemaVersion, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "schema must be the integer 0 (or 1, with a warning); any other value or type, null included, is unknown",
			Source:      "seed 002 section 1; README, Codes and precedence, UNKNOWN_SCHEMA_VERSION; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"schema":0`, `"schema":"0"`), fresh },
		},
		&Rule{
			ID: "IL002", Name: "idle-run-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "a STATE's run_id is <mode>-<timestamp>-<pid>: ^(loop|grind|issue)-[0-9]+-[0-9]+$",
			Source:      "seed 002 section 2; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) {
				return state(`"run_id":"loop-1703123456-12345"`, `"run_id":"loop-1703123456"`), fresh
			},
		},
		&Rule{
			ID: "IL003", Name: "idle-timestamp", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "updated_at (STATE) and timestamp (ANCHOR) are RFC 3339 date-times with an offset",
			Source:      "seed 002 sections 4.1 and 4.4 (ISO 8601); cue/README.md, All families",
			ExampleKind: "idle/event", examples: func() (string, string) { return anchor(`2024-12-21T10:30:00Z`, `2024-12-21 10:30:00`), idleAnchor },
		},
		&Rule{
			ID: "IL004", Name: "frame-iteration", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "a stack frame's iter and max are integers >= 1 (iter <= max: IL015)",
			Source:      "seed 002 section 5 (iter 1-based, max allowed); cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"iter":3`, `"iter":0`), fresh },
		},
		&Rule{
			ID: "IL005", Name: "absolute-path", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "a stack frame's prompt_file and worktree_path are absolute paths",
			Source:      "seed 002 section 5; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"/tmp/idle-loop-xxx/prompt.txt"`, `"prompt.txt"`), fresh },
		},
		&Rule{
			ID: "IL006", Name: "idle-reason", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "DONE's reason is COMPLETE, MAX_ITERATIONS, NO_MORE_ISSUES or MAX_ISSUES; ABORT's optional reason is USER_CANCELLED",
			Source:      "seed 002 sections 4.2 and 4.3",
			ExampleKind: "idle/event",
			Example:     `{"schema":0,"event":"DONE","reason":"FINISHED","stack":[]}`,
			Fixed:       `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`,
		},
		&Rule{
			ID: "IL007", Name: "terminal-stack-empty", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "the stack of DONE and ABORT is always []",
			Source:      "seed 002 sections 4.2 and 4.3 (Always [])",
			ExampleKind: "idle/event",
			Example:     `{"schema":0,"event":"ABORT","stack":[{"id":"loop-1-2","mode":"loop","iter":1,"max":1,"prompt_file":"/p"}]}`,
			Fixed:       `{"schema":0,"event":"ABORT","stack":[]}`,
		},
		&Rule{
			ID: "IL008", Name: "anchor-iteration-format", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     `an ANCHOR's iteration is "current/max" (digits/digits)`,
			Source:      "seed 002 section 4.4; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return anchor(`"3/10"`, `"3 of 10"`), idleAnchor },
		},
		&Rule{
			ID: "IL009", Name: "state-stack", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning, Kinds: il,
			Summary:     "a STATE's stack should hold at least one stack frame (the last is the current loop); an empty one is a warning",
			Source:      "seed 002 sections 4.1 and 5 (stack: array of StackFrame objects, no minimum); idle's own tui/src/hook.zig writes an empty STATE stack (cue/README.md, decisions)",
			Check:       checkIdleEmptyStack,
			Fields:      idleDocFields,
			InPlace:     true,
			ExampleKind: "idle/event",
			examples: func() (string, string) {
				return `{"schema":0,"event":"STATE","run_id":"loop-1703123456-12345","updated_at":"` + idleExampleNow + `","stack":[]}`, fresh
			},
		},
		&Rule{
			ID: "IL010", Name: "idle-schema-1", Code: envelope.UnknownSchemaVersion, Severity: envelope.SeverityWarning, Kinds: il,
			Summary:     "schema 1 (what the seed says the code base emits) is accepted with a warning; seed 002 formalizes schema 0",
			Source:      "seed 002 section 1 (note); cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"schema":0`, `"schema":1`), fresh },
			Check:   checkIdleSchema1,
			Fields:  idleDocFields,
			InPlace: true,
		},
		&Rule{
			ID: "IL011", Name: "anchor-iteration-bounds", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     `an ANCHOR's iteration "current/max" has 1 <= current <= max`,
			Source:      "seed 002 section 4.4; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return anchor(`"3/10"`, `"11/10"`), idleAnchor },
			Check:   checkIdleAnchorIteration,
			Fields:  idleDocFields,
			InPlace: true,
		},
		&Rule{
			ID: "IL012", Name: "run-id-mode", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "a STATE's run_id mode (<mode>-<timestamp>-<pid>) equals the first stack frame's mode",
			Source:      "seed 002 sections 2 and 5; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"run_id":"loop-`, `"run_id":"grind-`), fresh },
			Check:   checkIdleRunMode,
			Fields:  idleDocFields,
			InPlace: true,
		},
		&Rule{
			ID: "IL013", Name: "stale-state", Code: envelope.TaskTimeout, Severity: envelope.SeverityWarning, Kinds: il,
			Scope: ScopeFile,
			Summary: "the current STATE of an idle log (its last STATE, when no DONE or ABORT follows it; a STATE document is its own) " +
				"is stale: its updated_at is more than 2 hours before --now, or, without --now in `agentlint lint`, before the latest timestamp the log itself holds",
			Source:      "seed 002 section 4.1 (TTL: 2 hours); cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return idleState, fresh },
			Check:   checkIdleStale,
			Fields:  idleDocFields,
			InPlace: true,
		},
		&Rule{
			ID: "IL015", Name: "frame-iter-max", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "a stack frame's iter is at most its max",
			Source:      "seed 002 section 5 (max: maximum iterations allowed); cue/README.md, idle (1 <= iter <= max)",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"iter":3`, `"iter":11`), fresh },
			Check:   checkIdleFrameIter,
			Fields:  idleDocFields,
			InPlace: true,
		},
		&Rule{
			ID: "IL014", Name: "idle-event", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: il,
			Summary:     "event, when present, is STATE, DONE, ABORT or ANCHOR (without event the object is an ANCHOR)",
			Source:      "seed 002 section 3; cue/README.md, idle",
			ExampleKind: "idle/event", examples: func() (string, string) { return state(`"STATE"`, `"STAT"`), fresh },
			Check:   checkIdleEvent,
			Fields:  idleDocFields,
			InPlace: true,
		},
	)
	registerStream("IL013", idleStale{})
}
