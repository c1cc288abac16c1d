package rules

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateReference = flag.Bool("update", false, "rewrite rules/README.md from the registry")

// TestReference holds rules/README.md equal to Reference(): every rule of
// the registry, documented from the registry itself.
func TestReference(t *testing.T) {
	want := Reference()
	if *updateReference {
		if err := os.WriteFile("README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatalf("%v (go test ./rules -run TestReference -update writes it)", err)
	}
	if string(got) != want {
		t.Errorf("rules/README.md is stale: go test ./rules -run TestReference -update")
	}
	for _, r := range All() {
		if !strings.Contains(string(got), "\n## "+r.ID+"\n") {
			t.Errorf("rules/README.md has no section for %s", r.ID)
		}
	}
}
