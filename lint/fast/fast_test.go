package fast

import (
	"strings"
	"testing"
)

const assignment = `{
  "schema_version": "1.0.0",
  "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
  "packet_type": "assignment",
  "global_objective": "Implement endpoint tests",
  "task": {
    "task_id": "T-12",
    "title": "Add endpoint tests",
    "type": "parallelizable",
    "dependencies": [],
    "lock_scope": ["tests/test_api.py"],
    "forbidden_scope": ["src/"],
    "acceptance_criteria": ["All endpoint tests pass"],
    "worklog_path": "worklogs/T-12.jsonl",
    "timeout_seconds": 1200,
    "heartbeat_interval_seconds": 120,
    "priority": "high"
  },
  "active_locks": [{"task_id": "T-9", "resource": "src/api.py", "active": true}],
  "context_package": [{"kind": "file", "value": "tests/test_api.py"}],
  "required_output_schema": "subagent_result_v1"
}`

type want struct {
	rule, pointer string
	line, col     int
}

func run(t *testing.T, kind, doc string, strict bool) *Dec {
	t.Helper()
	d := NewDec()
	d.Strict = strict
	d.Reset([]byte(doc), 1)
	d.Validate(Validators[kind])
	return d
}

func TestAssignment(t *testing.T) {
	rep := func(old, new string) string {
		if !strings.Contains(assignment, old) {
			t.Fatalf("bad test: %q not in payload", old)
		}
		return strings.Replace(assignment, old, new, 1)
	}
	cases := []struct {
		name   string
		doc    string
		strict bool
		want   []want
	}{
		{"valid", assignment, true, nil},
		{"heartbeat equals timeout", rep(`"heartbeat_interval_seconds": 120`, `"heartbeat_interval_seconds": 1200`), false,
			[]want{{"OP014", "/task/heartbeat_interval_seconds", 16, 35}}},
		{"integer with fraction", rep(`"timeout_seconds": 1200`, `"timeout_seconds": 1200.0`), false,
			[]want{{"OP013", "/task/timeout_seconds", 15, 24}}},
		{"missing field", rep(`"packet_type": "assignment",`, ``), false,
			[]want{{"AL002", "/packet_type", 1, 1}}},
		{"null required", rep(`"title": "Add endpoint tests"`, `"title": null`), false,
			[]want{{"AL002", "/task/title", 8, 14}}},
		{"empty objective", rep(`"Implement endpoint tests"`, `""`), false,
			[]want{{"OP002", "/global_objective", 5, 23}}},
		{"empty lock scope", rep(`["tests/test_api.py"]`, `[]`), false,
			[]want{{"OP002", "/task/lock_scope", 11, 19}}},
		{"schema major", rep(`"1.0.0"`, `2`), false,
			[]want{{"OP001", "/schema_version", 2, 21}}},
		{"unknown field strict", rep(`"priority": "high"`, `"priority": "high", "owner": "me", "x_note": 1`), true,
			[]want{{"AL004", "/task/owner", 17, 34}}},
		{"unknown field lax", rep(`"priority": "high"`, `"priority": "high", "owner": "me"`), false, nil},
		{"enum", rep(`"priority": "high"`, `"priority": "urgent"`), false,
			[]want{{"AL003", "/task/priority", 17, 17}}},
		{"code points", rep(`"Add endpoint tests"`, `"`+strings.Repeat("é", 501)+`"`), false,
			[]want{{"OP008", "/task/title", 8, 14}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := run(t, "operator/assignment", c.doc, c.strict)
			if len(d.Out) != len(c.want) {
				t.Fatalf("got %d violations %+v, want %+v", len(d.Out), d.Out, c.want)
			}
			for i, w := range c.want {
				g := d.Out[i]
				if g.Rule != w.rule || g.Pointer != w.pointer || g.Line != w.line || g.Column != w.col {
					t.Errorf("violation %d = %s %s %d:%d (%s), want %s %s %d:%d", i, g.Rule, g.Pointer, g.Line, g.Column, g.Reason, w.rule, w.pointer, w.line, w.col)
				}
			}
		})
	}
}

func TestSyntax(t *testing.T) {
	cases := map[string]string{
		"duplicate key":     `{"locks": [], "locks": []}`,
		"trailing garbage":  `{"locks": []} x`,
		"second value":      `{"locks": []} {}`,
		"trailing comma":    `{"locks": [],}`,
		"NaN":               `{"locks": [NaN]}`,
		"lone surrogate":    `{"locks": [], "x_a": "\ud800"}`,
		"invalid UTF-8":     "{\"locks\": [], \"x_a\": \"\xff\"}",
		"truncated":         `{"locks": [`,
		"deep nesting":      `{"locks": [], "x_deep": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`,
		"deep nesting open": strings.Repeat("[", 100000),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			d := run(t, "operator/locks", doc, false)
			if len(d.Out) != 1 || d.Out[0].Rule != RuleSyntax || !d.Out[0].Parse {
				t.Fatalf("want one AL001 parse violation, got %+v", d.Out)
			}
			if len(d.Out[0].Reason) > 200 {
				t.Fatalf("reason too long: %d bytes", len(d.Out[0].Reason))
			}
		})
	}
}

func TestResultAcceptance(t *testing.T) {
	doc := `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","status":"done",
"changes":[],"acceptance_check":[{"criterion":"c","status":"fail","evidence":""}],"worklog_path":"w","notes_for_orchestrator":[]}`
	d := run(t, "operator/result", doc, false)
	got := map[string]string{}
	for _, v := range d.Out {
		got[v.Pointer] = v.Rule
	}
	if got["/acceptance_check/0/status"] != "OP020" || got["/acceptance_check/0/evidence"] != "OP020" || len(got) != 2 {
		t.Fatalf("got %+v", d.Out)
	}
	blocked := strings.Replace(doc, `"status":"done"`, `"status":"blocked"`, 1)
	if d := run(t, "operator/result", blocked, false); len(d.Out) != 0 {
		t.Fatalf("blocked result needs no passing criteria, got %+v", d.Out)
	}
}

func BenchmarkAssignment(b *testing.B) {
	d := NewDec()
	buf := []byte(assignment)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Reset(buf, 1)
		d.Validate(Validators["operator/assignment"])
		if len(d.Out) != 0 {
			b.Fatal(d.Out)
		}
	}
}
