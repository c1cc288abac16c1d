//go:build devtools

package schemaexport_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	js "github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/internal/mutate"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/lint/schemaexport"
	"github.com/agentlint/agentlint/rules"
)

// The agreement test: every JSON record under testdata/ (the golden cases
// of every family, the agreement corpus, the demo, the stream examples and
// the seeds), in both modes, is judged by the exported JSON Schema
// (santhosh-tekuri/jsonschema/v5, draft 2020-12, formats asserted) and by
// agentlint's per-record validation (record.Validator: the fast path and the
// document rules). The verdicts (allow) must agree, except where agentlint
// denies only under rules the JSON Schema does not express: every such rule
// is named by the registry (rules.Rule.NotInJSONSchema), and partial rules
// only for the part the table below names.

// partial names, for the schema rules the JSON Schema expresses only in
// part, the violations that fall in the part it does not express (the
// rule's registry text, rules.Rule.JSONSchema, says why).
var partial = map[string]func(v envelope.Violation) bool{
	// heartbeat_interval_seconds < timeout_seconds compares two fields.
	"OP014": func(v envelope.Violation) bool { return strings.Contains(v.Reason, "must be < timeout_seconds") },
	// Duplicate keys, lone surrogates, nesting: the JSON reader's, before any schema.
	"AL001": func(envelope.Violation) bool { return true },
}

// integerText reports a violation of an integer field written with a
// fraction or exponent (1200.0): whatever the field's rule, that part is
// AL003's (JSON Schema's "integer" accepts 1200.0).
func integerText(v envelope.Violation) bool {
	return strings.Contains(v.Reason, "not a number with a fraction or exponent")
}

// expressible reports whether the JSON Schema is expected to catch v, and
// if not, which rule's registry text says why.
func expressible(v envelope.Violation) (bool, string) {
	if integerText(v) {
		return false, v.Rule + " (integer text): " + rules.Lookup("AL003").NotInJSONSchema()
	}
	r := rules.Lookup(v.Rule)
	if r == nil {
		return true, ""
	}
	if match, ok := partial[v.Rule]; ok && !match(v) {
		return true, ""
	}
	if why := r.NotInJSONSchema(); why != "" {
		return false, v.Rule + ": " + why
	}
	return true, ""
}

type sample struct {
	id, kind, file string
	raw            []byte
}

// records returns every record under testdata/: JSON documents, JSON Lines
// records, and TOML templates and assignment files in their JSON form
// (record.JSONForm: what their schema judges; left out when they have none).
func records(t *testing.T) []sample {
	t.Helper()
	var out []sample
	err := filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "testdata/script/") || strings.HasPrefix(rel, "testdata/bench/") {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		k := kind.ByGlob(rel)
		if k == nil && (strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, ".jsonl")) {
			k = kind.Sniff(raw)
		}
		if k == nil {
			return nil
		}
		if k.Format == kind.FormatTOML || k.Format == kind.FormatText {
			if js := record.JSONForm(k, raw); js != nil {
				out = append(out, sample{rel, k.Name, rel, js})
			}
			return nil
		}
		if k.Format == kind.FormatJSON && !strings.HasSuffix(rel, ".jsonl") {
			out = append(out, sample{rel, k.Name, rel, raw})
			return nil
		}
		for i, line := range bytes.Split(raw, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, sample{fmt.Sprintf("%s:%d", rel, i+1), k.Name, rel, line})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func schemas(t *testing.T, strict bool) map[string]*js.Schema {
	out := map[string]*js.Schema{}
	for _, k := range schemaexport.Kinds() {
		src, err := schemaexport.JSONSchema(k, strict)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = compile(t, schemaexport.FileName(k, strict), src)
	}
	return out
}

func TestAgreement(t *testing.T) {
	recs := records(t)
	families := map[string]int{}
	for _, r := range recs {
		families[r.kind]++
	}
	for _, f := range schemaexport.Kinds() {
		if families[f] == 0 {
			t.Errorf("no %s record under testdata/", f)
		}
	}
	agree(t, recs, "testdata")
}

// TestAgreementMutations runs the agreement on mutations of one valid
// record of each kind under testdata/ (every member deleted, replaced by
// values of every type and by the edges of date-times, or added).
func TestAgreementMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the exported schemas against the engine on every mutation (~2 s) runs in `make test`")
	}
	val := record.NewValidator(record.Options{Now: agreeNow}, nil)
	done := map[string]bool{}
	var muts []sample
	for _, r := range records(t) {
		if done[r.kind] {
			continue
		}
		if vs, _ := val.Record(r.kind, r.file, r.raw, 1); envelope.HasErrors(vs) {
			continue
		}
		done[r.kind] = true
		ms, err := mutate.Generate(r.raw, mutate.Options{Replacements: mutate.Replacements, Values: mutationValues, Combinations: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			muts = append(muts, sample{r.id + " " + m.Name, r.kind, r.file, m.Raw})
		}
	}
	why := agree(t, muts, "mutations")
	for _, want := range []string{"(integer text)", "format date-time"} {
		found := false
		for k := range why {
			found = found || strings.Contains(k, want)
		}
		if !found {
			t.Errorf("no mutation exercised the expected difference %q", want)
		}
	}
}

// mutationValues are the date-time edges, set on every member of these names.
var mutationValues = func() map[string][]string {
	edges := []string{`"2016-12-31T23:59:60Z"`, `"2025-12-13T20:45:60Z"`, `"2025-02-29T00:00:00Z"`, `"2024-02-29T00:00:00Z"`,
		`"2025-12-13t20:45:00z"`, `"2025-12-13T20:45:00+00:00"`, `"2025-12-13T20:45:00+01:00"`, `"2025-12-13T20:45:00"`, `"2025-12-13 20:45:00Z"`}
	m := map[string][]string{}
	for _, f := range []string{"timeout_seconds", "heartbeat_interval_seconds", "priority", "schema", "version", "iter", "max", "criteria_failed"} {
		m[f] = []string{`1200.0`, `1e3`, `4.0`, `1E0`}
	}
	for _, f := range []string{"timestamp", "generated_at", "ts", "now", "last_heartbeat_at", "last_heartbeat", "created_at", "updated_at", "updated_at", "started_at", "completed_at"} {
		m[f] = edges
	}
	return m
}()

// leapSecondWhy is the one expected difference where the JSON Schema denies
// what agentlint allows.
const leapSecondWhy = `JSON Schema's format date-time (RFC 3339 section 5.7) takes second 60 only at 23:59:60 UTC; ` +
	`agentlint accepts any :60 (cue/README.md, All families: "leap second :60 accepted"), and holds collector ` +
	`timestamps to the format by rule CL013`

// leapSecondsMoved returns v with every date-time string whose second is
// 60 set to second 59.
func leapSecondsMoved(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = leapSecondsMoved(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = leapSecondsMoved(e)
		}
		return out
	case string:
		if len(x) >= 19 && (x[10] == 'T' || x[10] == 't') && x[16] == ':' && x[17:19] == "60" {
			return x[:17] + "59" + x[19:]
		}
	}
	return v
}

var agreeNow = time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)

// agree compares the verdicts of recs in both modes (see the top of the file).
// It returns the expected differences: why → records.
func agree(t *testing.T, recs []sample, what string) map[string]int {
	t.Helper()
	why := map[string]int{} // "RULE: why" → records
	agreed, differed := 0, 0
	for _, strict := range []bool{false, true} {
		sch := schemas(t, strict)
		val := record.NewValidator(record.Options{Strict: strict, Now: agreeNow}, nil)
		for _, r := range recs {
			vs, _ := val.Record(r.kind, r.file, r.raw, 1)
			var errs []envelope.Violation
			for _, v := range vs {
				if v.Severity == envelope.SeverityError {
					errs = append(errs, v)
				}
			}
			engineAllow := len(errs) == 0
			value, derr := decode(r.raw)
			schemaAllow := false
			var serr error
			if derr == nil {
				serr = sch[r.kind].Validate(value)
				schemaAllow = serr == nil
			}
			if engineAllow == schemaAllow {
				agreed++
				continue
			}
			id := fmt.Sprintf("%s (%s, strict=%v)", r.id, r.kind, strict)
			if engineAllow {
				if derr == nil && sch[r.kind].Validate(leapSecondsMoved(value)) == nil {
					// The one place the JSON Schema is stricter: see leapSecondWhy.
					why["format date-time: "+leapSecondWhy]++
					differed++
					continue
				}
				t.Errorf("%s: agentlint allows, the JSON Schema denies: %v\n    %s", id, serr, r.raw)
				continue
			}
			var reasons []string
			for _, v := range errs {
				ok, w := expressible(v)
				if ok {
					t.Errorf("%s: the JSON Schema allows, agentlint denies under %s, which the schema expresses: %s [%s]\n    %s", id, v.Rule, v.Reason, v.Pointer, r.raw)
					reasons = nil
					break
				}
				reasons = append(reasons, w)
			}
			for _, w := range reasons {
				why[w]++
			}
			differed++
		}
	}
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("expected difference, %4d records: %s", why[k], k)
	}
	t.Logf("%s: %d records × 2 modes: %d verdicts agree, %d differ only by rules JSON Schema cannot express", what, len(recs), agreed, differed)
	return why
}

// TestCollectorEqualsSeedSchema: on every collector record under testdata/
// and a mutation corpus of them, the exported collector/event schema gives
// the verdict of seed 004's own JSON Schema (cue/collector.schema.json,
// draft-07), except where agentlint is stricter than the seed, each
// named: a version whose major is not 1 (README, Codes and precedence,
// UNKNOWN_SCHEMA_VERSION, rule CL001).
func TestCollectorEqualsSeedSchema(t *testing.T) {
	seedSrc, err := os.ReadFile(filepath.Join(root, "cue", "collector.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	c.Draft = js.Draft7
	c.AssertFormat = true
	if err := c.AddResource("seed004.json", bytes.NewReader(seedSrc)); err != nil {
		t.Fatal(err)
	}
	seed, err := c.Compile("seed004.json")
	if err != nil {
		t.Fatal(err)
	}
	exported := schemas(t, false)["collector/event"]
	var raws [][]byte
	for _, r := range records(t) {
		if r.kind == "collector/event" {
			raws = append(raws, r.raw)
		}
	}
	nFiles := len(raws)
	for _, s := range []string{"testdata/agreement/collector/events-2025-12-13.jsonl", "testdata/seeds/collector/events-2025-12-13.jsonl"} {
		b, err := os.ReadFile(filepath.Join(root, s))
		if err != nil {
			t.Fatal(err)
		}
		first := bytes.SplitN(bytes.TrimSpace(b), []byte("\n"), 2)[0]
		ms, err := mutate.Generate(first, mutate.Options{Replacements: mutate.Replacements, Values: collectorValues,
			Added: []string{"zz", "x_zz", ""}, Combinations: 300})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			raws = append(raws, m.Raw)
		}
	}
	majorNot1 := 0
	for _, raw := range raws {
		v, err := decode(raw)
		if err != nil {
			continue // not JSON: neither schema judges it
		}
		seedOK, expOK := seed.Validate(v) == nil, exported.Validate(v) == nil
		if seedOK == expOK {
			continue
		}
		if seedOK && !expOK && versionMajorNot1(v) {
			majorNot1++
			continue
		}
		t.Errorf("seed 004 schema valid=%v, exported valid=%v: %s", seedOK, expOK, raw)
	}
	if majorNot1 == 0 {
		t.Error("no record exercised the version-major difference (CL001)")
	}
	t.Logf("%d collector records of testdata/, %d mutations; %d differ only by a version major other than 1 (CL001)", nFiles, len(raws)-nFiles, majorNot1)
}

func versionMajorNot1(v any) bool {
	m, _ := v.(map[string]any)
	s, ok := m["version"].(string)
	return ok && !(s == "1" || strings.HasPrefix(s, "1."))
}

// collectorValues are the mutation values of the collector fields: the
// edges of each field's constraints.
var collectorValues = map[string][]string{
	"version":    {`"1.0"`, `"2.0.0"`, `"1"`, `"abc"`, `1`, `"1.0.0.0"`, `"10.0.0"`, `"1.0.0\n"`, `null`},
	"event_type": {`"lifecycle.paused"`, `"foo.bar"`, `"lifecycle."`, `"lifecycle.Started"`, `"decision"`, `null`},
	"timestamp": {`"2025-12-13T20:45:00"`, `"2025-12-13 20:45:00Z"`, `"2025-12-13t20:45:00z"`, `"2016-12-31T23:59:60Z"`,
		`"2025-02-29T00:00:00Z"`, `"2000-02-29T00:00:00Z"`, `"2025-12-13T24:00:00Z"`, `"2025-12-13T20:45:00-00:00"`},
	"agent_id":    {`"é"`, `""`, `null`},
	"event_id":    {`"550E8400-E29B-41D4-A716-446655440000"`, `"550e8400e29b41d4a716446655440000"`, `"550e8400-e29b-41d4-a716-44665544000"`},
	"progress":    {`0`, `1`, `1.0000000000000001`, `-0`, `2`, `"0.5"`, `1e400`},
	"duration_ms": {`1`, `1.5`, `-5`, `9007199254740993`},
	"source":      {`"cli"`, `"MCP"`},
	"status":      {`"done"`, `"completed"`},
}
