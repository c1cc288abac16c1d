package rules

import (
	"reflect"
	"testing"
	"time"
)

func TestWatchdogRules(t *testing.T) {
	task := func(status, hb string) string { return opWatchdogExample(status, hb) }
	opRunCases(t, []opCase{
		{name: "peer watchdog-pass", kind: "operator/watchdog", js: `{"now": "2026-02-14T20:00:00Z", "tasks": [
  {"task_id": "T-12", "status": "in_progress", "timeout_seconds": 1200, "last_heartbeat_at": "2026-02-14T19:50:30Z"},
  {"task_id": "T-13", "status": "todo", "timeout_seconds": 1200, "last_heartbeat_at": null}]}`},

		// OP060 heartbeat-timeout
		{name: "OP060 peer timeout", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T19:20:00Z"`), want: []string{"OP060 /tasks/0/last_heartbeat_at"}},
		{name: "OP060 near miss: exactly timeout", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T19:40:00Z"`)},
		{name: "OP060 just over", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T19:39:59.5Z"`), want: []string{"OP060 /tasks/0/last_heartbeat_at"}},
		{name: "OP060 near miss: not in progress", kind: "operator/watchdog", js: task("blocked", `"2026-02-14T10:00:00Z"`)},
		{name: "OP060 centuries old", kind: "operator/watchdog", js: task("in_progress", `"1000-01-01T00:00:00Z"`), want: []string{"OP060 /tasks/0/last_heartbeat_at"}},
		{name: "OP060 near miss: --now is not the clock", kind: "operator/watchdog",
			js: opRepl(t, task("in_progress", `"2026-02-14T19:50:00Z"`), `"now": "2026-02-14T20:00:00Z"`, `"now": "2026-02-14T19:55:00+00:00"`)},

		// OP061 heartbeat-in-future
		{name: "OP061 peer future skew", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T20:10:31Z"`), want: []string{"OP061 /tasks/0/last_heartbeat_at"}},
		{name: "OP061 near miss: exactly max skew", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T20:01:00Z"`)},
		{name: "OP061 just over max skew", kind: "operator/watchdog", js: task("todo", `"2026-02-14T20:01:00.001Z"`), want: []string{"OP061 /tasks/0/last_heartbeat_at"}},
		{name: "OP061 near miss: --max-skew 15m", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T20:10:31Z"`), maxSkew: 15 * time.Minute},
		{name: "OP061 --max-skew 10m", kind: "operator/watchdog", js: task("in_progress", `"2026-02-14T20:10:31Z"`), maxSkew: 10 * time.Minute,
			want: []string{"OP061 /tasks/0/last_heartbeat_at"}},

		// OP062 in-progress-without-heartbeat
		{name: "OP062 null", kind: "operator/watchdog", js: task("in_progress", `null`), want: []string{"OP062 /tasks/0/last_heartbeat_at"}},
		{name: "OP062 absent", kind: "operator/watchdog", js: `{"now": "2026-02-14T20:00:00Z", "tasks": [{"task_id": "T-1", "status": "todo", "timeout_seconds": 60},
  {"task_id": "T-2", "status": "in_progress", "timeout_seconds": 60}]}`, want: []string{"OP062 /tasks/1"}},
		{name: "OP062 near miss: todo with null", kind: "operator/watchdog", js: task("todo", `null`)},
	})
}

func TestWatchdogTimeoutDetails(t *testing.T) {
	fs := opRun(t, "operator/watchdog", opWatchdogExample("in_progress", `"2026-02-14T19:20:00Z"`), "", 0)
	if len(fs) != 1 {
		t.Fatalf("findings = %v", fs)
	}
	want := []any{map[string]any{"task_id": "T-12", "last_heartbeat_at": "2026-02-14T19:20:00Z", "timeout_seconds": int64(1200), "age_seconds": int64(2400)}}
	if got := fs[0].Extra["timed_out"]; !reflect.DeepEqual(got, want) {
		t.Errorf("timed_out = %#v, want %#v", got, want)
	}
}

// TestWatchdogTaskWithoutTimeout: a task without timeout_seconds (a row of a
// replayed ledger may lack it; a watchdog payload cannot pass its schema
// without it) never times out, but its heartbeat is still checked for skew.
func TestWatchdogTaskWithoutTimeout(t *testing.T) {
	js := `{"now": "2026-02-14T20:00:00Z", "tasks": [
  {"task_id": "T-1", "status": "in_progress", "last_heartbeat_at": "2026-02-14T10:00:00Z"},
  {"task_id": "T-2", "status": "in_progress", "last_heartbeat_at": "2026-02-14T21:00:00Z"}]}`
	got := opIDs(opRun(t, "operator/watchdog", js, "", 0))
	want := []string{"OP061 /tasks/1/last_heartbeat_at"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
}
