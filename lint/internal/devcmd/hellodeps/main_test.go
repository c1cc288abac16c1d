//go:build devtools

package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// thirdParty lists the packages outside the standard library and outside
// agentlint's module that the Go package pkg links, as `go list -deps` sees
// them.
func thirdParty(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-tags", "devtools", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var ps []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "github.com/agentlint/agentlint") {
			ps = append(ps, p)
		}
	}
	return ps
}

// TestLinksWhatAgentlintLinks: the start-up floor links exactly the
// third-party packages agentlint links, so a dependency added to agentlint
// (or dropped) shows in the floor too.
func TestLinksWhatAgentlintLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	want := thirdParty(t, "github.com/agentlint/agentlint/cmd/agentlint")
	got := thirdParty(t, "github.com/agentlint/agentlint/lint/internal/devcmd/hellodeps")
	sort := func(s []string) []string { s = append([]string(nil), s...); slices.Sort(s); return s }
	if d := cmp.Diff(sort(want), sort(got)); d != "" {
		t.Errorf("hellodeps links other third-party packages than agentlint (-agentlint +hellodeps):\n%s", d)
	}
}
