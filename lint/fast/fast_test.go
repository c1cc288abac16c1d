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

// Sibling bounds compare integers exactly, not as float64: above 2^53
// (9007199254740992 and 9007199254740993 are the same float64) the
// literals decide.
func TestRefBoundExact(t *testing.T) {
	const to, hb = `"timeout_seconds": 1200`, `"heartbeat_interval_seconds": 120`
	doc := func(timeout, heartbeat string) string {
		return strings.Replace(strings.Replace(assignment, to, `"timeout_seconds": `+timeout, 1), hb, `"heartbeat_interval_seconds": `+heartbeat, 1)
	}
	for _, c := range []struct {
		timeout, heartbeat string
		deny               bool
	}{
		{"9007199254740993", "9007199254740992", false},
		{"9007199254740992", "9007199254740993", true},
		{"9007199254740993", "9007199254740993", true},
		{"100000000000000000000001", "100000000000000000000000", false},
		{"100000000000000000000000", "100000000000000000000001", true},
		{"1200", "120", false},
	} {
		d := run(t, "operator/assignment", doc(c.timeout, c.heartbeat), false)
		if got := len(d.Out) > 0; got != c.deny {
			t.Errorf("timeout %s, heartbeat %s: got %+v, want deny=%v", c.timeout, c.heartbeat, d.Out, c.deny)
			continue
		}
		if c.deny {
			v := d.Out[0]
			want := "heartbeat_interval_seconds must be < timeout_seconds (" + c.timeout + "), is " + c.heartbeat
			if len(d.Out) != 1 || v.Rule != "OP014" || v.Pointer != "/task/heartbeat_interval_seconds" || v.Reason != want {
				t.Errorf("timeout %s, heartbeat %s: got %+v, want one OP014 %q", c.timeout, c.heartbeat, d.Out, want)
			}
		}
	}
	// The common case does not allocate.
	buf := []byte(assignment)
	dec := NewDec()
	if n := testing.AllocsPerRun(100, func() {
		dec.Reset(buf, 1)
		dec.Validate(Validators["operator/assignment"])
	}); n != 0 {
		t.Errorf("valid assignment: %v allocations per run", n)
	}
}

// Literal bounds are exact too: 1.0000000000000001 and 1 - 10^-20 round
// to 1.0 in float64.
func TestLiteralBoundExact(t *testing.T) {
	leaf := Leaf{Kinds: KNumber, MinRunes: -1, MaxRunes: -1, MinItems: -1, MaxItems: -1, Rule: RuleValue,
		Bounds: []Bound{{Op: ">", Num: 0, Lit: "0"}, {Op: "<=", Num: 1, Lit: "1.0"}}}
	for _, c := range []struct {
		doc  string
		want int
	}{
		{"1", 0}, {"1.0", 0}, {"10e-1", 0}, {"0.99999999999999999999", 0}, {"1e-400", 0},
		{"1.0000000000000001", 1}, {"1.00000000000000000000001", 1}, {"0", 1}, {"-0.0", 1}, {"2", 1},
	} {
		d := NewDec()
		d.Reset([]byte(c.doc), 1)
		d.Validate(func(d *Dec) { d.Value(&leaf) })
		if len(d.Out) != c.want {
			t.Errorf("%s: got %+v, want %d violations", c.doc, d.Out, c.want)
		}
	}
}

// An unknown member named "" (strict mode) is reported at the object's
// pointer plus "/" (RFC 6901), not at the object.
func TestEmptyMemberName(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"locks": [], "": 1}`, "/"},
		{`{"locks": [{"task_id": "T-1", "resource": "a", "active": true, "": {}}]}`, "/locks/0/"},
		{`{"locks": [], "a/b~": 1}`, "/a~1b~0"},
	} {
		d := run(t, "operator/locks", c.doc, true)
		if len(d.Out) != 1 || d.Out[0].Rule != RuleUnknown || d.Out[0].Pointer != c.want {
			t.Errorf("%s: got %+v, want AL004 at %q", c.doc, d.Out, c.want)
		}
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
