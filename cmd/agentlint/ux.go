package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/rules"
)

// outputFormats are the values --format takes, for its help and shell
// completion ("auto" first: the default).
var outputFormats = []string{"auto", "json", "text", "github", "sarif", "junit", "markdown"}

// formatHelp is the usage line of --format.
const formatHelp = "output format: auto (text at a terminal, JSON Lines otherwise), json (JSON Lines), text, github (GitHub Actions annotations), sarif (SARIF 2.1.0), junit (JUnit XML) or markdown (GitHub job summary)"

// resolveFormat returns the format that format stands for: `auto` is text
// when stdout is a terminal and json (JSON Lines) otherwise, so that
// scripts and orchestrators reading a pipe see the JSON they always saw;
// other values are returned as they are (output.New checks them).
func resolveFormat(format string, stdout io.Writer) string {
	if format != "auto" {
		return format
	}
	if isTerminal(stdout) {
		return "text"
	}
	return "json"
}

// isTerminal reports whether v is an *os.File open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// flagWants says, for a bad flag value, what the flag takes.
func flagWants(f *pflag.Flag) string {
	switch f.Name {
	case "jobs":
		return "a whole number of workers"
	case "max-warnings":
		return "a whole number of warnings (-1: no limit)"
	}
	switch f.Value.Type() {
	case "int", "int64", "uint":
		return "a whole number"
	case "duration":
		return "a duration such as 90s, 2m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a " + f.Value.Type()
}

// flagError turns pflag's parse errors into sentences that say what the
// flag wants, not how Go's parser failed (`-j wants a whole number of
// workers, got "x"`).
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		f := ive.GetFlag()
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand
		}
		return usagef("%s wants %s, got %q", name, flagWants(f), ive.GetValue())
	}
	return err
}

// addCommonFlags adds the flags README, Usage lists as common
// (-j, --quiet, --max-warnings, --base) to a checking command: every one
// is accepted by validate, lint and replay, so that a hook may pass the
// same flags to each; what each means per command is in README.md
// ("Common flags").
func (a *app) addCommonFlags(cmd *cobra.Command) {
	jobs := "parallel workers (default: number of CPUs)"
	quiet := "print the summary envelope only"
	warn := "exit 1 when more than N warnings are reported (-1: no limit)"
	base := "git revision the append-only logs must only have been appended to since (rule AL020)"
	if cmd.Name() != "lint" {
		jobs = "accepted for symmetry with lint; one payload is checked by one worker"
		quiet = "accepted for symmetry with lint; the one envelope is the summary"
		warn = "deny (exit 1) when the envelope has more than N warnings (-1: no limit)"
		base = "lint only (append-only logs of a tree compared with git); a usage error here"
	}
	fs := cmd.Flags()
	fs.IntVarP(&a.g.jobs, "jobs", "j", 0, jobs)
	fs.BoolVar(&a.g.quiet, "quiet", false, quiet)
	fs.IntVar(&a.g.maxWarnings, "max-warnings", -1, warn)
	fs.StringVar(&a.g.base, "base", "", base)
	_ = cmd.RegisterFlagCompletionFunc("jobs", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("max-warnings", cobra.NoFileCompletions)
}

// noBase rejects --base for a command that reads no tree of logs.
func (a *app) noBase(command string) error {
	if a.g.base != "" {
		return usagef("--base applies to agentlint lint (append-only logs compared with git); %s checks payloads, not a tree", command)
	}
	return nil
}

// overWarnings turns an allowing envelope with more than --max-warnings
// warnings into a denial (exit 1), as `agentlint lint` does.
func (a *app) overWarnings(e *envelope.Envelope, warnings int) {
	if e.Allow && a.g.maxWarnings >= 0 && warnings > a.g.maxWarnings {
		e.Allow = false
		e.Code = envelope.NonCompliant
		e.Reason = fmt.Sprintf("%d warnings exceed --max-warnings %d", warnings, a.g.maxWarnings)
	}
}

// countWarnings counts the warnings among an envelope's violations.
func countWarnings(e envelope.Envelope) int {
	vs, _ := e.Details["violations"].([]envelope.Violation)
	n := 0
	for i := range vs {
		if vs[i].Severity == envelope.SeverityWarning {
			n++
		}
	}
	return n
}

// registerCompletions makes shell completion offer kinds after --kind,
// formats after --format, and rule IDs and codes after explain.
func (a *app) registerCompletions(root *cobra.Command) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("format", fixed(outputFormats...))
	_ = root.RegisterFlagCompletionFunc("color", fixed("auto", "always", "never"))
	_ = root.RegisterFlagCompletionFunc("engine", fixed("fast", "cue"))
	_ = root.RegisterFlagCompletionFunc("now", cobra.NoFileCompletions)
	for _, c := range root.Commands() {
		if c.Flags().Lookup("kind") != nil {
			_ = c.RegisterFlagCompletionFunc("kind", completeKinds)
		}
	}
}

// completeKinds offers every kind, with its seed.
func completeKinds(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range kind.All {
		out = append(out, k.Name+"\tseed "+k.Seed+", "+string(k.Format))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeExplain offers rule IDs (with their summary) and codes.
func completeExplain(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	prefix = strings.ToUpper(prefix)
	var out []string
	for _, r := range rules.All() {
		if strings.HasPrefix(r.ID, prefix) {
			out = append(out, r.ID+"\t"+r.Summary)
		}
	}
	for _, c := range envelope.Codes {
		if strings.HasPrefix(string(c), prefix) {
			out = append(out, string(c)+"\tcode")
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// explainJSON is the rule page of `agentlint explain --format json`.
func explainJSON(r *rules.Rule) map[string]any {
	m := map[string]any{
		"id": r.ID, "name": r.Name, "code": r.Code, "severity": r.Severity,
		"kinds": nonNilStrings(r.Kinds), "summary": r.Summary, "source": r.Source,
	}
	if r.Example != "" || r.Fixed != "" {
		ex := map[string]any{"kind": r.ExampleKind, "failing": r.Example, "passing": r.Fixed, "options": nonNilStrings(r.Options)}
		if r.ExampleFile != "" {
			ex["file"] = r.ExampleFile
		}
		m["example"] = ex
	}
	if r.ExampleTree != "" {
		m["example_tree"] = r.ExampleTree
	}
	return m
}

// codeJSON is the page of a code for `agentlint explain --format json`.
func codeJSON(code envelope.Code) map[string]any {
	rs := []map[string]any{}
	for _, r := range rules.ByCode(code) {
		rs = append(rs, map[string]any{"id": r.ID, "name": r.Name, "summary": r.Summary})
	}
	return map[string]any{"code": code, "rules": rs}
}

// skipNote tells, on stderr, how many walked files a text run skipped and
// how to see them (--verbose lists them instead).
func (a *app) skipNote(skipped, files int) {
	if skipped == 0 || a.g.verbose {
		return
	}
	what := fmt.Sprintf("%d files skipped", skipped)
	if skipped == 1 {
		what = "1 file skipped"
	}
	lead := ""
	if files == 0 {
		lead = "no file was recognised: "
	}
	fmt.Fprintf(a.stderr, "agentlint: %s%s (kind not recognised); --verbose lists them with the reason\n", lead, what)
}

// skippedLine prints one left-out input for --verbose.
func (a *app) skippedLine(path, reason string) {
	fmt.Fprintf(a.stderr, "agentlint: skipped %s: %s\n", output.Clean(path), output.Clean(strings.TrimSpace(reason)))
}
