package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/repotest"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
)

// Shared helpers and cross-cutting tests of the operator document rules
// (rule_locks.go, rule_secrets.go, rule_scope.go, rule_reconcile.go,
// rule_watchdog.go, rule_delta.go, rule_runid.go).

// opRuleIDs are the document rules of the operator family tested here.
var opRuleIDs = []string{
	"OP004",
	"OP030", "OP031", "OP032", "OP033", "OP034",
	"OP040", "OP041", "OP042", "OP043",
	"OP050", "OP051", "OP052", "OP053", "OP054", "OP055",
	"OP060", "OP061", "OP062",
	"OP070", "OP071", "OP072",
}

// opNow is the fixed --now of the tests.
var opNow = time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)

// opDecode decodes a JSON text as the engine does (into any).
func opDecode(t *testing.T, js string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("bad test JSON: %v\n%s", err, js)
	}
	return v
}

// opCase is one table test: a document of kind, the optional assignment
// (--assignment) and options, and the findings expected of the operator
// rules, each "ID pointer", in Run order.
type opCase struct {
	name       string
	kind       string
	js         string
	assignment string
	maxSkew    time.Duration
	want       []string
}

// opRun runs every document rule on js and returns the findings of the
// operator rules under test.
func opRun(t *testing.T, kind, js, assignment string, maxSkew time.Duration) []Finding {
	t.Helper()
	opts := &Options{Now: opNow, MaxSkew: maxSkew}
	if assignment != "" {
		opts.Assignment = &Doc{Kind: "operator/assignment", Raw: []byte(assignment), Value: opDecode(t, assignment), Options: &Options{Now: opNow}}
	}
	d := &Doc{Kind: kind, File: "test.json", Raw: []byte(js), Value: opDecode(t, js), Options: opts}
	var out []Finding
	for _, f := range Run(d, nil) {
		if slices.Contains(opRuleIDs, f.Rule) {
			out = append(out, f)
		}
	}
	return out
}

func opIDs(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Pointer)
	}
	return out
}

func opRunCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := opIDs(opRun(t, c.kind, c.js, c.assignment, c.maxSkew))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("findings = %q, want %q", got, c.want)
			}
		})
	}
}

// opRepl replaces old (which must occur) by repl in s, once.
func opRepl(t *testing.T, s, old, repl string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("test base does not contain %q", old)
	}
	return strings.Replace(s, old, repl, 1)
}

// opSchemaErrors validates js against the generated validator of kind and
// returns its error violations.
func opSchemaErrors(kind, js string) []envelope.Violation {
	v := fast.Validators[kind]
	if v == nil {
		return nil
	}
	d := fast.NewDec()
	d.Reset([]byte(js), 1)
	d.Validate(v)
	var out []envelope.Violation
	for _, x := range d.Out {
		if x.Severity != envelope.SeverityWarning {
			out = append(out, x)
		}
	}
	return out
}

var opKebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestOperatorRuleMetadata checks the registry entries of the operator rules.
func TestOperatorRuleMetadata(t *testing.T) {
	for _, id := range opRuleIDs {
		r := Lookup(id)
		if r == nil {
			t.Errorf("%s is not registered", id)
			continue
		}
		if r.Check == nil {
			t.Errorf("%s: no Check", id)
		}
		if !opKebab.MatchString(r.Name) {
			t.Errorf("%s: name %q is not kebab-case", id, r.Name)
		}
		if r.Summary == "" || strings.Contains(r.Summary, "\n") {
			t.Errorf("%s: summary must be one line", id)
		}
		if r.Source == "" || len(r.Kinds) == 0 {
			t.Errorf("%s: Source and Kinds are required", id)
		}
		if !r.AppliesTo(r.ExampleKind) {
			t.Errorf("%s: ExampleKind %q is not among its kinds %v", id, r.ExampleKind, r.Kinds)
		}
	}
}

// TestOperatorRuleExamples checks that every operator rule's Example passes
// the schema and violates exactly that rule (among the operator document
// rules), and that Fixed passes the schema and violates none of them.
func TestOperatorRuleExamples(t *testing.T) {
	for _, id := range opRuleIDs {
		r := Lookup(id)
		if r == nil {
			t.Fatalf("%s is not registered", id)
		}
		t.Run(id, func(t *testing.T) {
			assignment := ""
			if slices.Contains(r.Options, "--assignment") {
				assignment = ExampleAssignment
				if errs := opSchemaErrors("operator/assignment", assignment); len(errs) > 0 {
					t.Fatalf("ExampleAssignment fails the schema: %+v", errs)
				}
			}
			for _, ex := range []struct{ name, js string }{{"Example", r.Example}, {"Fixed", r.Fixed}} {
				if errs := opSchemaErrors(r.ExampleKind, ex.js); len(errs) > 0 {
					t.Errorf("%s fails the schema of %s: %+v\n%s", ex.name, r.ExampleKind, errs, ex.js)
				}
			}
			got := opRun(t, r.ExampleKind, r.Example, assignment, 60*time.Second)
			if len(got) == 0 {
				t.Errorf("Example yields no finding:\n%s", r.Example)
			}
			for _, f := range got {
				if f.Rule != id {
					t.Errorf("Example also violates %s at %s: %s", f.Rule, f.Pointer, f.Reason)
				}
			}
			if got := opRun(t, r.ExampleKind, r.Fixed, assignment, 60*time.Second); len(got) > 0 {
				t.Errorf("Fixed yields %q", opIDs(got))
			}
		})
	}
}

// opVerdict is the primary code of the document-rule findings (OK when no
// error), as envelope.Verdict picks it.
func opVerdict(fs []Finding) envelope.Code {
	var vs []envelope.Violation
	for _, f := range fs {
		r := Lookup(f.Rule)
		vs = append(vs, envelope.Violation{Code: r.Code, Rule: f.Rule, Pointer: f.Pointer, Reason: f.Reason, Severity: r.Severity})
	}
	return envelope.Verdict(vs, "ok", nil).Code
}

// opPeer are verdicts of the reference validators (conformance/operator-peer)
// on inputs that pass the schema, so that the document rules decide them.
var opPeer = []struct {
	name, kind, js string
	code           envelope.Code
}{
	{"02-locks-conflict", "operator/locks", `{
  "locks": [
    {"task_id": "T-12", "resource": "src", "active": true},
    {"task_id": "T-13", "resource": "src/api/handler.py", "active": true}
  ]
}`, envelope.LockConflict},
	{"02-locks-valid", "operator/locks", `{
  "locks": [
    {"task_id": "T-12", "resource": "tests/test_api.py", "active": true},
    {"task_id": "T-13", "resource": "src/core.py", "active": true},
    {"task_id": "T-14", "resource": "docs/notes.md", "active": false}
  ]
}`, envelope.OK},
	{"03-result-invalid-secret-note", "operator/result", `{
  "schema_version": "1.0.0",
  "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
  "task_id": "T-12",
  "status": "blocked",
  "changes": [],
  "acceptance_check": [],
  "worklog_path": "worklogs/T-12.jsonl",
  "notes_for_orchestrator": [
    "OPENAI_API_KEY=sk-abc1234567890123456789012345"
  ]
}`, envelope.UntrustedContextBlock},
	{"04-reconcile-valid", "operator/reconcile", `{
  "ledger": [
    {"task_id": "T-12", "status": "done", "owner": "agent-1", "dependencies": []},
    {"task_id": "T-13", "status": "todo", "owner": "", "dependencies": ["T-12"]}
  ],
  "active_locks": [],
  "events": [
    {"task_id": "T-12", "event_type": "state_transition"},
    {"task_id": "T-13", "event_type": "created"}
  ]
}`, envelope.OK},
	{"01-assignment-valid", "operator/assignment", minimalAssignment, envelope.OK},
	{"03-result-valid", "operator/result", minimalResult, envelope.OK},
	{"01-assignment-invalid-empty-normalized-lock", "operator/assignment",
		strings.Replace(strings.Replace(strings.Replace(minimalAssignment, `["tests/test_api.py"]`, `["  "]`, 1),
			`["src/"]`, `[]`, 1), `{"task_id": "T-9", "resource": "src/api.py", "active": true}`, ``, 1), envelope.SchemaInvalid},
	{"watchdog-pass", "operator/watchdog", `{
  "now": "2026-02-14T20:00:00Z",
  "tasks": [
    {"task_id": "T-12", "status": "in_progress", "timeout_seconds": 1200, "last_heartbeat_at": "2026-02-14T19:50:30Z"},
    {"task_id": "T-13", "status": "todo", "timeout_seconds": 1200, "last_heartbeat_at": null}
  ]
}`, envelope.OK},
	{"watchdog-timeout", "operator/watchdog", `{
  "now": "2026-02-14T20:00:00Z",
  "tasks": [
    {"task_id": "T-12", "status": "in_progress", "timeout_seconds": 1200, "last_heartbeat_at": "2026-02-14T19:20:00Z"}
  ]
}`, envelope.TaskTimeout}, // R-WD-001
	{"watchdog-future-skew", "operator/watchdog", `{
  "now": "2026-02-14T20:00:00Z",
  "tasks": [
    {"task_id": "T-12", "status": "in_progress", "timeout_seconds": 1200, "last_heartbeat_at": "2026-02-14T20:10:31Z"}
  ]
}`, envelope.SchemaInvalid}, // R-WD-002
}

// TestOperatorPeerVerdicts checks that the document rules agree with the
// reference validators on allow and code.
func TestOperatorPeerVerdicts(t *testing.T) {
	for _, p := range opPeer {
		t.Run(p.name, func(t *testing.T) {
			if errs := opSchemaErrors(p.kind, p.js); len(errs) > 0 {
				t.Fatalf("peer input fails the schema: %+v", errs)
			}
			if got := opVerdict(opRun(t, p.kind, p.js, "", 0)); got != p.code {
				t.Errorf("code = %s, want %s", got, p.code)
			}
		})
	}
}

// TestOperatorPeerFiles runs the reference validator's examples
// (../shared/conformance/operator-peer beside the repository; skipped when
// absent): inputs that pass the schema must get the peer's code from the
// document rules.
func TestOperatorPeerFiles(t *testing.T) {
	dir, ok := repotest.Shared(t, "conformance", "operator-peer")
	if !ok {
		t.Skipf("%s: ../shared/conformance not found beside the repository: reference comparison skipped", dir)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.output.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "watchdog", "*.output.json"))
	files = append(files, more...)
	if len(files) < 12 {
		t.Fatalf("only %d reference verdicts in %s, expected at least 12", len(files), dir)
	}
	peerCode := map[string]envelope.Code{"R-WD-001": envelope.TaskTimeout, "R-WD-002": envelope.SchemaInvalid}
	for _, out := range files {
		in := strings.TrimSuffix(out, ".output.json") + ".json"
		input, err := os.ReadFile(in)
		if err != nil {
			continue // trace files have no input
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var verdict struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(raw, &verdict, json.RejectUnknownMembers(false)); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		want := envelope.Code(verdict.Code)
		if c, ok := peerCode[verdict.Code]; ok {
			want = c
		}
		kind := opSniff(opDecode(t, string(input)))
		t.Run(filepath.Base(in), func(t *testing.T) {
			if errs := opSchemaErrors(kind, string(input)); len(errs) > 0 {
				t.Skipf("decided by the schema (%s)", errs[0].Rule)
			}
			if got := opVerdict(opRun(t, kind, string(input), "", 0)); got != want {
				t.Errorf("code = %s, want %s", got, want)
			}
		})
	}
}

// opSniff is the operator part of cue/README.md's content sniffing.
func opSniff(v any) string {
	m := Obj(v)
	has := func(k string) bool { _, ok := m[k]; return ok }
	switch {
	case has("packet_type"):
		return "operator/assignment"
	case has("ledger_delta"):
		return "operator/orchestrator-output"
	case has("acceptance_check") && has("task_id"):
		return "operator/result"
	case has("objective") && has("ledger"):
		return "operator/handoff"
	case has("locks"):
		return "operator/locks"
	case has("ledger") && (has("events") || has("active_locks")):
		return "operator/reconcile"
	case has("now") && has("tasks"):
		return "operator/watchdog"
	}
	return ""
}
