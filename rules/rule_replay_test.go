package rules

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReplayRuleMetadata checks the registry entries of the replayer's rules:
// each has a code, a kebab-case name, a one-line summary, a source, and a
// failing and a passing example that are txtar archives of a replay's inputs
// (BASE named base.*). lint/replay's tests replay the examples.
func TestReplayRuleMetadata(t *testing.T) {
	n := 0
	for _, r := range All() {
		if !strings.HasPrefix(r.ID, "RP") {
			continue
		}
		n++
		if r.Check != nil {
			t.Errorf("%s: a replay rule is not a document rule", r.ID)
		}
		if !opKebab.MatchString(r.Name) || r.Summary == "" || strings.Contains(r.Summary, "\n") || r.Source == "" {
			t.Errorf("%s: name %q, summary %q, source %q", r.ID, r.Name, r.Summary, r.Source)
		}
		if r.ExampleKind != ReplayKind || !r.AppliesTo(ReplayKind) {
			t.Errorf("%s: ExampleKind %q, Kinds %v: want %q", r.ID, r.ExampleKind, r.Kinds, ReplayKind)
		}
		for _, ex := range []string{r.Example, r.Fixed} {
			a := txtar.Parse([]byte(ex))
			if len(a.Files) == 0 || !strings.HasPrefix(a.Files[0].Name, "base.") || len(a.Comment) != 0 {
				t.Errorf("%s: example is not a txtar archive starting with base.*:\n%s", r.ID, ex)
			}
		}
	}
	if n != 8 {
		t.Errorf("%d RP rules, want 8", n)
	}
}

func TestReplayExample(t *testing.T) {
	got := ReplayExample("base.json", "[]", "s.jsonl", "{}\n")
	if want := "-- base.json --\n[]\n-- s.jsonl --\n{}\n"; got != want {
		t.Errorf("ReplayExample = %q, want %q", got, want)
	}
}

// TestCheckStep: the state machine's verdict on a status and owner change
// (the edges themselves are tested by Transition's table).
func TestCheckStep(t *testing.T) {
	for _, c := range []struct {
		from, fromOwner, to, toOwner string
		want                         Step
	}{
		{"todo", "", "in_progress", "a", StepAllowed},
		{"todo", "", "todo", "b", StepAllowed},                // a refresh, not a transition
		{"in_progress", "a", "in_progress", "b", StepAllowed}, // a refresh
		{"todo", "", "done", "a", StepForbidden},
		{"canceled", "a", "todo", "a", StepForbidden}, // never reopened
		{"done", "a", "in_progress", "a", StepForbidden},
		{"done", "a", "done", "a", StepAllowed},
		{"failed", "a", "failed", "b", StepTerminalOwnerChange},
		{"canceled", "a", "canceled", "", StepTerminalOwnerChange},
		{"unknown", "", "todo", "", StepForbidden},
	} {
		if got := CheckStep(c.from, c.fromOwner, c.to, c.toOwner); got != c.want {
			t.Errorf("CheckStep(%s %q -> %s %q) = %d, want %d", c.from, c.fromOwner, c.to, c.toOwner, got, c.want)
		}
	}
}
