package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
)

// MixEvery is the spacing of defective lines in a realistic log
// (GenerateMix): line n carries a defect when n%MixEvery == MixEvery/2, 1 %
// of the lines.
const MixEvery = 100

// MixParentElsewhere is the share of a realistic collector log's records,
// in percent, whose parent span is in another agent's log: linted alone,
// the log gets a CL101 warning for each.
const MixParentElsewhere = 40

// MixUnknownType is the share of a realistic collector log's records, in
// percent, whose event_type is in one of seed 004's namespaces but not in
// its table of 26 (a producer's newer types): a CL010 warning each.
const MixUnknownType = 47

// Mix is what GenerateMix wrote: the defective lines (Defects, as
// Generate's) and the number of findings a run with every rule on reports
// on the whole log, warnings included (Warnings: the defects' warnings and
// the findings of the mix itself, CL010 and CL101 on collector logs), so
// that a benchmark checks its verdicts exactly whatever the number of
// findings.
type Mix struct {
	Defects  []Defect
	Denied   int // records denied (the defects of severity error)
	Warnings int // warning findings
	// ParentElsewhere and UnknownType count the collector records whose
	// parent is in another log (CL101) and whose event type is outside the
	// table (CL010).
	ParentElsewhere, UnknownType int
}

// GenerateMix writes cfg.Lines lines of cfg.Kind shaped like real
// producers' logs rather than like the seed's examples:
//
//   - every kind: a defective line in every MixEvery (1 %), cycling through
//     the kind's defects; time order and references otherwise consistent;
//   - collector events (seed 004): one agent's log of the per-agent logs
//     seed 004 "File Naming Convention" names, in traces of 5 to 40 events
//     interleaved four at a time; about MixUnknownType % of the events of
//     types outside the table of 26 but in its namespaces (as a producer's
//     v1.1 namespaces are), with version 1.1.0; half of the traces with
//     OpenTelemetry ids (32 and 16 hex digits), half with span ids such as
//     "span-007" that every trace reuses; a parent span earlier in the trace
//     for most events, in another agent's log (a span this log does not
//     have) for about MixParentElsewhere %;
//   - VerMAS events (seed 000): GenerateVermas's work orders, whose events
//     name the work order's previous event (caused_by);
//   - ledger entries and idle events: Generate's coherent logs.
//
// Lint ledger, idle and VerMAS logs at CoherentNow.
func GenerateMix(w io.Writer, cfg Config) (Mix, error) {
	var m Mix
	bw := bufio.NewWriterSize(w, 1<<20)
	switch cfg.Kind {
	case KindCollector:
		g := &mixGen{gen: gen{rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), now: time.Date(2026, 2, 14, 19, 0, 0, 0, time.UTC)}}
		if err := g.collectorLog(bw, cfg.Lines, &m); err != nil {
			return m, err
		}
	case KindWorklog:
		g := &gen{rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), now: time.Date(2026, 2, 14, 19, 0, 0, 0, time.UTC)}
		k := 0
		for n := 1; n <= cfg.Lines; n++ {
			g.worklog(n)
			if n%MixEvery == MixEvery/2 {
				d := worklogDefects[k%len(worklogDefects)]
				k++
				g.line = g.apply(d, n, &m)
			} else {
				g.line = g.rec.appendJSON(g.line[:0])
			}
			if _, err := bw.Write(append(g.line, '\n')); err != nil {
				return m, err
			}
		}
	case KindLedger, KindIdle, KindVermas:
		pr, pw := io.Pipe()
		go func() {
			var err error
			if cfg.Kind == KindVermas {
				_, err = GenerateVermas(pw, cfg.Lines, vermasWorkOrders(cfg.Lines), cfg.Seed)
			} else {
				err = writeCoherent(pw, cfg.Kind, cfg.Lines)
			}
			pw.CloseWithError(err)
		}()
		if err := mixDefects(bw, pr, cfg.Kind, &m); err != nil {
			return m, err
		}
	default:
		return m, fmt.Errorf("bench: cannot generate kind %q", cfg.Kind)
	}
	return m, bw.Flush()
}

// apply renders the current record with defect d on line n and counts it.
func (g *gen) apply(d defect, n int, m *Mix) []byte {
	if d.mutate != nil {
		d.mutate(&g.rec)
	}
	line := g.rec.appendJSON(g.line[:0])
	if d.raw != nil {
		line = d.raw(line)
	}
	m.add(Defect{Line: n, Code: d.code, Severity: d.severity, Name: d.name})
	return line
}

func (m *Mix) add(d Defect) {
	m.Defects = append(m.Defects, d)
	if d.Severity == envelope.SeverityError {
		m.Denied++
	} else {
		m.Warnings++
	}
}

// mixTimeKey is the member of each kind's records whose date-time a
// defective line of mixDefects writes with a space for "T" (the schema's
// date-time rejects it: SCHEMA_INVALID; seed 003 "Ledger Entry" ts, seed 002
// "State Snapshot" updated_at, seed 000 "Event Schema" timestamp).
var mixTimeKey = map[string][]byte{
	KindLedger: []byte(`"ts":"`),
	KindIdle:   []byte(`"updated_at":"`),
	KindVermas: []byte(`"timestamp":"`),
}

// mixDefects copies the lines of r to w, writing the date-time of every
// MixEvery-th line (the first line with one at or after each n%MixEvery ==
// MixEvery/2) with a space for "T". The record keeps its ids, which later
// records may name: a record the schema rejects still registers them.
func mixDefects(w io.Writer, r io.Reader, kind string, m *Mix) error {
	br := bufio.NewReaderSize(r, 1<<20)
	key := mixTimeKey[kind]
	due := false
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if n%MixEvery == MixEvery/2 {
				due = true
			}
			if i := bytes.Index(line, key); due && i >= 0 && i+len(key)+10 < len(line) && line[i+len(key)+10] == 'T' {
				line[i+len(key)+10] = ' '
				due = false
				m.add(Defect{Line: n, Code: envelope.SchemaInvalid, Severity: errS, Name: "date-time with a space"})
			}
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// mixGen writes a realistic collector log.
type mixGen struct {
	gen
	traces []*mixTrace // open traces, interleaved
	count  int         // traces started
}

// mixTrace is one trace of a collector log as it is written: its ids and
// the spans written so far on lines that are not defective (those a child
// may name).
type mixTrace struct {
	id    string
	otel  bool
	left  int      // events still to write
	spans []string // span ids written, on valid lines
	next  int      // number of the next span ("span-007" style)
}

// mixTypes are event types in seed 004's namespaces outside its table of
// 26 (a producer's newer types).
var mixTypes = []string{
	"activity.file_read", "activity.file_write", "activity.searching", "activity.planning", "activity.test_run",
	"coordination.lock_acquired", "coordination.lock_released", "coordination.review_requested",
	"hook.tool_failure", "hook.context_loaded", "decision.deferred", "decision.escalated",
	"system.metrics", "system.checkpoint", "lifecycle.paused", "lifecycle.resumed",
}

func (g *mixGen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rnd.IntN(16)]
	}
	return string(b)
}

// collectorLog writes n lines of one agent's collector log.
func (g *mixGen) collectorLog(w io.Writer, n int, m *Mix) error {
	agent := "@backend-engineer@galway"
	k := 0
	for line := 1; line <= n; line++ {
		for len(g.traces) < 4 {
			t := &mixTrace{left: 5 + g.rnd.IntN(36), otel: g.count%2 == 0}
			if t.otel {
				t.id = g.hex(32)
			} else {
				t.id = fmt.Sprintf("trace-%s-%06d", agent[1:8], g.count)
			}
			g.count++
			g.traces = append(g.traces, t)
		}
		ti := g.rnd.IntN(len(g.traces))
		t := g.traces[ti]
		defective := line%MixEvery == MixEvery/2
		unknown := !defective && g.rnd.IntN(100) < MixUnknownType
		elsewhere := !defective && g.rnd.IntN(100) < MixParentElsewhere
		g.record(line, agent, t, unknown, elsewhere, defective)
		if defective {
			d := collectorDefects[k%len(collectorDefects)]
			k++
			g.line = g.apply(d, line, m)
		} else {
			g.line = g.rec.appendJSON(g.line[:0])
			if unknown {
				m.UnknownType++
				m.Warnings++
			}
			if elsewhere {
				m.ParentElsewhere++
				m.Warnings++
			}
		}
		if _, err := w.Write(append(g.line, '\n')); err != nil {
			return err
		}
		if t.left--; t.left == 0 {
			g.traces = append(g.traces[:ti], g.traces[ti+1:]...)
		}
	}
	return nil
}

// record builds one collector event of trace t in g.rec.
func (g *mixGen) record(n int, agent string, t *mixTrace, unknown, elsewhere, defective bool) {
	r := &g.rec
	r.reset()
	g.tick()
	var typ, status, hook string
	version := "1.0.0"
	if unknown {
		typ, version = mixTypes[g.rnd.IntN(len(mixTypes))], "1.1.0"
	} else {
		et := eventTypes[g.rnd.IntN(len(eventTypes))]
		typ, status, hook = et.typ, et.status, et.hook
	}
	r.add("version", q(version))
	r.add("event_type", q(typ))
	r.add("timestamp", q(g.now.Format("2006-01-02T15:04:05.000Z07:00")))
	r.add("agent_id", q(agent))
	r.add("event_id", g.uuid())
	r.add("session_id", q("sess-"+strconv.Itoa(1000+n/5000)))
	if hook != "" {
		r.add("source", q("hook"))
	} else {
		r.add("source", q("mcp"))
	}
	if status != "" {
		r.add("status", q(status))
	}
	r.add("message", q(g.words(4+g.rnd.IntN(6))))
	if g.rnd.IntN(4) == 0 {
		r.add("progress", strconv.AppendFloat(nil, float64(g.rnd.IntN(101))/100, 'f', -1, 64))
	}
	tool := g.pick(tools)
	if g.rnd.IntN(3) == 0 {
		r.add("tool", fmt.Appendf(nil, `{"tool_name":%q,"tool_input":{"file_path":%q},"tool_result":"success","duration_ms":%d}`,
			tool, g.pick(files), g.rnd.IntN(5000)))
	}
	if hook != "" {
		r.add("hook", fmt.Appendf(nil, `{"hook_type":%q,"raw_payload":{"cwd":"/home/agent/work","tool":%q}}`, hook, tool))
	}
	var span string
	if t.otel {
		span = g.hex(16)
	} else {
		span = fmt.Sprintf("span-%03d", t.next)
		t.next++
	}
	parent := ""
	switch {
	case elsewhere && t.otel:
		parent = g.hex(16) // another agent's span: not in this log
	case elsewhere:
		parent = fmt.Sprintf("span-9%02d", g.rnd.IntN(100)) // this log's traces stop at span-039
	case len(t.spans) > 0 && (defective || g.rnd.IntN(8) > 0):
		parent = t.spans[g.rnd.IntN(len(t.spans))]
	}
	if parent == "" {
		r.add("correlation", fmt.Appendf(nil, `{"trace_id":%q,"span_id":%q,"root_agent_id":"@orchestrator"}`, t.id, span))
	} else {
		r.add("correlation", fmt.Appendf(nil, `{"trace_id":%q,"span_id":%q,"parent_span_id":%q,"root_agent_id":"@orchestrator"}`, t.id, span, parent))
	}
	if !defective {
		t.spans = append(t.spans, span)
	}
	r.add("metadata", fmt.Appendf(nil, `{"uptime_ms":%d,"memory_mb":%d,"host":"worker-%02d"}`,
		g.rnd.IntN(1e7), 64+g.rnd.IntN(960), g.rnd.IntN(32)))
}
