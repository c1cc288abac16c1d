package lint

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// TestRuleExamples runs every registry example through the engine: the
// failing example must violate its rule and the passing one must not, so
// `agentlint explain` never shows an example that lies.
func TestRuleExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.ExampleKind == "" || (r.Example == "" && r.Fixed == "") {
			continue
		}
		if r.ExampleKind == rules.ReplayKind {
			continue // replay examples are inputs of a replay, run by lint/replay's tests
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			if kind.Lookup(r.ExampleKind) == nil {
				t.Fatalf("example kind %q is not a kind", r.ExampleKind)
			}
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
			file := "example.json"
			if r.ExampleFile != "" {
				file = r.ExampleFile
			}
			has := func(doc string) bool {
				vs, _ := record.NewValidator(opts, nil).Document(r.ExampleKind, file, []byte(doc))
				if rules.Stream(r.ID) != nil {
					// A stream rule's examples are JSON Lines files.
					vs = lintViolations(t, opts, kind.Lookup(r.ExampleKind), doc)
				}
				for _, v := range vs {
					if v.Rule == r.ID {
						return true
					}
				}
				return false
			}
			if !has(r.Example) {
				t.Errorf("failing example does not violate %s:\n%s", r.ID, r.Example)
			}
			if has(r.Fixed) {
				t.Errorf("passing example violates %s:\n%s", r.ID, r.Fixed)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d rules have examples", n)
	}
}

// lintViolations lints data as one JSON Lines file of kind and returns the
// violations of every envelope.
func lintViolations(t *testing.T, opts record.Options, kind *kind.Kind, data string) []envelope.Violation {
	t.Helper()
	var vs []envelope.Violation
	_, err := Lint(func(yield func(Input) bool) {
		yield(Input{Path: "example.jsonl", Reader: strings.NewReader(data), Kind: kind})
	}, LintConfig{Options: opts, Jobs: 2, Emit: func(e envelope.Envelope) error {
		v, _ := e.Details["violations"].([]envelope.Violation)
		vs = append(vs, v...)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}
