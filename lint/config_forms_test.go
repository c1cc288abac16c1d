package lint

import (
	"regexp"
	"testing"
)

// TestDeclaredForms holds isNamespace and isEventType equal to the grammar
// they write out (seed 000's event types) on names near every edge.
func TestDeclaredForms(t *testing.T) {
	ns := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	et := regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)
	for _, s := range []string{"", "a", "task", "git_2", "Task", "1a", "_a", "a-b", "a.b", "task.created", "a.b.c",
		"a.", ".a", "a..b", "a.B", "a.1", "a.b_2", "é", "a .b", "system.audit"} {
		if got, want := isNamespace(s), ns.MatchString(s); got != want {
			t.Errorf("isNamespace(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := isEventType(s), et.MatchString(s); got != want {
			t.Errorf("isEventType(%q) = %v, regexp says %v", s, got, want)
		}
	}
}
