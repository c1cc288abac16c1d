package rules

import (
	"math"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Watchdog rules (cue/README.md, operator, "watchdog"; README, Codes and
// precedence, TASK_TIMEOUT). The payload's `now` is the clock, not --now.

// DefaultMaxSkew is how far a heartbeat may lie after `now` when
// Options.MaxSkew is zero (cue/README.md: "--max-skew (default 60 s)").
const DefaultMaxSkew = 60 * time.Second

// opNum returns a JSON number as float64.
func opNum(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// opAge is a - b as whole seconds and a nanosecond remainder in [0, 1e9):
// exact for every pair of RFC 3339 times, unlike time.Time.Sub, which
// saturates after 292 years.
type opAge struct{ sec, nsec int64 }

func opDiff(a, b time.Time) opAge {
	sec := a.Unix() - b.Unix()
	nsec := int64(a.Nanosecond() - b.Nanosecond())
	if nsec < 0 {
		sec--
		nsec += int64(time.Second)
	}
	return opAge{sec, nsec}
}

// exceeds reports whether the age is strictly more than limit seconds.
func (a opAge) exceeds(limit int64) bool {
	return a.sec > limit || (a.sec == limit && a.nsec > 0)
}

// value renders the age in seconds: an integer when whole (as the reference
// watchdog's age_seconds), a float otherwise.
func (a opAge) value() any {
	if a.nsec == 0 {
		return a.sec
	}
	return float64(a.sec) + float64(a.nsec)/1e9
}

// opWatchTask is one task of a watchdog payload.
type opWatchTask struct {
	index     int
	taskID    string
	status    string
	timeout   float64
	hasTO     bool // timeout_seconds is a number (always, in a valid watchdog payload)
	hbRaw     string
	hb        time.Time
	hasHB     bool // last_heartbeat_at is a timestamp
	hbPresent bool // last_heartbeat_at is a member (possibly null)
}

func opWatchdog(d *Doc) (now time.Time, ok bool, tasks []opWatchTask) {
	root := d.Root()
	now, ok = timefmt.ParseRFC3339(Str(root, "now"))
	for i, v := range Arr(root, "tasks") {
		m := Obj(v)
		t := opWatchTask{index: i, taskID: Str(m, "task_id"), status: Str(m, "status")}
		t.timeout, t.hasTO = opNum(m["timeout_seconds"])
		_, t.hbPresent = m["last_heartbeat_at"]
		if s, isStr := m["last_heartbeat_at"].(string); isStr {
			t.hbRaw = s
			t.hb, t.hasHB = timefmt.ParseRFC3339(s)
		}
		tasks = append(tasks, t)
	}
	return now, ok, tasks
}

func checkHeartbeatTimeout(d *Doc, r *Reporter) {
	now, ok, tasks := opWatchdog(d)
	if !ok {
		return
	}
	for _, t := range tasks {
		if t.status != "in_progress" || !t.hasHB || !t.hasTO {
			continue // a task without timeout_seconds (a replayed ledger row may lack it) cannot time out
		}
		if t.timeout >= math.MaxInt64/2 {
			continue // no heartbeat is that old
		}
		age := opDiff(now, t.hb)
		if !age.exceeds(int64(t.timeout)) {
			continue
		}
		entry := map[string]any{
			"task_id": t.taskID, "last_heartbeat_at": t.hbRaw,
			"timeout_seconds": int64(t.timeout), "age_seconds": age.value(),
		}
		r.Reportf(Ptr("tasks", t.index, "last_heartbeat_at"), map[string]any{"index": t.index, "timed_out": []any{entry}},
			"task heartbeat exceeded timeout: task %s last heartbeat %s is %vs before now, more than timeout_seconds %d",
			t.taskID, t.hbRaw, age.value(), int64(t.timeout))
	}
}

func checkHeartbeatInFuture(d *Doc, r *Reporter) {
	now, ok, tasks := opWatchdog(d)
	if !ok {
		return
	}
	skew := DefaultMaxSkew
	if d.Options != nil && d.Options.MaxSkew > 0 {
		skew = d.Options.MaxSkew
	}
	for _, t := range tasks {
		if !t.hasHB {
			continue
		}
		ahead := opDiff(t.hb, now)
		skewAge := opAge{int64(skew / time.Second), int64(skew % time.Second)}
		if ahead.sec < skewAge.sec || (ahead.sec == skewAge.sec && ahead.nsec <= skewAge.nsec) {
			continue
		}
		r.Reportf(Ptr("tasks", t.index, "last_heartbeat_at"), map[string]any{
			"index": t.index, "task_id": t.taskID, "last_heartbeat_at": t.hbRaw,
			"ahead_seconds": ahead.value(), "max_skew_seconds": skewAge.value(),
		}, "last_heartbeat_at is in the future beyond allowed clock skew: task %s heartbeat %s is %vs after now (max skew %vs)",
			t.taskID, t.hbRaw, ahead.value(), skewAge.value())
	}
}

func checkInProgressWithoutHeartbeat(d *Doc, r *Reporter) {
	_, _, tasks := opWatchdog(d)
	for _, t := range tasks {
		if t.status != "in_progress" || t.hasHB {
			continue
		}
		ptr := Ptr("tasks", t.index)
		if t.hbPresent {
			ptr = Ptr("tasks", t.index, "last_heartbeat_at")
		}
		r.Reportf(ptr, map[string]any{"index": t.index, "task_id": t.taskID},
			"task %s is in_progress without last_heartbeat_at: the watchdog cannot tell whether it timed out", t.taskID)
	}
}

// opWatchdogExample is a watchdog payload at now 2026-02-14T20:00:00Z with
// one task of the given status and heartbeat (a JSON value).
func opWatchdogExample(status, heartbeat string) string {
	return `{
  "now": "2026-02-14T20:00:00Z",
  "tasks": [
    {
      "task_id": "T-12",
      "status": "` + status + `",
      "timeout_seconds": 1200,
      "last_heartbeat_at": ` + heartbeat + `
    }
  ]
}`
}

// watchdogRules defines the rules of this file (group OP, loaded on first use: see groups).
func watchdogRules() {
	wd := []string{"operator/watchdog"}
	register(
		&Rule{
			ID: "OP060", Name: "heartbeat-timeout", Code: envelope.TaskTimeout, Severity: envelope.SeverityError,
			Kinds:       wd,
			Summary:     "an in_progress task's last heartbeat is more than timeout_seconds before the payload's now",
			Source:      `cue/README.md, operator, "watchdog"; README, Codes and precedence, TASK_TIMEOUT`,
			ExampleKind: "operator/watchdog",
			examples: func() (string, string) {
				return opWatchdogExample("in_progress", `"2026-02-14T19:20:00Z"`), opWatchdogExample("in_progress", `"2026-02-14T19:50:30Z"`)
			},
			Check: checkHeartbeatTimeout,
		},
		&Rule{
			ID: "OP061", Name: "heartbeat-in-future", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       wd,
			Summary:     "a last_heartbeat_at lies more than --max-skew (default 60 s) after the payload's now",
			Source:      `cue/README.md, operator, "watchdog"`,
			ExampleKind: "operator/watchdog",
			examples: func() (string, string) {
				return opWatchdogExample("in_progress", `"2026-02-14T20:10:31Z"`), opWatchdogExample("in_progress", `"2026-02-14T20:00:30Z"`)
			},
			Check: checkHeartbeatInFuture,
		},
		&Rule{
			ID: "OP062", Name: "in-progress-without-heartbeat", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       wd,
			Summary:     "an in_progress task has a null or absent last_heartbeat_at",
			Source:      `cue/README.md, operator, "watchdog" (only non-in-progress tasks may have a null heartbeat)`,
			ExampleKind: "operator/watchdog",
			examples: func() (string, string) {
				return opWatchdogExample("in_progress", `null`), opWatchdogExample("todo", `null`)
			},
			Check: checkInProgressWithoutHeartbeat,
		},
	)
}
