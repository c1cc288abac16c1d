//go:build devtools

package main

import (
	"testing"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/cueeval"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestEmptyPayloadBothEngines: a payload of only a byte-order mark (and
// white space) is SCHEMA_INVALID "empty payload" for every JSON Lines kind,
// with the fast path and with the CUE evaluator (agentlint-cue runs the
// same code).
func TestEmptyPayloadBothEngines(t *testing.T) {
	cue, err := cueeval.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []struct {
		name string
		e    record.SchemaEngine
	}{{"fast", nil}, {"cue", cue}} {
		for _, k := range kind.All {
			if k.Format != kind.FormatJSONL {
				continue
			}
			for _, payload := range []string{"\ufeff", "\ufeff \n\t\n", "\ufeff\r\n"} {
				vs := lint.PayloadViolations(kind.Lookup(k.Name), "-", []byte(payload), record.Options{}, eng.e)
				env := envelope.Verdict(vs, k.OKReason, nil)
				if env.Allow || env.Code != envelope.SchemaInvalid || env.Reason != "empty payload" {
					t.Errorf("%s engine, %s, %q: got %v %s %q, want SCHEMA_INVALID empty payload", eng.name, k.Name, payload, env.Allow, env.Code, env.Reason)
				}
			}
		}
	}
}
