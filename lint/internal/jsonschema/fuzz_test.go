//go:build devtools

package jsonschema_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/agentlint/agentlint/lint/cueeval"
	"github.com/agentlint/agentlint/lint/internal/jsonschema"
)

// FuzzCollectorSchema: on any bytes taken as a collector event, strict and
// not, the product's verdict (fast path and CUE evaluator) equals seed 004's
// JSON Schema verdict with agentlint's stricter clauses applied (allow, code and
// the pointers of errors): TestThreeEngines' comparison on arbitrary input.
//
//	go test -run '^$' -fuzz FuzzCollectorSchema ./lint/jsonschema
func FuzzCollectorSchema(f *testing.F) {
	for _, name := range []string{"events-2025-12-13.jsonl", "decisions-2025-12-13.jsonl"} {
		data := mustRead(filepath.Join("..", "..", "..", "testdata", "seeds", "collector", name))
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(`{"version":"2.0.0"}`))
	f.Add([]byte(`{"version":1}`))
	js, err := jsonschema.New()
	if err != nil {
		f.Fatal(err)
	}
	cue, err := cueeval.New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, strict := range []bool{false, true} {
			r := sample{id: "fuzz", raw: raw, strict: strict}
			_ = jsonUnmarshal(raw, &r.value)
			if d, _ := compare(js, cue, r); d != "" {
				t.Fatalf("strict=%v: %s\n%s", strict, raw, d)
			}
		}
	})
}
