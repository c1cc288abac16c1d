package rules

import (
	"fmt"
	"strings"
)

// Explain returns the text `agentlint explain ID` prints for r: ID and
// name, summary, code, default severity, kinds, source (seed section or
// project doc), and the failing and passing examples of the registry
// (or where the golden trees of a tree rule live). The SARIF output uses it
// as each rule's help text, so both say the same.
func Explain(r *Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n\n%s\n\n", r.ID, r.Name, r.Summary)
	fmt.Fprintf(&b, "code:     %s\nseverity: %s\nkinds:    %s\nsource:   %s\n", r.Code, r.Severity, strings.Join(r.Kinds, ", "), r.Source)
	if r.Scope != "" {
		fmt.Fprintf(&b, "scope:    %s\n", r.Scope)
	}
	if why := r.NotInJSONSchema(); why != "" {
		fmt.Fprintf(&b, "JSON Schema: %s (agentlint schema export)\n", why)
	}
	if r.Example != "" || r.Fixed != "" {
		opt := ""
		if len(r.Options) > 0 {
			opt = " " + strings.Join(r.Options, " ")
		}
		if r.ExampleFile != "" {
			opt += ", file " + r.ExampleFile
		}
		fmt.Fprintf(&b, "\nFailing example (%s%s):\n%s\n", r.ExampleKind, opt, indent(r.Example))
		fmt.Fprintf(&b, "\nPassing example:\n%s\n", indent(r.Fixed))
	}
	if r.ExampleTree != "" {
		fmt.Fprintf(&b, "\nExamples (across files): a failing tree in %s/fail/ and a passing one in %s/pass/ of the agentlint repository,\n"+
			"each with want.txt, the output of `agentlint lint --format text` on it.\n", r.ExampleTree, r.ExampleTree)
	}
	return b.String()
}

func indent(s string) string {
	if s == "" {
		return "    (empty)"
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
