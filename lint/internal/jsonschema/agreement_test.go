//go:build devtools

package jsonschema_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/cueeval"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/internal/jsonschema"
	"github.com/agentlint/agentlint/lint/internal/mutate"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/lint/timefmt"
	"github.com/agentlint/agentlint/rules"
)

// The three-engine agreement test for collector/event (cue/README.md "collector":
// the seed's JSON Schema is authoritative).
//
// For every collector record under testdata/ and a mutation set, strict and
// not, it computes three verdicts (allow, primary code, the pointers of
// error violations):
//
//   - the product's, with the fast path (record.Validator: schema, then the
//     document rules of the registry);
//   - the same with the CUE evaluator as schema engine: it must be equal;
//   - the JSON Schema engine's (seed 004's schema alone), to which the
//     clauses below, in which agentlint is stricter than or refines the
//     schema, are applied: the result must be equal to the product's.
//
// Every clause names the project doc text it implements and must be needed by
// at least one case, so that none is a blanket excuse.

// clause is one place where README makes the verdict differ from the
// JSON Schema's. apply changes the JSON Schema verdict (as agentlint
// does) and reports whether it applied.
type clause struct {
	name, text string
	apply      func(c sample, v *verdict) bool
}

// record is one case: a JSON text, its decoded value (nil for a syntax
// error) and the mode.
type sample struct {
	id     string
	raw    []byte
	value  map[string]any
	strict bool
}

type verdict struct {
	allow    bool
	code     envelope.Code
	pointers map[string]envelope.Code // error pointers and the best code there
}

func (v verdict) String() string {
	ps := make([]string, 0, len(v.pointers))
	for p, c := range v.pointers {
		ps = append(ps, fmt.Sprintf("%q:%s", p, c))
	}
	sort.Strings(ps)
	return fmt.Sprintf("allow=%v code=%s pointers=[%s]", v.allow, v.code, strings.Join(ps, " "))
}

// key is what must be equal: allow, code and the set of pointers.
func (v verdict) key() string {
	ps := make([]string, 0, len(v.pointers))
	for p := range v.pointers {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return fmt.Sprintf("%v %s %q", v.allow, v.code, ps)
}

func (v *verdict) add(ptr string, c envelope.Code) {
	if old, ok := v.pointers[ptr]; !ok || envelope.Rank(c) < envelope.Rank(old) {
		v.pointers[ptr] = c
	}
	v.recompute()
}

func (v *verdict) recompute() {
	v.allow, v.code = len(v.pointers) == 0, envelope.OK
	for _, c := range v.pointers {
		if v.code == envelope.OK || envelope.Rank(c) < envelope.Rank(v.code) {
			v.code = c
		}
	}
}

// judge turns violations (codes and severities filled) into a verdict.
func judge(vs []envelope.Violation) verdict {
	v := verdict{pointers: map[string]envelope.Code{}}
	for _, x := range vs {
		if x.Severity != envelope.SeverityError {
			continue
		}
		code := x.Code
		if x.Parse {
			code = envelope.SchemaInvalid
		}
		v.add(x.Pointer, code)
	}
	v.recompute()
	return v
}

// fill sets code and severity from the registry, as record.Validator does.
func fill(vs []envelope.Violation) []envelope.Violation {
	out := append([]envelope.Violation(nil), vs...)
	for i := range out {
		r := rules.Lookup(out[i].Rule)
		out[i].Code, out[i].Severity = r.Code, r.Severity
	}
	return out
}

// schemaDoc is seed 004's JSON Schema, decoded: the clauses read the
// declared properties and integer fields from it rather than repeating them.
var schemaDoc = func() map[string]any {
	var m map[string]any
	if err := jsonUnmarshal(mustRead(filepath.Join("..", "..", "..", "cue", "collector.schema.json")), &m); err != nil {
		panic(err)
	}
	return m
}()

var versionMajor1 = regexp.MustCompile(`^1(\.|$)`)

// clauses are applied in this order.
var clauses = []clause{
	{
		name: "version-major",
		text: `README, Codes and precedence UNKNOWN_SCHEMA_VERSION: "a version field whose major version ... this tool does not know, ` +
			`or a version field of the wrong type (fail closed): ... collector version with a major other than 1"`,
		apply: func(c sample, v *verdict) bool {
			ver, present := c.value["version"]
			s, isString := ver.(string)
			if !present || (isString && versionMajor1.MatchString(s)) {
				return false
			}
			v.add("/version", envelope.UnknownSchemaVersion)
			return true
		},
	},
	{
		name: "integer-literal",
		text: `cue/README.md All families: "A JSON number with a fraction or exponent is not the value of an integer field ` +
			`(1200.0 is SCHEMA_INVALID)"; the schema library takes 1.0 and 1e2 as integers (JSON Schema draft 7: a number with a zero fractional part)`,
		apply: func(c sample, v *verdict) bool {
			applied := false
			walkDeclared(schemaDoc, c.value, "", func(ptr string, sch map[string]any, val any) {
				if sch["type"] != "integer" {
					return
				}
				if n, ok := val.(jsonNumber); ok && strings.ContainsAny(string(n), ".eE") {
					v.add(ptr, envelope.SchemaInvalid)
					applied = true
				}
			})
			return applied
		},
	},
	{
		name: "date-time-digits",
		text: `cue/README.md All families: "Timestamps are RFC 3339 date-time", whose fields are exactly two DIGITs ` +
			`(RFC 3339 section 5.6); the schema library's format checker reads them with strconv.Atoi and so takes a sign ("20:+0:00")`,
		apply: func(c sample, v *verdict) bool {
			applied := false
			walkDeclared(schemaDoc, c.value, "", func(ptr string, sch map[string]any, val any) {
				s, ok := val.(string)
				if _, denied := v.pointers[ptr]; !ok || denied || sch["format"] != "date-time" || timefmt.IsRFC3339(s) {
					return
				}
				v.add(ptr, envelope.SchemaInvalid)
				applied = true
			})
			return applied
		},
	},
	{
		name: "strict-unknown-member",
		text: `README, Codes and precedence SCHEMA_INVALID: "an unknown field in strict mode" (cue/README.md, Codes); cue/README.md, operator, extension policy ` +
			`(x_ fields always allowed), applied to the objects the schema declares properties for (metadata, tool_input and raw_payload stay open)`,
		apply: func(c sample, v *verdict) bool {
			if !c.strict {
				return false
			}
			applied := false
			var visit func(ptr string, sch map[string]any, val any)
			visit = func(ptr string, sch map[string]any, val any) {
				props, _ := sch["properties"].(map[string]any)
				obj, ok := val.(map[string]any)
				if props == nil || !ok {
					return
				}
				for name, x := range obj {
					p := ptr + "/" + escape(name)
					if ps, declared := props[name].(map[string]any); declared {
						visit(p, ps, x)
					} else if !strings.HasPrefix(name, "x_") {
						v.add(p, envelope.SchemaInvalid)
						applied = true
					}
				}
			}
			visit("", schemaDoc, c.value)
			return applied
		},
	},
	{
		name: "strict-unknown-event-type",
		text: `cue/README.md All families: "Unknown event types in a known namespace (vermas, collector): warning; with --strict: ` +
			`SCHEMA_INVALID" (rule CL011, a document rule: it runs on every record that is well-formed JSON)`,
		apply: func(c sample, v *verdict) bool {
			t, _ := c.value["event_type"].(string)
			if _, known := rules.CollectorEventTypes[t]; !c.strict || known || !eventTypePattern.MatchString(t) {
				return false
			}
			v.add("/event_type", envelope.SchemaInvalid)
			return true
		},
	},
}

var eventTypePattern = regexp.MustCompile(`^(lifecycle|activity|coordination|hook|decision|system)\.[a-z_]+$`)

// walkDeclared calls fn for every value of val that the schema declares a
// property schema for, recursively.
func walkDeclared(sch map[string]any, val any, ptr string, fn func(string, map[string]any, any)) {
	props, _ := sch["properties"].(map[string]any)
	obj, ok := val.(map[string]any)
	if !ok {
		return
	}
	for name, x := range obj {
		if ps, ok := props[name].(map[string]any); ok {
			p := ptr + "/" + escape(name)
			fn(p, ps, x)
			walkDeclared(ps, x, p, fn)
		}
	}
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// mutationSeeds are the valid collector records the mutation set starts from.
var mutationSeeds = []string{
	"testdata/agreement/collector/events-2025-12-13.jsonl", // every field of the schema
	"testdata/seeds/collector/events-2025-12-13.jsonl",     // seed 004, lifecycle namespace example
}

// values are the field-specific values of the mutation set: the edges of
// each field's constraints in both engines.
var values = map[string][]string{
	"version": {`"1.0"`, `"2.0.0"`, `"1"`, `"abc"`, `1`, `"1.0.0.0"`, `"01.0.0"`, `"1.0.0-rc.1"`, `"10.0.0"`, `"1.x.0"`, `"1.0.0\n"`},
	"event_type": {`"lifecycle.paused"`, `"foo.bar"`, `"lifecycle."`, `"lifecycle.Started"`, `"hook.stop"`, `"system.error"`,
		`"decision"`, `"hook.pre-tool-use"`},
	"timestamp": {`"2025-12-13T20:45:00"`, `"2025-12-13 20:45:00Z"`, `"2025-12-13T20:45:00+0100"`, `"2025-12-13t20:45:00z"`,
		`"2016-12-31T23:59:60Z"`, `"2025-12-13T20:45:60Z"`, `"2017-01-01T00:59:60+01:00"`, `"2024-02-29T00:00:00Z"`,
		`"2025-02-29T00:00:00Z"`, `"2100-02-29T00:00:00Z"`, `"2000-02-29T00:00:00Z"`, `"2025-12-13T24:00:00Z"`, `"2025-12-13T20:45:00.Z"`,
		`"2025-12-13T20:45:00-00:00"`, `"2025-12-13T20:+0:00.000Z"`, `"2025-12-13T+1:45:00Z"`},
	"agent_id": {`"é"`, `" "`},
	"event_id": {`"550E8400-E29B-41D4-A716-446655440000"`, `"550e8400e29b41d4a716446655440000"`, `"{550e8400-e29b-41d4-a716-446655440000}"`,
		`"550e8400-e29b-41d4-a716-44665544000"`, `"550e8400-e29b-41d4-a716-44665544000g"`},
	"progress":    {`0`, `1`, `1.0`, `1.0000000000000001`, `-0`, `1e-400`, `2`, `"0.5"`, `0.5e0`, `1e400`, `-1e-400`, `0.99999999999999999999`},
	"duration_ms": {`1`, `1.0`, `1e2`, `-5`, `1.5`, `9007199254740993`, `1E0`, `1e400`},
	"source":      {`"cli"`, `"MCP"`},
	"status":      {`"done"`, `"completed"`, `"started"`},
}

const combinations = 1000

// cases returns every collector record under testdata/ and the mutation set.
func cases(t *testing.T) []sample {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	var out []sample
	add := func(id string, raw []byte) {
		for _, strict := range []bool{false, true} {
			r := sample{id: fmt.Sprintf("%s strict=%v", id, strict), raw: raw, strict: strict}
			_ = jsonUnmarshal(raw, &r.value)
			out = append(out, r)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if k := kind.ByGlob(rel); k == nil || k.Name != "collector/event" {
			return nil
		}
		for i, line := range bytes.Split(mustRead(p), []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) > 0 {
				add(fmt.Sprintf("file %s:%d", rel, i+1), line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	nFiles := len(out)
	for _, s := range mutationSeeds {
		raw := bytes.SplitN(bytes.TrimSpace(mustRead(filepath.Join(root, s))), []byte("\n"), 2)[0]
		ms, err := mutate.Generate(raw, mutate.Options{Replacements: mutate.Replacements, Values: values,
			Added: []string{"zz", "x_zz", ""}, Combinations: combinations})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			add("mutation "+s+" "+m.Name, m.Raw)
		}
	}
	if nFiles < 2*14 {
		t.Fatalf("only %d collector records under testdata/ (the seeds alone have 14)", nFiles/2)
	}
	t.Logf("%d records from testdata/, %d mutations", nFiles/2, (len(out)-nFiles)/2)
	return out
}

// TestThreeEngines is the agreement test described at the top of the file.
func TestThreeEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the three engines on every file and mutation (~6 s) runs in `make test`")
	}
	js, err := jsonschema.New()
	if err != nil {
		t.Fatal(err)
	}
	cue, err := cueeval.New()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	all := cases(t)
	type result struct {
		diff    string
		clauses []string
	}
	results := make([]result, len(all))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i].diff, results[i].clauses = compare(js, cue, all[i])
			}
		}()
	}
	for i := range all {
		work <- i
	}
	close(work)
	wg.Wait()
	used := map[string]int{}
	failed := 0
	for i, r := range results {
		for _, c := range r.clauses {
			used[c]++
		}
		if r.diff != "" {
			failed++
			if failed <= 25 {
				t.Errorf("%s\n    payload: %s\n%s", all[i].id, all[i].raw, r.diff)
			}
		}
	}
	if failed > 25 {
		t.Errorf("... and %d more disagreements", failed-25)
	}
	for _, c := range clauses {
		if used[c.name] == 0 {
			t.Errorf("clause %s was never needed: no case exercises %s", c.name, c.text)
		}
		t.Logf("clause %-26s applied to %4d runs: %s", c.name, used[c.name], c.text)
	}
	t.Logf("compared %d runs in %v", len(all), time.Since(start).Round(time.Millisecond))
}

// compare returns a description of a disagreement ("" if none) and the
// clauses that were applied to the JSON Schema verdict.
func compare(js *jsonschema.Engine, cue *cueeval.Engine, c sample) (string, []string) {
	now := time.Date(2025, 12, 14, 0, 0, 0, 0, time.UTC)
	product := func(e record.SchemaEngine) (verdict, []envelope.Violation) {
		vs, _ := record.NewValidator(record.Options{Strict: c.strict, Now: now}, e).Record("collector/event", "events-2025-12-13.jsonl", c.raw, 1)
		vs = append([]envelope.Violation(nil), vs...)
		return judge(vs), vs
	}
	fastV, fastVs := product(nil)
	cueV, cueVs := product(cue)
	if fastV.key() != cueV.key() {
		return fmt.Sprintf("    fast: %s%s\n    cue:  %s%s", fastV, list(fastVs), cueV, list(cueVs)), nil
	}
	jsVs := fill(js.Validate("collector/event", c.raw))
	jsV := judge(jsVs)
	want := jsV
	want.pointers = map[string]envelope.Code{}
	for p, code := range jsV.pointers {
		want.pointers[p] = code
	}
	var applied []string
	if !isParse(jsVs) {
		for _, cl := range clauses {
			if cl.apply(c, &want) {
				applied = append(applied, cl.name)
			}
		}
	}
	if want.key() != fastV.key() {
		return fmt.Sprintf("    product (fast and cue): %s%s\n    JSON Schema: %s%s\n    JSON Schema + clauses %q: %s",
			fastV, list(fastVs), jsV, list(jsVs), applied, want), applied
	}
	return "", applied
}

func isParse(vs []envelope.Violation) bool { return len(vs) == 1 && vs[0].Parse }

func list(vs []envelope.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n        %s %s %s %q %s", v.Severity, v.Code, v.Rule, v.Pointer, v.Reason)
	}
	return b.String()
}

func mustRead(p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	return b
}
