package bench

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// Kinds Generate writes without defects: every line valid and the whole log
// consistent, so that linting it finds nothing and `make bench` measures the
// normal path of each JSON Lines family next to the IsValid floor, for collector
// events and for the other JSON Lines kinds.
const (
	KindLedger = "ledger/entry" // seed 003 "Ledger Entry"
	KindIdle   = "idle/event"   // seed 002 "State Snapshot", "DONE"
	KindVermas = "vermas/event" // seed 000 "Event Schema" (GenerateVermas)
)

// CoherentNow is the clock (--now) at which the ledger and idle logs of
// Generate are current: every record lies within the two hours before it
// (seed 002: a STATE older than two hours is stale, IL013), whatever the
// number of lines.
var CoherentNow = time.Date(2026, 2, 14, 2, 0, 0, 0, time.UTC)

// coherentStart is the time of a coherent log's first record, and
// coherentSpan the time its records cover at most, so that the last one is
// ten minutes before CoherentNow.
var (
	coherentStart = CoherentNow.Add(-2 * time.Hour)
	coherentSpan  = 110 * time.Minute
)

// coherentStep is the time between two of n records: 50 ms, or less when n
// records would otherwise outlast coherentSpan.
func coherentStep(n int) time.Duration {
	return min(50*time.Millisecond, coherentSpan/time.Duration(max(n, 1)))
}

// LedgerLine appends line i (0-based) of an n-line ledger/entry log: one
// agent (cls), task_result entries of sessions 2026-02-14_cls_NNN in order
// (about n/999 entries each, at least 200, so that NNN stays three digits:
// LG003, LG101), ts increasing from two hours before CoherentNow (LG100),
// ten entries a task.
func LedgerLine(dst []byte, i, n int) []byte {
	per := max(200, n/999+1)
	ts := coherentStart.Add(time.Duration(i) * coherentStep(n))
	return fmt.Appendf(dst, `{"ts":%q,"agent":"cls","session_id":"2026-02-14_cls_%03d","event":"task_result","task_id":"wo-%06d",`+
		`"source":"gg_orchestrator","summary":"Redirect loop fixed; session refresh before redirect","data":{"status":"success","duration_sec":2520}}`+"\n",
		ts.Format("2006-01-02T15:04:05.000-07:00"), 1+i/per, i/10)
}

// IdleLine appends line i (0-based) of an n-line idle/event log: runs of 20
// STATEs of a grind loop with a nested issue frame whose iteration grows
// (IL101), each run ended by a DONE (IL100); updated_at increasing from two
// hours before CoherentNow (fresh: IL013).
func IdleLine(dst []byte, i, n int) []byte {
	run := i / 21
	if i%21 == 20 {
		return append(dst, `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`+"\n"...)
	}
	ts := coherentStart.Add(time.Duration(i) * coherentStep(n))
	return fmt.Appendf(dst, `{"schema":0,"event":"STATE","run_id":"grind-1771059600-%d","updated_at":%q,"stack":[`+
		`{"id":"grind-1771059600-%d","mode":"grind","iter":%d,"max":100,"prompt_file":"/tmp/idle-grind-4242/prompt.txt","filter":"label:api"},`+
		`{"id":"issue-auth-7-%d","mode":"issue","iter":%d,"max":100,"prompt_file":"/tmp/idle-issue-4242/prompt.txt","issue_id":"auth-7",`+
		`"worktree_path":"/srv/project-a/.worktrees/idle/auth-7","branch":"idle/issue/auth-7","base_ref":"main"}]}`+"\n",
		run, ts.Format("2006-01-02T15:04:05.000Z07:00"), run, 1+i%21/5, run, 1+i%21)
}

// writeCoherent writes n lines of kind KindLedger or KindIdle to w.
func writeCoherent(w io.Writer, kind string, n int) error {
	line := LedgerLine
	if kind == KindIdle {
		line = IdleLine
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf []byte
	for i := 0; i < n; i++ {
		buf = line(buf[:0], i, n)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// vermasWorkOrders is the number of work orders of an n-line generated
// VerMAS event log: about 40 events each.
func vermasWorkOrders(n int) int { return max(1, n/40) }
