// Package bench measures `agentlint lint` on large JSON Lines logs. It holds
// deterministic generators of logs: Generate, whose collector and worklog
// logs follow the seeds' examples with a defect in every thousand lines
// (the engine's tests check their verdicts exactly), and GenerateMix, whose
// logs of every JSON Lines family are shaped like real producers' output
// (1 % defects; collector events of types outside seed 004's table and with
// parents in other agents' logs) and come with the exact count of the
// findings a run reports; testing.B benchmarks of the engine next to the
// floor of a syntax-only check (jsontext.Value.IsValid per line); and the
// harness behind `make bench` (cmd/lintbench), which times the agentlint
// binary on GenerateMix logs against ajv and that floor and reports lines/s,
// MB/s and peak RSS.
//
// Generate writes collector events (seed 004, "JSONL Event System
// Specification") or operator worklog entries (seed 001, "Artifact: Worklog
// Entry") of about 550 bytes each. Most lines are valid; a known set of
// lines at fixed positions carries one defect each, and Generate returns the
// list (line, expected code, severity, defect), so that tests can check the
// engine's verdicts exactly.
package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Kinds the generator writes.
const (
	KindCollector = "collector/event"
	KindWorklog   = "operator/worklog"
)

// Every is the spacing of defective lines: line n (1-based) carries a defect
// when n%Every == Every/2, cycling through the kind's defects in order. A
// 1M-line log has 1000 of them.
const Every = 1000

// Defect is one defective line the generator wrote: its 1-based line, the
// primary code README, Codes and precedence gives it and the severity of that code's
// finding (a warning does not deny the record).
type Defect struct {
	Line     int
	Code     envelope.Code
	Severity envelope.Severity
	Name     string
}

// Config says what to generate.
type Config struct {
	// Kind is KindCollector, KindWorklog, KindLedger, KindIdle or KindVermas.
	Kind string
	// Lines is the number of lines (records and defective lines).
	Lines int
	// Seed makes the output deterministic: the same Config gives the same bytes.
	Seed uint64
}

// defect describes how one kind of defective line is made from a valid
// record: mutate edits the record's fields, or raw rewrites its bytes.
type defect struct {
	name     string
	code     envelope.Code
	severity envelope.Severity
	mutate   func(r *record)
	raw      func(line []byte) []byte
}

// record is an ordered list of top-level members with raw JSON values, so
// that defects can drop, replace or repeat members before rendering.
type record struct {
	names  []string
	values [][]byte
}

func (r *record) reset() { r.names, r.values = r.names[:0], r.values[:0] }

func (r *record) add(name string, raw []byte) {
	r.names = append(r.names, name)
	r.values = append(r.values, raw)
}

func (r *record) set(name string, raw []byte) {
	for i, n := range r.names {
		if n == name {
			r.values[i] = raw
			return
		}
	}
	r.add(name, raw)
}

func (r *record) drop(name string) {
	for i, n := range r.names {
		if n == name {
			r.names = append(r.names[:i], r.names[i+1:]...)
			r.values = append(r.values[:i], r.values[i+1:]...)
			return
		}
	}
}

func (r *record) get(name string) []byte {
	for i, n := range r.names {
		if n == name {
			return r.values[i]
		}
	}
	return nil
}

func (r *record) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, n := range r.names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, n)
		dst = append(dst, ':')
		dst = append(dst, r.values[i]...)
	}
	return append(dst, '}')
}

func q(s string) []byte { return strconv.AppendQuote(nil, s) }

// truncate cuts a line in the middle: invalid JSON.
func truncate(line []byte) []byte { return line[:len(line)/2] }

// duplicateFirst repeats the first member: a duplicate object key.
func duplicateFirst(line []byte) []byte {
	// line starts with {"name":value,  -- find the end of the first member.
	end := indexTopComma(line)
	if end < 0 {
		return line
	}
	out := append([]byte(nil), line[:end]...)
	out = append(out, ',')
	out = append(out, line[1:end]...)
	return append(out, line[end:]...)
}

// indexTopComma returns the index of the first ',' at depth 1 outside strings.
func indexTopComma(b []byte) int {
	depth, inStr := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				return i
			}
		}
	}
	return -1
}

const (
	errS  = envelope.SeverityError
	warnS = envelope.SeverityWarning
)

// collectorDefects follow README, Codes and precedence; Kinds (collector): absent
// required fields are MISSING_REQUIRED_INPUT, every other schema failure
// SCHEMA_INVALID, a version with another major UNKNOWN_SCHEMA_VERSION.
var collectorDefects = []defect{
	{name: "truncated line", code: envelope.SchemaInvalid, severity: errS, raw: truncate},
	{name: "agent_id absent", code: envelope.MissingRequiredInput, severity: errS, mutate: func(r *record) { r.drop("agent_id") }},
	{name: "version 2.0.0", code: envelope.UnknownSchemaVersion, severity: errS, mutate: func(r *record) { r.set("version", q("2.0.0")) }},
	{name: "timestamp with a space", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("timestamp", q("2025-12-13 20:45:00.123Z")) }},
	{name: "event_type outside the namespaces", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("event_type", q("metrics.cpu_load")) }},
	{name: "progress above 1", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("progress", []byte("1.5")) }},
	{name: "event_id not a uuid", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("event_id", q("evt-550e8400")) }},
	{name: "duplicate key", code: envelope.SchemaInvalid, severity: errS, raw: duplicateFirst},
	{name: "agent_id empty", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("agent_id", q("")) }},
	{name: "source not mcp or hook", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("source", q("cli")) }},
	{name: "version 1.0", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("version", q("1.0")) }},
	{name: "tool.duration_ms not an integer", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) {
		r.set("tool", []byte(`{"tool_name":"Bash","duration_ms":12.5}`))
	}},
	{name: "unknown event type in a known namespace", code: envelope.SchemaInvalid, severity: warnS, mutate: func(r *record) {
		r.set("event_type", q("lifecycle.paused"))
		r.drop("status")
	}},
}

// worklogDefects follow README, Codes and precedence; Kinds (operator).
var worklogDefects = []defect{
	{name: "truncated line", code: envelope.SchemaInvalid, severity: errS, raw: truncate},
	{name: "run_id absent", code: envelope.MissingRequiredInput, severity: errS, mutate: func(r *record) { r.drop("run_id") }},
	{name: "schema_version 2.0.0", code: envelope.UnknownSchemaVersion, severity: errS, mutate: func(r *record) { r.set("schema_version", q("2.0.0")) }},
	{name: "timestamp with a space", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("timestamp", q("2026-02-14 19:10:00Z")) }},
	{name: "timestamp not UTC", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) {
		ts := r.get("timestamp")
		r.set("timestamp", append(append([]byte(nil), ts[:len(ts)-2]...), `+01:00"`...))
	}},
	{name: "files_touched not an array", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("files_touched", q("src/api.py")) }},
	{name: "duplicate key", code: envelope.SchemaInvalid, severity: errS, raw: duplicateFirst},
	{name: "secret in decision", code: envelope.UntrustedContextBlock, severity: errS, mutate: func(r *record) {
		r.set("decision", q("used key AKIAIOSFODNN7EXAMPLE to read the bucket"))
	}},
	{name: "task_id malformed", code: envelope.SchemaInvalid, severity: errS, mutate: func(r *record) { r.set("task_id", q("task-12")) }},
	{name: "timestamp before the previous line", code: envelope.LedgerInconsistent, severity: warnS, mutate: func(r *record) {
		r.set("timestamp", q("2020-01-01T00:00:00Z"))
	}},
}

var eventTypes = []struct{ typ, status, hook string }{
	{"lifecycle.started", "started", ""}, {"lifecycle.completed", "completed", ""}, {"lifecycle.error", "error", ""},
	{"lifecycle.terminated", "", ""}, {"activity.thinking", "thinking", ""}, {"activity.tool_use", "tool_use", ""},
	{"activity.progress", "progress", ""}, {"coordination.waiting", "waiting", ""}, {"coordination.blocked", "blocked", ""},
	{"coordination.handoff", "", ""}, {"hook.session_start", "started", "SessionStart"}, {"hook.session_end", "completed", "SessionEnd"},
	{"hook.prompt_submit", "thinking", "UserPromptSubmit"}, {"hook.pre_tool_use", "tool_use", "PreToolUse"},
	{"hook.post_tool_use", "progress", "PostToolUse"}, {"hook.permission_request", "waiting", "PermissionRequest"},
	{"hook.notification", "progress", "Notification"}, {"hook.stop", "completed", "Stop"}, {"hook.subagent_stop", "completed", "SubagentStop"},
	{"hook.pre_compact", "progress", "PreCompact"}, {"decision.made", "", ""}, {"decision.rationale", "", ""},
	{"decision.rejected", "", ""}, {"system.heartbeat", "", ""}, {"system.config_change", "", ""}, {"system.error", "error", ""},
}

var (
	agents   = []string{"@backend-engineer@galway", "@qa-engineer", "@architect", "@pm-agent", "@orchestrator", "@frontend-engineer@cork", "@sre-oncall"}
	tools    = []string{"Read", "Bash", "Grep", "Edit", "Write", "Glob", "WebFetch"}
	files    = []string{"/src/api.py", "/src/main.py", "/tests/test_api.py", "/docs/design.md", "/src/db/models.py", "/Makefile"}
	words    = []string{"reading", "the", "API", "source", "file", "before", "editing", "endpoint", "handlers", "and", "checking", "tests", "for", "regressions", "in", "the", "database", "layer", "migration", "plan", "schema", "review", "pipeline", "handoff"}
	actions  = []string{"claim", "edit", "test", "review", "report", "refactor", "release"}
	nextStep = []string{"run pytest", "read the tests", "report", "release the lock", "ask the orchestrator", "write docs"}
)

// gen holds the generator's state: its random source, clock and buffers.
type gen struct {
	rnd  *rand.Rand
	now  time.Time
	rec  record
	line []byte
	tmp  []byte
}

func (g *gen) pick(xs []string) string { return xs[g.rnd.IntN(len(xs))] }

func (g *gen) uuid() []byte {
	const hex = "0123456789abcdef"
	b := append(g.tmp[:0], '"')
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		b = append(b, hex[g.rnd.IntN(16)])
	}
	b = append(b, '"')
	return append([]byte(nil), b...)
}

func (g *gen) words(n int) string {
	b := g.tmp[:0]
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.pick(words)...)
	}
	return string(b)
}

func (g *gen) tick() {
	g.now = g.now.Add(time.Duration(50+g.rnd.IntN(2000)) * time.Millisecond)
}

func (g *gen) collector(n int) {
	r := &g.rec
	r.reset()
	et := eventTypes[g.rnd.IntN(len(eventTypes))]
	g.tick()
	r.add("version", q("1.0.0"))
	r.add("event_type", q(et.typ))
	r.add("timestamp", q(g.now.Format("2006-01-02T15:04:05.000Z07:00")))
	r.add("agent_id", q(g.pick(agents)))
	r.add("event_id", g.uuid())
	r.add("session_id", q("sess-"+strconv.Itoa(1000+n/5000)))
	if et.hook != "" {
		r.add("source", q("hook"))
	} else {
		r.add("source", q("mcp"))
	}
	if et.status != "" {
		r.add("status", q(et.status))
	}
	r.add("message", q(g.words(5+g.rnd.IntN(6))))
	if et.typ == "activity.progress" || et.typ == "hook.post_tool_use" || g.rnd.IntN(4) == 0 {
		r.add("progress", strconv.AppendFloat(nil, float64(g.rnd.IntN(101))/100, 'f', -1, 64))
	}
	tool := g.pick(tools)
	if strings.Contains(et.typ, "tool") || g.rnd.IntN(3) == 0 {
		r.add("tool", fmt.Appendf(nil, `{"tool_name":%q,"tool_input":{"file_path":%q},"tool_result":"success","duration_ms":%d}`,
			tool, g.pick(files), g.rnd.IntN(5000)))
	}
	if et.hook != "" {
		r.add("hook", fmt.Appendf(nil, `{"hook_type":%q,"raw_payload":{"cwd":"/home/agent/work","tool":%q}}`, et.hook, tool))
	}
	// Traces of 20 consecutive events: every event but the first names as
	// its parent a span logged earlier in its trace on a line that is not
	// defective (CL101: a parent span is logged before its children).
	trace, span := (n-1)/20, (n-1)%20
	parent := -1
	if span > 0 {
		p := g.rnd.IntN(span)
		for ; p >= 0 && (trace*20+p+1)%Every == Every/2; p-- {
		}
		parent = p
	}
	if parent < 0 {
		r.add("correlation", fmt.Appendf(nil, `{"trace_id":"trace-%06x","span_id":"span-%03d","root_agent_id":"@orchestrator"}`, trace, span))
	} else {
		r.add("correlation", fmt.Appendf(nil, `{"trace_id":"trace-%06x","span_id":"span-%03d","parent_span_id":"span-%03d","root_agent_id":"@orchestrator"}`,
			trace, span, parent))
	}
	r.add("metadata", fmt.Appendf(nil, `{"uptime_ms":%d,"memory_mb":%d,"host":"worker-%02d"}`,
		g.rnd.IntN(1e7), 64+g.rnd.IntN(960), g.rnd.IntN(32)))
}

func (g *gen) worklog(n int) {
	r := &g.rec
	r.reset()
	g.tick()
	r.add("timestamp", q(g.now.Format("2006-01-02T15:04:05Z")))
	r.add("run_id", q("3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"))
	r.add("task_id", q("T-"+strconv.Itoa(1+n%97)))
	r.add("actor", q("agent-"+strconv.Itoa(1+n%7)))
	r.add("action", q(g.pick(actions)))
	ft := append(g.tmp[:0], '[')
	for i, k := 0, g.rnd.IntN(4); i < k; i++ {
		if i > 0 {
			ft = append(ft, ',')
		}
		ft = strconv.AppendQuote(ft, g.pick(files)[1:])
	}
	r.add("files_touched", append(append([]byte(nil), ft...), ']'))
	r.add("decision", q(g.words(10+g.rnd.IntN(12))))
	r.add("result", q(g.words(8+g.rnd.IntN(10))))
	r.add("next_step", q(g.pick(nextStep)))
	r.add("evidence", q(g.words(6+g.rnd.IntN(10))))
	r.add("schema_version", q("1.0.0"))
	r.add("x_host", q(fmt.Sprintf("worker-%02d", g.rnd.IntN(32))))
}

// Generate writes cfg.Lines lines of cfg.Kind to w and returns the defective
// lines it wrote, in line order. Collector and worklog lines are about 550
// bytes on average and end with "\n"; timestamps increase from
// 2026-02-14T19:00:00Z. KindLedger, KindIdle and KindVermas logs carry no
// defect (coherent.go; lint them at CoherentNow).
func Generate(w io.Writer, cfg Config) ([]Defect, error) {
	var defects []defect
	var build func(g *gen, n int)
	switch cfg.Kind {
	case KindCollector:
		defects, build = collectorDefects, (*gen).collector
	case KindWorklog:
		defects, build = worklogDefects, (*gen).worklog
	case KindLedger, KindIdle:
		return nil, writeCoherent(w, cfg.Kind, cfg.Lines)
	case KindVermas:
		_, err := GenerateVermas(w, cfg.Lines, vermasWorkOrders(cfg.Lines), cfg.Seed)
		return nil, err
	default:
		return nil, fmt.Errorf("bench: cannot generate kind %q", cfg.Kind)
	}
	g := &gen{rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), now: time.Date(2026, 2, 14, 19, 0, 0, 0, time.UTC)}
	bw := bufio.NewWriterSize(w, 1<<20)
	var out []Defect
	k := 0
	for n := 1; n <= cfg.Lines; n++ {
		build(g, n)
		if n%Every == Every/2 {
			d := defects[k%len(defects)]
			k++
			if d.mutate != nil {
				d.mutate(&g.rec)
			}
			g.line = g.rec.appendJSON(g.line[:0])
			if d.raw != nil {
				g.line = d.raw(g.line)
			}
			out = append(out, Defect{Line: n, Code: d.code, Severity: d.severity, Name: d.name})
		} else {
			g.line = g.rec.appendJSON(g.line[:0])
		}
		g.line = append(g.line, '\n')
		if _, err := bw.Write(g.line); err != nil {
			return nil, err
		}
	}
	return out, bw.Flush()
}

// WriteDefects writes the defect list as tab-separated lines:
// "line\tcode\tseverity\tname".
func WriteDefects(w io.Writer, ds []Defect) error {
	bw := bufio.NewWriter(w)
	for _, d := range ds {
		fmt.Fprintf(bw, "%d\t%s\t%s\t%s\n", d.Line, d.Code, d.Severity, d.Name)
	}
	return bw.Flush()
}
