package rules

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// sectionRef is a numbered section ("section 4", "sections 4.1 and 5");
// citedSection is one that names its document: a seed ("seed 002 section
// 5") or an RFC ("RFC 3339 section 5.7"). The repository must stand alone,
// so a bare section number (of a document a clone does not have) is not a
// citation: the project's own docs are cited by file and heading instead
// ("README, Codes and precedence", `cue/README.md, operator, "Lock
// resources"`).
var (
	sectionRef   = regexp.MustCompile(`(?i)\bsections? [0-9]`)
	citedSection = regexp.MustCompile(`(?i)\b(seed 00[0-4]|RFC [0-9]+),? $`)
)

// bareSections returns the bare section citations of s, each with the text
// before it.
func bareSections(s string) []string {
	var bad []string
	for _, m := range sectionRef.FindAllStringIndex(s, -1) {
		before := s[max(0, m[0]-40):m[0]]
		if !citedSection.MatchString(before) {
			bad = append(bad, s[max(0, m[0]-40):min(len(s), m[1]+30)])
		}
	}
	return bad
}

func TestBareSections(t *testing.T) {
	for _, tc := range []struct {
		s    string
		bare bool
	}{
		{"seed 002 section 5 (iter 1-based)", false},
		{"seed 002 sections 4.1 and 4.4 (ISO 8601)", false},
		{"RFC 3339 section 5.7; cue/README.md, collector", false},
		{"README, Codes and precedence, LOCK_CONFLICT; section 4, operator", true},
		{"seed 002 section 1; README, Codes and precedence and section 4, idle", true},
		{"Section 3, TASK_TIMEOUT", true},
	} {
		if got := len(bareSections(tc.s)) > 0; got != tc.bare {
			t.Errorf("bareSections(%q): bare = %v, want %v", tc.s, got, tc.bare)
		}
	}
}

// TestSourcesCiteNamedDocuments: no rule's Source (what `agentlint rules`,
// `agentlint explain` and rules/README.md print) cites a section number
// without naming a seed or an RFC.
func TestSourcesCiteNamedDocuments(t *testing.T) {
	for _, r := range All() {
		for _, b := range bareSections(r.Source) {
			t.Errorf("%s: Source cites a bare section number: %q", r.ID, b)
		}
		for _, b := range bareSections(Explain(r)) {
			t.Errorf("%s: explain cites a bare section number: %q", r.ID, b)
		}
	}
	for _, b := range bareSections(Reference()) {
		t.Errorf("Reference(): bare section number: %q", b)
	}
	ref, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bareSections(string(ref)) {
		t.Errorf("rules/README.md: bare section number: %q", strings.ReplaceAll(b, "\n", " "))
	}
}
