package lint

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// TestEveryViolationAlways: for every rule of the registry with a failing example
// that is one record or document (stream rules have their own tests), the example
// with an unrelated schema error added elsewhere in the same record still reports
// the rule (README, Codes and precedence: details.violations lists every
// violation). The unrelated error is made per kind from the example itself: each
// top-level member that the rule neither reports at nor declares in Fields is
// given a value of the wrong type, in turn; every variant in which the schema
// reports an error must still report the rule, and at least one variant must
// exist.
func TestEveryViolationAlways(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.ExampleKind == "" || r.Example == "" || r.ExampleKind == rules.ReplayKind || rules.Stream(r.ID) != nil {
			continue
		}
		k := kind.Lookup(r.ExampleKind)
		if k == nil {
			t.Fatalf("%s: example kind %q is not a kind", r.ID, r.ExampleKind)
		}
		raw := []byte(r.Example)
		if k.Format == kind.FormatTOML || k.Format == kind.FormatText {
			// The rules read the JSON form; break a member of that.
			raw = record.JSONForm(k, raw)
			if raw == nil {
				continue // the example is a syntax error: nothing else to judge
			}
		}
		if json.Unmarshal(raw, new(map[string]jsontext.Value)) != nil {
			continue // a syntax error replaces every other violation (cue/README.md, decisions)
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			v := exampleValidator(t, r)
			file := "example.json"
			if r.ExampleFile != "" {
				file = r.ExampleFile
			}
			vs, _ := v.Record(k.Name, file, raw, 1)
			var ptrs []string // where the rule reports, and what it declares it reads
			for _, x := range vs {
				if x.Rule == r.ID {
					ptrs = append(ptrs, x.Pointer)
					if p, ok := x.Extra[rules.FirstPointer].(string); ok {
						ptrs = append(ptrs, p)
					}
				}
			}
			if len(ptrs) == 0 {
				t.Fatalf("failing example does not violate %s", r.ID)
			}
			ptrs = append(ptrs, reads[r.ID]...)
			// Members at depth 1 first; deeper ones only when no member
			// at depth 1 can be broken (a locks payload has one member).
			variants := 0
			for depth := 1; depth <= 3 && variants == 0; depth++ {
				for _, c := range members(jsontext.Value(raw), "", depth) {
					if overlaps(c, ptrs) {
						continue
					}
					text := setAt(t, jsontext.Value(raw), c, wrongType)
					vs, _ := v.Record(k.Name, file, text, 1)
					if !schemaErrorUnder(vs, c) {
						continue // the member takes any value
					}
					variants++
					if !hasRule(vs, r.ID) {
						t.Errorf("%s is not reported when %s has the wrong type:\n%s\n%s", r.ID, c, text, describeVs(vs))
					}
				}
			}
			if variants == 0 && nothingElse[r.ID] == "" {
				t.Errorf("no member of the example could be broken without touching what %s reads: %s", r.ID, raw)
			}
		})
	}
	if n < 40 {
		t.Fatalf("only %d rules have record examples", n)
	}
}

// exampleValidator is a Validator with the options a rule's examples need.
func exampleValidator(t *testing.T, r *rules.Rule) *record.Validator {
	opts := record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}
	for _, o := range r.Options {
		switch o {
		case "--strict":
			opts.Strict = true
		case "--assignment":
			_, doc := record.NewValidator(opts, nil).Document("operator/assignment", "assignment.json", []byte(rules.ExampleAssignment))
			if doc == nil {
				t.Fatal("example assignment is not valid")
			}
			opts.Assignment = doc
		}
	}
	return record.NewValidator(opts, nil)
}

// members returns the JSON Pointers of the object members at depth in v
// (array elements are walked through), sorted.
func members(v jsontext.Value, ptr string, depth int) []string {
	var out []string
	switch v.Kind() {
	case '{':
		var m map[string]jsontext.Value
		if json.Unmarshal(v, &m) != nil {
			return nil
		}
		for name, x := range m {
			p := ptr + rules.Ptr(name)
			if depth == 1 {
				out = append(out, p)
			} else {
				out = append(out, members(x, p, depth-1)...)
			}
		}
	case '[':
		var a []jsontext.Value
		if json.Unmarshal(v, &a) != nil {
			return nil
		}
		for i, x := range a {
			out = append(out, members(x, ptr+rules.Ptr(i), depth)...)
		}
	}
	sort.Strings(out)
	return out
}

// overlaps reports whether c is one of ptrs, inside one or holds one.
func overlaps(c string, ptrs []string) bool {
	for _, p := range ptrs {
		if c == p || strings.HasPrefix(p, c+"/") || strings.HasPrefix(c, p+"/") {
			return true
		}
	}
	return false
}

// setAt returns v with the value at ptr replaced by f of it; every other
// value keeps its text (1200.0 stays 1200.0).
func setAt(t *testing.T, v jsontext.Value, ptr string, f func(jsontext.Value) jsontext.Value) []byte {
	toks, _ := rules.PointerTokens(ptr)
	var set func(v jsontext.Value, toks []string) jsontext.Value
	set = func(v jsontext.Value, toks []string) jsontext.Value {
		if len(toks) == 0 {
			return f(v)
		}
		var out []byte
		var err error
		if v.Kind() == '[' {
			var a []jsontext.Value
			if err = json.Unmarshal(v, &a); err == nil {
				i, _ := strconv.Atoi(toks[0])
				a[i] = set(a[i], toks[1:])
				out, err = json.Marshal(a)
			}
		} else {
			var m map[string]jsontext.Value
			if err = json.Unmarshal(v, &m); err == nil {
				m[toks[0]] = set(m[toks[0]], toks[1:])
				out, err = json.Marshal(m, json.Deterministic(true))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return set(v, toks)
}

// wrongType returns a value of another JSON type than x.
func wrongType(x jsontext.Value) jsontext.Value {
	if k := x.Kind(); k == 't' || k == 'f' {
		return jsontext.Value(`"not a boolean"`)
	}
	return jsontext.Value(`true`)
}

// reads names, per rule, the JSON Pointers its check depends on besides
// those it reports at: a discriminator of a conditional schema field (the
// field exists only for one value of it), or the other side of a comparison.
// Breaking one of them removes what the rule judges.
var reads = map[string][]string{
	// idle: fields and frames per event (cue/idle.cue: if event == ...).
	"IL002": {"/event"}, "IL004": {"/event"}, "IL005": {"/event"}, "IL006": {"/event"}, "IL007": {"/event"}, "IL009": {"/event"},
	"IL012": {"/event", "/stack"}, // run_id's mode against the first frame's
	"IL013": {"/event"}, "IL015": {"/event"},
	"CL012": {"/event_type"}, // status against the type's status equivalent
	"VM015": {"/event_type"}, // data per event_type (cue/vermas.cue)
	"VM016": {"/event_type"},
	"VM022": {"/type"},                                               // reference id per assignment type
	"LG010": {"/agent"},                                              // session_id's agent against agent
	"LG011": {"/ts"},                                                 // session date against the date of ts
	"LG014": {"/state"},                                              // state "error" without last_error
	"OP020": {"/status"},                                             // acceptance when status is done
	"OP034": {"/active_locks"},                                       // lock_scope against active_locks
	"OP054": {"/ledger"},                                             // terminal ledger rows against active_locks
	"OP055": {"/ledger"},                                             // events' tasks against the ledger (skipped when it is unreadable)
	"OP060": {"/now", "/tasks/0/status", "/tasks/0/timeout_seconds"}, // the clock, an in_progress task's budget
	"OP061": {"/now"},
}

// nothingElse names the rules whose example has no member the rule does not
// read, and why.
var nothingElse = map[string]string{
	"VM022": "an assignment is type and reference_id, and the rule reads both",
}

// schemaErrorUnder reports whether a schema rule (no document check)
// reports an error at ptr or below it.
func schemaErrorUnder(vs []envelope.Violation, ptr string) bool {
	for _, x := range vs {
		if r := rules.Lookup(x.Rule); r != nil && r.Check == nil && x.Severity == envelope.SeverityError &&
			(x.Pointer == ptr || strings.HasPrefix(x.Pointer, ptr+"/")) {
			return true
		}
	}
	return false
}

func hasRule(vs []envelope.Violation, id string) bool {
	for _, x := range vs {
		if x.Rule == id {
			return true
		}
	}
	return false
}

func describeVs(vs []envelope.Violation) string {
	var b strings.Builder
	for _, x := range vs {
		b.WriteString("  " + x.Rule + " " + x.Pointer + ": " + x.Reason + "\n")
	}
	return b.String()
}

// TestSecretOutranksSchemaFindings: a done result with an empty
// acceptance_check (ACCEPTANCE_FAILED, found by the schema) and a secret in
// notes_for_orchestrator is UNTRUSTED_CONTEXT_BLOCK (README, Codes and precedence
// precedence); with an ill-typed changes member as well it is SCHEMA_INVALID,
// which ranks higher. Both list every violation.
func TestSecretOutranksSchemaFindings(t *testing.T) {
	const result = `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12",
"status":"done","changes":[],"acceptance_check":[],"worklog_path":"worklogs/T-12.jsonl",
"notes_for_orchestrator":["deployed with OPENAI_API_KEY=sk-abc1234567890123456789012345"]}`
	for payload, want := range map[string]envelope.Code{
		result: envelope.UntrustedContextBlock,
		strings.Replace(result, `"changes":[]`, `"changes":7`, 1): envelope.SchemaInvalid,
	} {
		vs, _ := record.NewValidator(record.Options{}, nil).Document("operator/result", "result.json", []byte(payload))
		env := envelope.Verdict(vs, "", nil)
		if env.Code != want {
			t.Errorf("code %s, want %s:\n%s", env.Code, want, describeVs(vs))
		}
		codes := map[envelope.Code]bool{}
		for _, x := range vs {
			codes[x.Code] = true
		}
		if !codes[envelope.AcceptanceFailed] || !codes[envelope.UntrustedContextBlock] {
			t.Errorf("violations lack ACCEPTANCE_FAILED or UNTRUSTED_CONTEXT_BLOCK:\n%s", describeVs(vs))
		}
	}
}

// TestNoCascadeFromIllTypedValues: a value the schema rejects is reported
// by the schema; the document rules that compare other values with it skip
// it. For every rule's passing example, each member (to depth 3) is given a
// value of the wrong type and then null, in turn: no document rule may then
// report anywhere but at or inside that member (an ill-typed ledger does not
// make every event's task "not in the ledger").
func TestNoCascadeFromIllTypedValues(t *testing.T) {
	// OP081 lives in rules/rule_worklog_stream.go (stream rules: another
	// branch's file) and reads code/next_step as strings: an ill-typed one
	// counts as missing there.
	known := map[string]bool{"OP081": true}
	null := func(jsontext.Value) jsontext.Value { return jsontext.Value(`null`) }
	for _, r := range rules.All() {
		if r.ExampleKind == "" || r.Fixed == "" || r.ExampleKind == rules.ReplayKind || rules.Stream(r.ID) != nil {
			continue
		}
		k := kind.Lookup(r.ExampleKind)
		raw := []byte(r.Fixed)
		if k.Format == kind.FormatTOML || k.Format == kind.FormatText {
			raw = record.JSONForm(k, raw)
		}
		if raw == nil || !jsontext.Value(raw).IsValid() {
			continue
		}
		v := exampleValidator(t, r)
		base, _ := v.Record(k.Name, "example.json", raw, 1)
		before := map[string]bool{}
		for _, x := range base {
			before[x.Rule+x.Pointer] = true
		}
		for depth := 1; depth <= 3; depth++ {
			for _, c := range members(jsontext.Value(raw), "", depth) {
				for _, f := range []func(jsontext.Value) jsontext.Value{wrongType, null} {
					text := setAt(t, jsontext.Value(raw), c, f)
					vs, _ := v.Record(k.Name, "example.json", text, 1)
					for _, x := range vs {
						if rules.Lookup(x.Rule).Check == nil || known[x.Rule] || before[x.Rule+x.Pointer] || overlaps(x.Pointer, []string{c}) {
							continue
						}
						t.Errorf("%s (passing example of %s) with %s = %s: %s reports at %s: %s", k.Name, r.ID, c, f(nil), x.Rule, x.Pointer, x.Reason)
					}
				}
			}
		}
	}
}
