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

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/schemaexport"
	"github.com/agentlint/agentlint/rules"
)

// The agreement test: every JSON record under testdata/ (the golden cases
// of every family, the agreement corpus, the demo, the stream examples and
// the seeds), in both modes, is judged by the exported JSON Schema
// (santhosh-tekuri/jsonschema/v5, draft 2020-12, formats asserted) and by
// agentlint's per-record validation (lint.Validator: the fast path and the
// document rules). The verdicts (allow) must agree, except where agentlint
// denies only under rules the JSON Schema does not express: every such rule
// is named by the registry (rules.Rule.NotInJSONSchema), and partial rules
// only for the part the table below names.

// partial names, for the schema rules the JSON Schema expresses only in
// part, the violations that fall in the part it does not express.
var partial = map[string]struct {
	why   string
	match func(v envelope.Violation) bool
}{
	"OP014": {"heartbeat_interval_seconds < timeout_seconds compares two fields", func(v envelope.Violation) bool {
		return strings.Contains(v.Reason, "timeout_seconds")
	}},
	"AL003": {`an integer written with a fraction or exponent (1200.0): JSON Schema's "integer" accepts it`, func(v envelope.Violation) bool {
		return strings.Contains(v.Reason, "integer")
	}},
	"AL001": {"duplicate keys, lone surrogates and the nesting limit are the JSON reader's, before any schema", func(envelope.Violation) bool { return true }},
}

// expressible reports whether the JSON Schema is expected to catch v, and
// if not, why.
func expressible(v envelope.Violation) (bool, string) {
	r := rules.Lookup(v.Rule)
	if r == nil {
		return true, ""
	}
	if p, ok := partial[v.Rule]; ok {
		if p.match(v) {
			return false, p.why
		}
		return true, ""
	}
	if why := r.NotInJSONSchema(); why != "" {
		return false, why
	}
	return true, ""
}

type record struct {
	id, kind, file string
	raw            []byte
}

// records returns every JSON record under testdata/ whose kind is read as
// JSON (TOML templates and text assignment files are converted by agentlint
// first and are left out).
func records(t *testing.T) []record {
	t.Helper()
	var out []record
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
		k := lint.GlobKind(rel)
		if k == nil && (strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, ".jsonl")) {
			k = lint.Sniff(raw)
		}
		if k == nil || (k.Format != lint.FormatJSON && k.Format != lint.FormatJSONL) {
			return nil
		}
		if k.Format == lint.FormatJSON && !strings.HasSuffix(rel, ".jsonl") {
			out = append(out, record{rel, k.Name, rel, raw})
			return nil
		}
		for i, line := range bytes.Split(raw, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, record{fmt.Sprintf("%s:%d", rel, i+1), k.Name, rel, line})
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
		families[strings.SplitN(r.kind, "/", 2)[0]]++
	}
	for _, f := range []string{"operator", "vermas", "idle", "ledger", "collector"} {
		if families[f] == 0 {
			t.Fatalf("no %s record under testdata/", f)
		}
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	why := map[string]int{} // "RULE: why" → records
	agreed, differed := 0, 0
	for _, strict := range []bool{false, true} {
		sch := schemas(t, strict)
		val := lint.NewValidator(lint.Options{Strict: strict, Now: now}, nil)
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
				t.Errorf("%s: agentlint allows, the JSON Schema denies: %v", id, serr)
				continue
			}
			var reasons []string
			for _, v := range errs {
				ok, w := expressible(v)
				if ok {
					t.Errorf("%s: the JSON Schema allows, agentlint denies under %s, which the schema expresses: %s [%s]", id, v.Rule, v.Reason, v.Pointer)
					reasons = nil
					break
				}
				reasons = append(reasons, v.Rule+": "+w)
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
	t.Logf("%d records × 2 modes: %d verdicts agree, %d differ only by rules JSON Schema cannot express", len(recs), agreed, differed)
}
