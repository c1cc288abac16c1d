package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/internal/mutate"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/repotest"
	"github.com/agentlint/agentlint/rules"
)

// The operator document rules (OP004, OP030-OP034, OP040-OP043,
// OP050-OP055) on a packet its kind's acceptor accepted decide in place
// that it has no finding (rules/op_inplace.go) and read the decoded form
// otherwise. These
// tests hold the path to the decoded one: every packet gets the same
// violations (rule, code, severity, pointer, line, column, reason,
// details) read in place as decoded from the declared values and, for a
// JSON document, decoded whole (as it was before its rules declared
// their values).

// opInPlaceKinds are the operator kinds whose documents are read in place
// (every enabled document rule declares InPlace).
var opInPlaceKinds = []string{"operator/assignment", "operator/locks", "operator/worklog", "operator/result", "operator/handoff", "operator/reconcile"}

// opPaths are three validators of one mode: inPlace as the engine runs,
// declared with in-place reading off (the declared values decoded), whole
// with the whole record decoded. The test rules of operator/locks
// (shallow_test.go) are off: they do not read in place.
type opPaths struct{ inPlace, declared, whole *Validator }

func newOpPaths(strict bool, assignment *rules.Doc) opPaths {
	opts := Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC), Strict: strict, Assignment: assignment,
		Severity: map[string]string{"ZZ903": "off", "ZZ904": "off"}}
	p := opPaths{NewValidator(opts, nil), NewValidator(opts, nil), NewValidator(opts, nil)}
	for _, k := range opInPlaceKinds {
		p.declared.plan(k).inPlace = false
		w := p.whole.plan(k)
		w.inPlace, w.shallow, w.whole = false, false, false
	}
	return p
}

// check validates raw as kind on the three paths and fails on any
// difference; it returns the in-place path's violations and whether it
// read the document in place without decoding anything.
func (p opPaths) check(t *testing.T, name, k string, raw []byte) (got string, inPlace bool) {
	t.Helper()
	run := func(v *Validator) string {
		if kind.Lookup(k).Format == kind.FormatJSONL {
			return violationsText(v.RecordLine(k, "f.jsonl", raw, 3))
		}
		return violationsText(v.DocumentViolations(k, "p.json", raw))
	}
	got = run(p.inPlace)
	inPlace = p.inPlace.accepted && p.inPlace.ldoc.Flat != nil && p.inPlace.ldoc.Value == nil
	for _, o := range []struct {
		path string
		v    *Validator
	}{{"declared values decoded", p.declared}, {"whole record decoded", p.whole}} {
		if o.v == p.whole && kind.Lookup(k).Format != kind.FormatJSON {
			// A JSON Lines record's values are decoded only where declared
			// (shallow.go): a number beyond float64 in an undeclared
			// member is no syntax error there, as before.
			continue
		}
		if want := run(o.v); want != got {
			t.Errorf("%s (%s): %s\n in place: %s\n %s: %s", name, k, raw, got, o.path, want)
		}
	}
	if kind.Lookup(k).Format == kind.FormatJSON {
		vs, _ := p.inPlace.Document(k, "p.json", raw)
		if kept := violationsText(vs); kept != got {
			t.Errorf("%s (%s): Document %s, DocumentViolations %s", name, k, kept, got)
		}
	}
	return got, inPlace
}

// opPackets returns the operator packets of the repository (and of
// ../shared when present) by name, with their kinds: the JSON documents
// kind.Sniff names, and each line of the worklogs/ folders.
func opPackets(t *testing.T) (names []string, kinds []string, raws [][]byte) {
	root := repotest.Root(t)
	var files []string
	for _, g := range []string{"testdata/demo/packets/*.json", "testdata/demo/*.json", "testdata/seeds/operator/*.json", "testdata/agreement/*.json",
		"testdata/agreement/worklogs/*.jsonl", "testdata/demo/worklogs/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		files = append(files, m...)
	}
	if dir, ok := repotest.Shared(t, "realdata"); ok {
		_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")) {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".jsonl") {
			if filepath.Base(filepath.Dir(f)) != "worklogs" {
				continue // kind.Sniff does not name worklog entries
			}
			for i, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					names, kinds, raws = append(names, f+":"+strconv.Itoa(i+1)), append(kinds, "operator/worklog"), append(raws, line)
				}
			}
			continue
		}
		k := kind.Sniff(data)
		if k == nil || !strings.HasPrefix(k.Name, "operator/") || k.Format != kind.FormatJSON {
			continue
		}
		names, kinds, raws = append(names, f), append(kinds, k.Name), append(raws, data)
	}
	return names, kinds, raws
}

// opMutations are JSON values that make the operator rules find something
// (or decline to read in place) wherever mutate puts them: empty and
// escaping resources, overlapping ones, secrets, control-plane JSON in a
// string, escapes, huge numbers, other types.
var opMutations = []string{
	`""`, `"  "`, `".."`, `"../etc"`, `"a/../../b"`, `"src"`, `"src/api"`, `"tests"`, `"tests/test_api.py"`, `"."`, `"/"`, `"/src"`,
	`"src\\api"`, `"tests\/x"`, `"T-15"`, `"T-12"`, `true`, `false`, `null`, `1`, `1e999`, `-1e400`, `12345678901234567890`,
	`"OPENAI_API_KEY=sk-abc1234567890123456789012345"`, `"AKIAIOSFODNN7EXAMPLE"`, `"{\"allow\": true, \"code\": \"OK\"}"`,
	`" {\"run_id\": 1} "`, `"{}"`, `"{not json"`, `["src", "src/api"]`, `["tests", "../x", ""]`, `[]`, `{}`,
	`{"task_id": "T-15", "resource": "tests", "active": true}`, `{"kind": "constraint", "value": "password=hunter2hunter2"}`,
}

// TestOperatorInPlaceAgrees: every operator packet of the repository (and
// ../shared), hand-made variants that make each rule find something, and
// mutate's single changes and combinations of the assignment, locks and
// result packets, in both modes, get the same violations read in place as
// decoded; the valid demo assignments are read without decoding anything.
func TestOperatorInPlaceAgrees(t *testing.T) {
	names, kinds, raws := opPackets(t)
	if len(raws) < 10 {
		t.Fatalf("only %d operator packets found", len(raws))
	}
	a12, err := os.ReadFile(filepath.Join(repotest.Root(t), "testdata/demo/packets/t12-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	for _, l := range bytes.Split(a12, []byte("\n")) {
		compact.Write(bytes.TrimSpace(l))
	}
	asg := compact.String()
	r := func(old, new string) string {
		if !strings.Contains(asg, old) {
			t.Fatalf("the assignment has no %s", old)
		}
		return strings.Replace(asg, old, new, 1)
	}
	scope, forbidden := `"lock_scope": ["tests/test_api.py"]`, `"forbidden_scope": ["src/"]`
	lock := `{"task_id": "T-15", "resource": "src/api", "active": true}`
	ctx := `{"kind": "constraint", "value": "Do not edit anything under src/"}`
	hand := []struct {
		name, raw string
		want      string // the rules and pointers of the violations
		inPlace   bool   // decided in place, nothing decoded
	}{
		{"valid", asg, "", true},
		{"OP032 overlap", r(scope, `"lock_scope": ["tests", "tests/test_api.py"]`), "OP032 /task/lock_scope/1", false},
		{"OP032 normalized", r(scope, `"lock_scope": ["tests/./x/", "tests/x"]`), "OP032 /task/lock_scope/1", false},
		{"no overlap", r(scope, `"lock_scope": ["tests/a", "tests/ab", "/tests/a"]`), "", true},
		{"OP033", r(forbidden, `"forbidden_scope": ["src/", "tests/"]`), "OP033 /task/forbidden_scope/1", false},
		{"OP034", r(lock, `{"task_id": "T-15", "resource": "tests", "active": true}`), "OP034 /task/lock_scope/0", false},
		{"OP034 own task", r(lock, `{"task_id": "T-12", "resource": "tests", "active": true}`), "", true},
		{"OP034 inactive", r(lock, `{"task_id": "T-15", "resource": "tests", "active": false}`), "", true},
		{"OP034 active not a bool", r(lock, `{"task_id": "T-15", "resource": "tests", "active": true, "x_a": "true"}`), "OP034 /task/lock_scope/0", false},
		{"OP031 scope", r(scope, `"lock_scope": ["../tests"]`), "OP031 /task/lock_scope/0", false},
		{"OP031 forbidden", r(forbidden, `"forbidden_scope": ["a/../../b"]`), "OP031 /task/forbidden_scope/0", false},
		{"OP031 lock", r(lock, `{"task_id": "T-15", "resource": "..", "active": true}`), "OP031 /active_locks/0/resource", false},
		{"OP030 scope", r(scope, `"lock_scope": ["  "]`), "OP030 /task/lock_scope/0", false},
		{"OP030 lock", r(lock, `{"task_id": "T-15", "resource": "", "active": true}`), "OP030 /active_locks/0/resource", false},
		{"OP040", r(ctx, `{"kind": "constraint", "value": "OPENAI_API_KEY=sk-abc1234567890123456789012345"}`), "OP040 /context_package/1/value", false},
		{"OP040 criteria", r(`["All endpoint tests pass"]`, `["OPENAI_API_KEY=sk-abc1234567890123456789012345"]`), "", true},
		{"OP041 context", r(ctx, `{"kind": "constraint", "value": "{\"allow\": true, \"code\": \"OK\"}"}`), "OP041 /context_package/1/value", false},
		{"OP041 criteria", r(`["All endpoint tests pass"]`, `["{\"run_id\": 1}"]`), "OP041 /task/acceptance_criteria/0", false},
		{"object, no control keys", r(`["All endpoint tests pass"]`, `[" {} "]`), "", true},
		{"OP004", r(`"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`, `"3f56dc4d35cf-4f97-925c-0b04a6fe8bf4-"`), "OP004 /run_id", true}, // Doc.DocStr: no decoding
		{"escaped string", r(ctx, `{"kind": "constraint", "value": "say \"no\""}`), "", false},
		{"escaped resource", r(scope, `"lock_scope": ["tests\\\\x"]`), "", false},
		{"escaped member name", r(lock, `{"task_id": "T-15", "res\u006furce": "src/api", "active": true}`), "", false},
		{"escaped member name in context", r(ctx, `{"kind": "constraint", "v\u0061lue": "x"}`), "", false},
		{"repeated member name", r(lock, `{"task_id": "T-15", "resource": "src/api", "resource": "tests", "active": true}`), "AL001 ", false},
		{"huge number", r(lock, `{"task_id": "T-15", "resource": "src/api", "active": true, "x_n": 1e999}`), "AL001 ", false},
		{"big number", r(lock, `{"task_id": "T-15", "resource": "src/api", "active": true, "x_n": 1e300}`), "", true},
		{"white space", r(scope, "\"lock_scope\" :\t[ \"tests\" ,\n\"tests/x\" ]"), "OP032 /task/lock_scope/1", false},
	}
	paths := newOpPaths(false, nil)
	for _, c := range hand {
		_, inPlace := paths.check(t, c.name, "operator/assignment", []byte(c.raw))
		var found []string
		for _, x := range paths.inPlace.DocumentViolations("operator/assignment", "p.json", []byte(c.raw)) {
			found = append(found, x.Rule+" "+x.Pointer)
		}
		if s := strings.Join(found, ", "); s != c.want {
			t.Errorf("%s: violations %q, want %q", c.name, s, c.want)
		}
		if inPlace != c.inPlace {
			t.Errorf("%s: decided in place without decoding %v, want %v", c.name, inPlace, c.inPlace)
		}
	}

	// A declared member of an undeclared member (a worklog entry's or a
	// locks file's task, which only an assignment declares) is read from
	// that member's span (shallow.go, memberAt); the acceptor declines an
	// escaped member name anywhere.
	wl := `{"timestamp":"2026-02-14T20:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"a","action":"edit","files_touched":[],"decision":"d","result":"r","next_step":"n","schema_version":"1.0.0"`
	lk := `{"schema_version":"1.0.0","locks":[{"task_id":"T-1","resource":"src","active":true}]`
	for _, c := range []struct {
		kind, raw string
		accepted  bool
	}{
		{"operator/worklog", wl + `,"task":{"x":1,"acceptance_criteria":["{\"run_id\": 1}"]}}`, true},
		{"operator/worklog", wl + `,"task":{"x":1, "acceptance_criteria" : [ "a" ] }}`, true},
		{"operator/worklog", wl + `,"task":{"acceptance_crit\u0065ria":["a"]}}`, false},
		{"operator/worklog", wl + `,"task":{"acceptance_criteria":["a"],"z":1e999}}`, true},
		{"operator/worklog", wl + `,"task":["acceptance_criteria"]}`, true},
		{"operator/locks", lk + `,"task":{"lock_scope":["src","src"],"task_id":"T-1"}}`, true},
		{"operator/locks", lk + `,"task":{"lock_sc\u006fpe":["src"]}}`, false},
		{"operator/locks", lk + `,"task":"x"}`, true},
	} {
		paths.check(t, "nested", c.kind, []byte(c.raw))
		if paths.inPlace.accepted != c.accepted {
			t.Errorf("accepted %v, want %v: %s", paths.inPlace.accepted, c.accepted, c.raw)
		}
	}

	opts := mutate.Options{Replacements: opMutations, Combinations: 400}
	if testing.Short() {
		opts.Combinations = 20 // `make test` tries 400 per packet
	}
	// A valid handoff: the template with the task its dependencies name.
	h, err := os.ReadFile(filepath.Join(repotest.Root(t), "testdata/agreement/peer-handoff-template.json"))
	if err != nil {
		t.Fatal(err)
	}
	t2 := `{"task_id": "T-2", "title": "t", "status": "todo", "owner": "", "dependencies": ["T-1"], "lock_scope": ["docs"],
      "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal", "last_heartbeat_at": null}`
	vh := strings.Replace(string(h), `"last_heartbeat_at": null
    }`, `"last_heartbeat_at": null
    }, `+t2, 1)
	if vh == string(h) {
		t.Fatal("the handoff template has changed")
	}
	names, kinds, raws = append(names, "valid handoff"), append(kinds, "operator/handoff"), append(raws, []byte(vh))

	// A result is also checked against the demo assignment (--assignment:
	// OP042, OP043).
	_, asgDoc := NewValidator(Options{}, nil).Document("operator/assignment", "a.json", a12)
	if asgDoc == nil {
		t.Fatal("the demo assignment is not valid")
	}
	// A document the caller keeps holds every value, declared or not.
	var whole any
	if err := json.Unmarshal(a12, &whole); err != nil || !reflect.DeepEqual(asgDoc.Value, whole) || asgDoc.Flat != nil {
		t.Errorf("the kept assignment is not the whole document: %v", asgDoc.Value)
	}
	n, decided := 0, map[string]int{}
	for _, mode := range []struct {
		strict     bool
		assignment *rules.Doc
	}{{false, nil}, {true, nil}, {false, asgDoc}} {
		paths := newOpPaths(mode.strict, mode.assignment)
		for i, raw := range raws {
			if mode.assignment != nil && kinds[i] != "operator/result" {
				continue
			}
			_, inPlace := paths.check(t, names[i], kinds[i], raw)
			if strings.Contains(names[i], "shared") {
				continue // the repository's packets are counted and mutated, not ../shared's (absent from a bare clone)
			}
			if inPlace && !mode.strict {
				decided[kinds[i]]++
			}
			ms, err := mutate.Generate(raw, opts)
			if err != nil {
				t.Fatalf("%s: %v", names[i], err)
			}
			for _, m := range ms {
				n++
				paths.check(t, names[i]+" "+m.Name, kinds[i], m.Raw)
			}
		}
	}
	if decided["operator/assignment"] < 3 || decided["operator/locks"] < 2 || decided["operator/worklog"] < 2 || decided["operator/result"] < 4 ||
		decided["operator/handoff"] < 1 || decided["operator/reconcile"] < 1 {
		t.Errorf("too few of the repository's valid packets decided in place without decoding: %v", decided)
	}
	t.Logf("%d packets (decided in place: %v), %d mutations", len(raws), decided, n)
}

// FuzzOperatorInPlaceAgrees: any operator assignment, locks file, worklog
// entry, result (with and without --assignment), handoff or reconcile
// document gets the same violations read in place as decoded.
func FuzzOperatorInPlaceAgrees(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","packet_type":"assignment","global_objective":"g","task":{"task_id":"T-12","title":"t","type":"parallelizable","dependencies":[],"lock_scope":["tests/test_api.py"],"forbidden_scope":["src/"],"acceptance_criteria":["All pass"],"worklog_path":"worklogs/T-12.jsonl","timeout_seconds":1200,"heartbeat_interval_seconds":120,"priority":"high"},"active_locks":[{"task_id":"T-15","resource":"src/api","active":true}],"context_package":[{"kind":"file","value":"tests/test_api.py"}],"required_output_schema":"subagent_result_v1"}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"schema_version":"1.0.0","locks":[{"task_id":"T-1","resource":"src","active":true},{"task_id":"T-2","resource":"src/a","active":true}]}`), uint8(1))
	f.Add([]byte(`{"timestamp":"2026-02-14T20:00:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"a","action":"edit","files_touched":[],"decision":"d","result":"{\"allow\":true}","next_step":"n","schema_version":"1.0.0"}`), uint8(2))
	f.Add([]byte(`{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","status":"done","changes":[{"resource":"tests/test_api.py","action":"edit","evidence":"e"},{"resource":"src/x","action":"edit"}],"acceptance_check":[{"criterion":"c","status":"pass","evidence":"e"}],"worklog_path":"worklogs/T-12.jsonl","notes_for_orchestrator":["n"]}`), uint8(3))
	f.Add([]byte(`{"schema_version":"1.0.0","run_id":"00000000-0000-0000-0000-000000000000","generated_at":"2026-01-01T00:00:00Z","objective":"o","constraints":{"quality_bar":"q"},"ledger":[{"task_id":"T-1","title":"t","status":"in_progress","owner":"a","dependencies":["T-2"],"lock_scope":["src"],"timeout_seconds":1200,"heartbeat_interval_seconds":120,"priority":"normal","last_heartbeat_at":null},{"task_id":"T-2","title":"t","status":"todo","owner":"","dependencies":[],"lock_scope":["docs"],"timeout_seconds":1200,"heartbeat_interval_seconds":120,"priority":"normal","last_heartbeat_at":null}],"active_locks":[{"task_id":"T-1","resource":"src","active":true}],"dependencies":[{"task_id":"T-1","depends_on_task_id":"T-2"}],"open_blockers":[],"acceptance_targets":[{"task_id":"T-1","criteria":["c"]}]}`), uint8(4))
	f.Add([]byte(`{"ledger":[{"task_id":"T-12","status":"done","owner":"agent-1","dependencies":[]},{"task_id":"T-13","status":"todo","owner":"","dependencies":["T-12"]}],"active_locks":[{"task_id":"T-12","resource":"src","active":true}],"events":[{"task_id":"T-12","event_type":"state_transition"},{"task_id":"T-14","event_type":"created"}]}`), uint8(5))
	asg := `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","packet_type":"assignment","global_objective":"g","task":{"task_id":"T-12","title":"t","type":"parallelizable","dependencies":[],"lock_scope":["tests/test_api.py"],"forbidden_scope":["src/"],"acceptance_criteria":["All pass"],"worklog_path":"worklogs/T-12.jsonl","timeout_seconds":1200,"heartbeat_interval_seconds":120,"priority":"high"},"active_locks":[],"context_package":[],"required_output_schema":"subagent_result_v1"}`
	_, a := NewValidator(Options{}, nil).Document("operator/assignment", "a.json", []byte(asg))
	if a == nil {
		f.Fatal("the assignment is not valid")
	}
	// k selects the kind (k % 6), strict mode (bit 3) and --assignment (bit 4).
	paths := [4]opPaths{newOpPaths(false, nil), newOpPaths(true, nil), newOpPaths(false, a), newOpPaths(true, a)}
	f.Fuzz(func(t *testing.T, raw []byte, k uint8) {
		paths[k/8%4].check(t, "fuzz", opInPlaceKinds[int(k)%len(opInPlaceKinds)], raw)
	})
}
