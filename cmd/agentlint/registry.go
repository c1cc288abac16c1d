package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules"
)

func (a *app) rulesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "rules",
		Short:   "List every rule: ID, code, severity, kinds and summary",
		Example: "  agentlint rules\n  agentlint rules --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.printer(); err != nil {
				return err
			}
			if a.g.format == "json" {
				for _, r := range rules.All() {
					m := map[string]any{
						"id": r.ID, "name": r.Name, "code": r.Code, "severity": r.Severity,
						"kinds": r.Kinds, "summary": r.Summary, "source": r.Source,
					}
					if r.Scope != "" {
						m["scope"] = r.Scope
					}
					if err := writeJSONLine(a.stdout, m); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tCODE\tSEVERITY\tSUMMARY")
			for _, r := range rules.All() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Code, r.Severity, r.Summary)
			}
			return tw.Flush()
		},
	}
}

func (a *app) explainCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "explain ID|CODE",
		Short:   "Explain a rule (with a failing and a passing example) or a code",
		Example: "  agentlint explain OP014\n  agentlint explain LOCK_CONFLICT",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := strings.TrimSpace(args[0])
			if r := rules.Lookup(strings.ToUpper(id)); r != nil {
				fmt.Fprint(a.stdout, explainRule(r))
				return nil
			}
			code := envelope.Code(strings.ToUpper(id))
			if envelope.Valid(code) {
				rs := rules.ByCode(code)
				fmt.Fprintf(a.stdout, "%s\n\nRules with this code:\n", code)
				if len(rs) == 0 {
					fmt.Fprintln(a.stdout, "  (none yet)")
				}
				for _, r := range rs {
					fmt.Fprintf(a.stdout, "  %s  %-28s %s\n", r.ID, r.Name, r.Summary)
				}
				return nil
			}
			return &usageError{Code: envelope.MissingValidator, Reason: fmt.Sprintf("no rule or code %q (agentlint rules lists them)", id)}
		},
	}
}

func explainRule(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n\n%s\n\n", r.ID, r.Name, r.Summary)
	fmt.Fprintf(&b, "code:     %s\nseverity: %s\nkinds:    %s\nsource:   %s\n", r.Code, r.Severity, strings.Join(r.Kinds, ", "), r.Source)
	if r.Scope != "" {
		fmt.Fprintf(&b, "scope:    %s\n", r.Scope)
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

func (a *app) kindsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "kinds",
		Short: "List every kind with its built-in globs and sniffing keys",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.printer(); err != nil {
				return err
			}
			if a.g.format == "json" {
				for _, k := range lint.Kinds {
					if err := writeJSONLine(a.stdout, map[string]any{"kind": k.Name, "seed": k.Seed, "format": k.Format, "globs": nonNilStrings(k.Globs), "sniff": k.Sniff}); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tSEED\tFORMAT\tGLOBS\tSNIFF")
			for _, k := range lint.Kinds {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Name, k.Seed, k.Format, strings.Join(k.Globs, " "), k.Sniff)
			}
			return tw.Flush()
		},
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
