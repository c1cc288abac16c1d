package bench

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// GenerateDeltas writes the replay benchmark's input (the same shape as
// lint/replay's BenchmarkReplay): base gets tasks ledger rows (JSON Lines,
// T-0 … T-tasks-1, status todo) and stream gets deltas ledger deltas (JSON
// Lines) in rounds over every task: assigned, heartbeats with a blocked and a
// resumed round every ten, and done in the last round; every delta_id is
// distinct. Every delta applies (seed 001 "Ledger Delta Application
// Semantics"), so `agentlint replay` allows the result. deltas must be a
// multiple of tasks.
func GenerateDeltas(base, stream io.Writer, tasks, deltas int) error {
	bw := bufio.NewWriterSize(base, 1<<20)
	for t := range tasks {
		fmt.Fprintf(bw, `{"task_id": "T-%d", "title": "task %d", "status": "todo", "owner": "", "timeout_seconds": 1200, "priority": "normal"}`+"\n", t, t)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	sw := bufio.NewWriterSize(stream, 1<<20)
	rounds := deltas / tasks
	start := time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC)
	for r := range rounds {
		hb := start.Add(time.Duration(r) * time.Second).Format(time.RFC3339)
		for t := range tasks {
			status, reason := "in_progress", "heartbeat"
			switch {
			case r == 0:
				reason = "assigned"
			case r == rounds-1:
				status, reason = "done", "tests pass"
			case r%10 == 5:
				status, reason = "blocked", "waiting for review"
			case r%10 == 6:
				reason = "resumed"
			}
			fmt.Fprintf(sw, `{"task_id": "T-%d", "status": %q, "owner": "agent-%d", "reason": %q, "delta_id": "d-%07d", "last_heartbeat_at": %q}`+"\n",
				t, status, t%50, reason, r*tasks+t, hb)
		}
	}
	return sw.Flush()
}
