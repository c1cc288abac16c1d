package rules

import (
	"strings"
	"testing"
)

// TestWorklogOutcome: an entry's result records a task status exactly when,
// trimmed and lowercased by strings.ToLower, it is one of the statuses (seed
// 001 "Artifact: Worklog Entry"; OP081, OP082), whatever shortcuts
// worklogOutcome takes for sentences and ASCII text.
func TestWorklogOutcome(t *testing.T) {
	ref := func(result string) string {
		r := strings.ToLower(strings.TrimSpace(result))
		for _, s := range TaskStatuses {
			if r == s {
				return s
			}
		}
		return ""
	}
	cases := []string{
		"done", "Done", " BLOCKED\n", "In_Progress", "canceled", "cancelled", "failed.", "",
		"blocked: waiting on T-3", "the tests are done and the task is blocked on review",
		"bloc\u212Aed",          // KELVIN SIGN lowercases to k: "blocked"
		"in_progre\u017f\u017f", // LATIN SMALL LETTER LONG S is not s: none
		"\u212A\u212A\u212A\u212A\u212A\u212A\u212A\u212A\u212A\u212A\u212A", // 33 bytes, lowercases to 11
		"DON\u0130", // DOTTED CAPITAL I lowercases to i + a combining dot: none
		"  todo  ", "TODO", "to do",
	}
	for _, c := range cases {
		if got, want := worklogOutcome(c), ref(c); got != want {
			t.Errorf("worklogOutcome(%q) = %q, want %q", c, got, want)
		}
	}
}
