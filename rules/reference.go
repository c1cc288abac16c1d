package rules

import (
	"fmt"
	"strings"
)

// Reference returns the rule reference, rules/README.md: a Markdown page
// with a table of every rule of the registry (ID, name, code, default
// severity, kinds) and, per rule, its summary, source, scope and examples,
// as `agentlint explain ID` prints them (Explain). It is generated from the
// registry, the one place a rule is defined, and a test holds the committed
// page equal to it (go test ./rules -run TestReference -update rewrites it).
func Reference() string {
	var b strings.Builder
	b.WriteString("# Rule reference\n\n")
	b.WriteString("Generated from the rule registry (`rules/registry.go` and the `rule_*.go` files) by `rules.Reference`;\n")
	b.WriteString("`go test ./rules -run TestReference -update` rewrites it, and the test fails when it is stale.\n")
	b.WriteString("`agentlint rules` lists the same rules and `agentlint explain ID` prints one of them.\n")
	b.WriteString("Every example below is run by the tests: the failing one must violate its rule, the passing one must not.\n\n")
	all := All()
	fmt.Fprintf(&b, "%d rules.\n\n| rule | name | code | severity | kinds |\n|---|---|---|---|---|\n", len(all))
	for _, r := range all {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Name, r.Code, r.Severity, cell(strings.Join(r.Kinds, ", ")))
	}
	for _, r := range all {
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s```\n", r.ID, Explain(r))
	}
	return b.String()
}

// cell escapes the characters that end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
