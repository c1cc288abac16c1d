package bench

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// VermasCounts are the distinct ids of a generated VerMAS event log.
type VermasCounts struct {
	Lines, WorkOrders, Messages, Processes int
}

// GenerateVermas writes a VerMAS event log (seed 000 "Event Schema") of
// lines events over about workOrders work orders, deterministically from
// seed: every line valid and the whole log consistent (unique event ids,
// caused_by naming the work order's previous event, increasing timestamps,
// status_changed from the replayed status), so that the stream rules find
// nothing and a benchmark measures their normal path.
//
// About 64 work orders are in flight at a time; each lives through about
// lines/workOrders events: work_order.created, sometimes .updated,
// .assigned, .status_changed (open → in_progress), agent.started,
// agent.assignment_checked, process.created, four steps each with
// process.step_started, agent.working events and process.step_completed,
// mail.sent/delivered/read exchanges, verify.started, verify.verdict (PASS),
// process.completed, work_order.closed and agent.idle. The log ends where
// the line budget does, with some work orders still open.
func GenerateVermas(w io.Writer, lines, workOrders int, seed uint64) (VermasCounts, error) {
	g := &vmGen{
		rnd: rand.New(rand.NewPCG(seed, seed^0x5eed)),
		bw:  bufio.NewWriterSize(w, 1<<20),
		now: time.Date(2026, 2, 14, 9, 0, 0, 0, time.UTC),
	}
	per := max(lines/max(workOrders, 1), 30)
	// Fixed events per work order (created, assigned, status_changed,
	// agent.started, assignment_checked, process.created, 4 × started and
	// completed, verify ×2, process.completed, closed, idle) and an updated
	// half of the time: 19.5; the rest are agent.working and mail.
	g.working = max((per-20)*2/3/4, 1)
	g.mails = max((per-20)/3/3, 1)
	active := make([]*vmLife, 0, 64)
	for g.c.Lines < lines {
		if len(active) < 64 {
			active = append(active, g.newLife())
		}
		i := g.rnd.IntN(len(active))
		if g.next(active[i]) {
			active[i] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	return g.c, g.bw.Flush()
}

type vmGen struct {
	rnd     *rand.Rand
	bw      *bufio.Writer
	now     time.Time
	c       VermasCounts
	working int // agent.working events per step, on average
	mails   int // mail exchanges per work order, on average
	buf     []byte
	events  uint64
}

// vmLife is one work order's script: the events still to emit, in order.
type vmLife struct {
	wo, proc, agent string
	prio            int
	last            string // event id of its previous event
	script          []func(l *vmLife)
	msg             string
}

var (
	vmAgents  = []string{"project-a/workers/slot0", "project-a/workers/slot1", "project-a/workers/slot2", "project-a/workers/slot3", "project-b/workers/slot0", "project-b/workers/slot1"}
	vmWords   = []string{"rate", "limiting", "login", "redirect", "cache", "API", "schema", "index", "retry", "timeout", "metrics", "export", "parser", "queue", "token", "audit"}
	vmSteps   = []string{"understand", "implement", "test", "complete"}
	vmIssues  = []string{"task", "bug", "feature", "epic", "merge-request"}
	vmMsgType = []string{"WORKER_DONE", "READY_FOR_QA", "HELP", "NUDGE", "HANDOFF"}
	vmTools   = []string{"tool_use", "read_file", "edit", "bash"}
)

// hexID returns a unique id of n hex digits for counter c (a bijection of
// the counter, so ids look random but never repeat).
func hexID(c uint64, n int) string {
	x := (c + 1) * 0x9E3779B97F4A7C15
	s := strconv.FormatUint(x>>(64-4*n), 16)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// eventID returns evt-{12 base62 characters}, unique per counter.
func eventID(c uint64) string {
	x := (c + 1) * 0x9E3779B97F4A7C15
	var b [12]byte
	for i := 11; i >= 0; i-- {
		b[i] = base62[x%62]
		x /= 62
	}
	return "evt-" + string(b[:])
}

func (g *vmGen) title() string {
	n := 2 + g.rnd.IntN(4)
	s := "Improve"
	for i := 0; i < n; i++ {
		s += " " + vmWords[g.rnd.IntN(len(vmWords))]
	}
	return s
}

// newLife scripts the events of a new work order.
func (g *vmGen) newLife() *vmLife {
	n := uint64(g.c.WorkOrders)
	g.c.WorkOrders++
	l := &vmLife{wo: "wo-" + hexID(n, 8), proc: "proc-" + hexID(n+1<<32, 8), agent: vmAgents[g.rnd.IntN(len(vmAgents))], prio: g.rnd.IntN(5)}
	add := func(fs ...func(*vmLife)) { l.script = append(l.script, fs...) }
	add(g.created)
	if g.rnd.IntN(2) == 0 {
		add(g.updated)
	}
	add(g.assigned, g.started, g.agentStarted, g.checked, g.processCreated)
	mails := g.mails/2 + g.rnd.IntN(g.mails+1)
	for s, step := range vmSteps {
		add(g.stepStarted(step))
		k := g.working/2 + g.rnd.IntN(g.working+1)
		for i := 0; i < k; i++ {
			add(g.agentWorking)
		}
		if s < 3 {
			for i := 0; i < mails/3+boolInt(s < mails%3); i++ {
				add(g.mailSent, g.mailDelivered, g.mailRead)
			}
		}
		add(g.stepCompleted(step))
	}
	add(g.verifyStarted, g.verdict, g.processCompleted, g.closed, g.idle)
	return l
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// next emits l's next event; it reports whether l is finished.
func (g *vmGen) next(l *vmLife) bool {
	f := l.script[0]
	l.script = l.script[1:]
	f(l)
	return len(l.script) == 0
}

// emit writes one event line: typ, actor and the data object (a JSON text).
func (g *vmGen) emit(l *vmLife, typ, actor string, data []byte) {
	g.now = g.now.Add(time.Duration(1+g.rnd.IntN(200)) * time.Millisecond)
	id := eventID(g.events)
	g.events++
	b := append(g.buf[:0], `{"event_id":"`...)
	b = append(b, id...)
	b = append(b, `","event_type":"`...)
	b = append(b, typ...)
	b = append(b, `","timestamp":"`...)
	b = g.now.AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","actor":`...)
	b = strconv.AppendQuote(b, actor)
	b = append(b, `,"correlation_id":"sprint-`...)
	b = append(b, l.wo[3:7]...)
	b = append(b, '"')
	if l.last != "" {
		b = append(b, `,"caused_by":"`...)
		b = append(b, l.last...)
		b = append(b, '"')
	}
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, "}\n"...)
	g.buf = b
	l.last = id
	g.bw.Write(b)
	g.c.Lines++
}

// obj renders a flat JSON object from name/value pairs; a value that is
// a string is quoted, an int is a number, a bool a literal.
func obj(kv ...any) []byte {
	b := []byte{'{'}
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, kv[i].(string))
		b = append(b, ':')
		switch v := kv[i+1].(type) {
		case string:
			b = strconv.AppendQuote(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case []byte:
			b = append(b, v...)
		}
	}
	return append(b, '}')
}

func (g *vmGen) created(l *vmLife) {
	g.emit(l, "work_order.created", "ceo", obj("work_order_id", l.wo, "title", g.title(), "description", "Generated work order.",
		"issue_type", vmIssues[g.rnd.IntN(len(vmIssues))], "priority", l.prio, "created_by", "ceo"))
}

func (g *vmGen) updated(l *vmLife) {
	l.prio = g.rnd.IntN(5)
	g.emit(l, "work_order.updated", "ceo", obj("work_order_id", l.wo, "changes", obj("priority", l.prio, "title", g.title())))
}

func (g *vmGen) assigned(l *vmLife) {
	file := ".work/.assignment-"
	for _, c := range []byte(l.agent) {
		if c == '/' {
			c = '-'
		}
		file += string(c)
	}
	g.emit(l, "work_order.assigned", "project-a/supervisor", obj("work_order_id", l.wo, "agent", l.agent, "assignment_path", file))
}

func (g *vmGen) started(l *vmLife) {
	g.emit(l, "work_order.status_changed", "project-a/supervisor", obj("work_order_id", l.wo, "from_status", "open", "to_status", "in_progress"))
}

func (g *vmGen) agentStarted(l *vmLife) {
	g.emit(l, "agent.started", l.agent, obj("session_name", "worker-"+strings.ReplaceAll(l.agent, "/", "-"), "worktree", "/srv/"+l.agent, "profile", "worker",
		"assigned_work_order", l.wo))
}

func (g *vmGen) checked(l *vmLife) {
	g.emit(l, "agent.assignment_checked", l.agent, obj("found", true, "response_ms", 50+g.rnd.IntN(400), "action", "execute_immediately"))
}

func (g *vmGen) processCreated(l *vmLife) {
	g.c.Processes++
	g.emit(l, "process.created", l.agent, obj("process_id", l.proc, "template", "worker-execute", "work_order_id", l.wo))
}

func (g *vmGen) stepStarted(step string) func(*vmLife) {
	return func(l *vmLife) {
		g.emit(l, "process.step_started", l.agent, obj("process_id", l.proc, "step_id", step))
	}
}

func (g *vmGen) stepCompleted(step string) func(*vmLife) {
	return func(l *vmLife) {
		g.emit(l, "process.step_completed", l.agent, obj("process_id", l.proc, "step_id", step, "status", "completed"))
	}
}

func (g *vmGen) agentWorking(l *vmLife) {
	g.emit(l, "agent.working", l.agent, obj("work_order_id", l.wo))
}

func (g *vmGen) mailSent(l *vmLife) {
	l.msg = "msg-" + hexID(uint64(g.c.Messages)+2<<32, 10)
	g.c.Messages++
	t := vmMsgType[g.rnd.IntN(len(vmMsgType))]
	g.emit(l, "mail.sent", l.agent, obj("message_id", l.msg, "from", l.agent, "to", "project-a/supervisor", "subject", t, "message_type", t))
}

func (g *vmGen) mailDelivered(l *vmLife) {
	g.emit(l, "mail.delivered", "project-a/supervisor", obj("message_id", l.msg, "recipient", "project-a/supervisor"))
}

func (g *vmGen) mailRead(l *vmLife) {
	at := g.now.Add(time.Millisecond).AppendFormat(nil, `"2006-01-02T15:04:05.000Z"`)
	g.emit(l, "mail.read", "project-a/supervisor", obj("message_id", l.msg, "reader", "project-a/supervisor", "read_at", at))
}

func (g *vmGen) verifyStarted(l *vmLife) {
	g.emit(l, "verify.started", "project-a/qa", obj("work_order_id", l.wo, "process_id", "proc-verify-"+l.wo[3:]))
}

func (g *vmGen) verdict(l *vmLife) {
	g.emit(l, "verify.verdict", "project-a/qa", obj("work_order_id", l.wo, "verdict", "PASS", "criteria_passed", 1+g.rnd.IntN(8),
		"criteria_failed", 0, "reasoning", "All acceptance criteria met"))
}

func (g *vmGen) processCompleted(l *vmLife) {
	g.emit(l, "process.completed", l.agent, obj("process_id", l.proc, "summary", "All steps completed successfully"))
}

func (g *vmGen) closed(l *vmLife) {
	g.emit(l, "work_order.closed", "project-a/supervisor", obj("work_order_id", l.wo, "reason", "Completed successfully"))
}

func (g *vmGen) idle(l *vmLife) {
	since := g.now.AppendFormat(nil, `"2006-01-02T15:04:05.000Z"`)
	g.emit(l, "agent.idle", l.agent, obj("idle_since", since, "last_activity", vmTools[g.rnd.IntN(len(vmTools))]))
}
