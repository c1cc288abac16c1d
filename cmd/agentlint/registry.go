package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
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
		Use:   "explain ID|CODE",
		Short: "Explain a rule (with a failing and a passing example) or a code",
		Long: `Explain a rule (its code, severity, kinds, source, and a failing and a
passing example) or a code (the rules that report it). The page is text,
also when piped (--format auto); --format json prints it as one JSON object:
id, name, code, severity, kinds, summary, source, example {kind, options,
file, failing, passing}, example_tree; or, for a code, code and rules.`,
		Example:           "  agentlint explain OP014\n  agentlint explain LOCK_CONFLICT\n  agentlint explain --format json OP014",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeExplain,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := a.printer(); err != nil {
				return err
			}
			// A page for people: auto is text even when piped.
			asJSON := a.g.format == "json" && cmd.Flag("format").Changed
			id := strings.TrimSpace(args[0])
			if r := rules.Lookup(strings.ToUpper(id)); r != nil {
				if asJSON {
					return writeJSONLine(a.stdout, explainJSON(r))
				}
				fmt.Fprint(a.stdout, rules.Explain(r))
				return nil
			}
			code := envelope.Code(strings.ToUpper(id))
			if envelope.Valid(code) && asJSON {
				return writeJSONLine(a.stdout, codeJSON(code))
			}
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
				for _, k := range kind.All {
					if err := writeJSONLine(a.stdout, map[string]any{"kind": k.Name, "seed": k.Seed, "format": k.Format, "globs": nonNilStrings(k.Globs), "sniff": k.Sniff}); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tSEED\tFORMAT\tGLOBS\tSNIFF")
			for _, k := range kind.All {
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
