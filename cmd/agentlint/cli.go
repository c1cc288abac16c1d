package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// Exit statuses (README, Codes and precedence).
const (
	exitOK    = 0
	exitDeny  = 1
	exitUsage = 2
)

// usageError is a failure of the tool itself (exit 2): it is printed as one
// envelope with allow:false and Code.
type usageError struct {
	Code   envelope.Code
	Reason string
	// File is the input the error is about (details.file), "" for none.
	File string
}

func (e *usageError) Error() string { return e.Reason }

func usagef(format string, args ...any) error {
	return &usageError{Code: envelope.MissingRequiredInput, Reason: fmt.Sprintf(format, args...)}
}

// fileUsagef is usagef about one input file named on the command line
// (missing, unreadable, undetectable): its envelope's details.file names it,
// as the envelope of an unreadable file found by a walk does. Standard
// input ("-") is not a file.
func fileUsagef(file, format string, args ...any) error {
	if file == "-" {
		file = ""
	}
	return &usageError{Code: envelope.MissingRequiredInput, Reason: fmt.Sprintf(format, args...), File: file}
}

// exitStatus ends a command with an exit status whose output was already
// written (by agentlint-cue, for --engine cue).
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// denied is returned by a command whose verdict denies (exit 1); the verdict
// itself was already printed.
var errDenied = errors.New("denied")

type globalFlags struct {
	format      string
	color       string
	strict      bool
	now         string
	maxSkew     time.Duration
	engine      string
	kind        string
	jobs        int
	quiet       bool
	maxWarnings int
	config      string
	assignment  string
	base        string
	verbose     bool
	skipUnknown bool
}

type app struct {
	args   []string // the command line, for --engine cue (agentlint-cue)
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	g      globalFlags
	adopt  adoptFlags // lint's --new-from-rev, --baseline, --write-baseline, --force-exclude

	command string          // the subcommand run (lint, validate, replay)
	outputs []string        // --output FORMAT=PATH
	outs    []*outFile      // the open --output files
	info    *output.RunInfo // for SARIF, JUnit and Markdown (see runInfo)
	// progressDelay is how long a lint runs before its progress shows
	// (stderr a terminal only); below 0: never.
	progressDelay time.Duration
	// noFastPath makes validate go through cobra (tests of validateFast).
	noFastPath bool
	// stream is validate --stream; many is the state of a validate of
	// several payloads (validate_many.go).
	stream bool
	many   *manyRun
	// clock is the current time of the runtime gates (validate, replay,
	// serve) when --now is not given; nil: time.Now. `lint` never reads it.
	clock func() time.Time
}

// now is the current time of validate and replay (app.clock).
func (a *app) now() time.Time {
	if a.clock != nil {
		return a.clock()
	}
	return time.Now()
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, progressDelay: defaultProgressDelay}
	return a.run(args)
}

// run runs the command line args and returns the exit status.
func (a *app) run(args []string) int {
	a.args = args
	done, err := a.validateFast(args)
	if !done {
		root := a.rootCmd()
		root.SetArgs(args)
		root.SetIn(a.stdin)
		root.SetOut(a.stdout)
		root.SetErr(a.stderr)
		err = root.Execute()
	}
	var xs *exitStatus
	if errors.As(err, &xs) {
		// agentlint-cue ran the command, --output included: keep its files.
		a.discardOutputs()
	}
	status, ue := a.status(err)
	if ue != nil {
		a.printUsageError(ue)
	}
	if err := a.closeOutputs(ue); err != nil {
		fmt.Fprintf(a.stderr, "agentlint: %s\n", output.Clean(err.Error()))
		status = exitUsage
	}
	return status
}

// status maps a command's error to its exit status; a usage error is
// returned to be printed.
func (a *app) status(err error) (int, *usageError) {
	if err == nil {
		return exitOK, nil
	}
	if errors.Is(err, errDenied) {
		return exitDeny, nil
	}
	var xs *exitStatus
	if errors.As(err, &xs) {
		return xs.code, nil
	}
	if errors.Is(err, errIncomplete) {
		return exitUsage, nil
	}
	var ue *usageError
	if !errors.As(err, &ue) {
		// cobra's own errors: unknown flag or command, bad flag value.
		ue = &usageError{Code: envelope.MissingRequiredInput, Reason: err.Error() + " (see agentlint --help)"}
	}
	return exitUsage, ue
}

// printUsageError prints the usage error's envelope in --format: one
// line of text, a JSON envelope, or a whole document (SARIF with
// executionSuccessful false, JUnit with an error, Markdown).
func (a *app) printUsageError(ue *usageError) {
	format := resolveFormat(a.g.format, a.stdout)
	p, err := output.New(format, a.stdout, false, a.runInfo())
	if err != nil {
		p, _ = output.New("json", a.stdout, false, nil)
	}
	_ = finishPrinter(p, format, a.stdout, ue)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "agentlint",
		Short: "Validate and lint the data that multi-agent systems write",
		Long: `agentlint validates task packets, ledgers, event logs and workflow templates
against the five specification documents of its families (vermas, operator,
idle, ledger, collector) and prints the validator envelope
{allow, code, reason, details}.

Output (--format auto, the default) is text when stdout is a terminal and
JSON Lines otherwise. Shell completion: agentlint completion bash|zsh|fish.

Exit status: 0 when every verdict allows, 1 when any denies, 2 when agentlint
could not do its job (bad flag, unreadable or undetectable file).`,
		SilenceUsage:     true,
		SilenceErrors:    true,
		Version:          versionText(),
		PersistentPreRun: func(*cobra.Command, []string) { a.preRun() },
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	a.addGlobalFlags(root.PersistentFlags())
	root.AddCommand(a.validateCmd(), a.lintCmd(), a.rulesCmd(), a.explainCmd(), a.kindsCmd(), a.versionCmd(), a.replayCmd(), a.schemaCmd(), a.summarizeCmd(), a.serveCmd())
	a.registerCompletions(root)
	return root
}

// addGlobalFlags defines the flags of every command (the root's persistent
// flags) on fs.
func (a *app) addGlobalFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.g.format, "format", "auto", formatHelp)
	fs.StringVar(&a.g.color, "color", "auto", "color text output: auto, always or never (NO_COLOR is honored)")
	fs.BoolVar(&a.g.strict, "strict", false, "reject unknown fields that do not start with x_, and blank JSON Lines lines")
	fs.StringVar(&a.g.now, "now", "", "clock for time rules, RFC 3339 (default: validate and replay the current time; lint the data's own clock)")
	fs.DurationVar(&a.g.maxSkew, "max-skew", 60*time.Second, "how far in the future a heartbeat may lie")
	fs.StringVar(&a.g.engine, "engine", "fast", "schema engine: fast (generated from CUE) or cue (the CUE evaluator)")
	fs.StringVar(&a.g.config, "config", "", "config file (default: .agentlint.toml found upward)")
}

// preRun runs before every command (the root's PersistentPreRun).
func (a *app) preRun() {
	a.g.format = resolveFormat(a.g.format, a.stdout)
}

// validateFast runs a plain `agentlint validate [flags] FILE` command line
// without building the command tree: the tree of nine commands, their flags
// and cobra's completion commands took a tenth of a one-record validate's
// start-up. It parses args with the validate command's own flags
// and the global ones, as cobra would, and runs the same RunE after the same
// PersistentPreRun. Anything else (another command, a flag before the
// command, no FILE or more than one, --help, a flag that does not parse)
// returns done false before anything ran, and cobra runs the whole command
// line from the start, with its own errors, help and usage.
func (a *app) validateFast(args []string) (done bool, err error) {
	if a.noFastPath || len(args) < 2 || args[0] != "validate" {
		return false, nil
	}
	saved := *a
	cmd := a.validateCmd()
	fs := cmd.Flags()
	a.addGlobalFlags(fs)
	help := fs.BoolP("help", "h", false, "help for validate")
	if err := fs.Parse(args[1:]); err != nil || *help || fs.NArg() != 1 {
		*a = saved
		return false, nil
	}
	a.preRun()
	return true, cmd.RunE(cmd, fs.Args())
}

func (a *app) colorOn() bool {
	switch a.g.color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" { // no-color.org: only a non-empty value counts
		return false
	}
	return isTerminal(a.stdout)
}

func (a *app) printer() (output.Printer, error) {
	switch a.g.color {
	case "auto", "always", "never":
	default:
		return nil, usagef("--color must be auto, always or never, not %q", a.g.color)
	}
	var info *output.RunInfo
	switch a.g.format {
	case "json", "text", "github":
		// These formats do not describe the run: no working directory nor
		// build information to read (start-up).
	default:
		info = a.runInfo()
	}
	p, err := output.New(a.g.format, a.stdout, a.colorOn(), info)
	if err != nil {
		a.g.format = "json"
		return nil, usagef("%v", err)
	}
	return p, nil
}

func (a *app) options() (record.Options, error) {
	o := record.Options{Strict: a.g.strict, MaxSkew: a.g.maxSkew}
	if a.g.now != "" {
		t, err := time.Parse(time.RFC3339Nano, a.g.now)
		if err != nil {
			return o, usagef("--now must be an RFC 3339 date-time, not %q", a.g.now)
		}
		o.Now = t
	}
	if a.g.maxSkew < 0 {
		return o, usagef("--max-skew must not be negative")
	}
	return o, nil
}

func (a *app) schemaEngine() (record.SchemaEngine, error) {
	switch a.g.engine {
	case "fast":
		return nil, nil
	case "cue":
		return a.newCUEEngine()
	}
	return nil, usagef("--engine must be fast or cue, not %q", a.g.engine)
}

func (a *app) checkKind() (*kind.Kind, error) {
	if a.g.kind == "" {
		return nil, nil
	}
	k := kind.Lookup(a.g.kind)
	if k == nil {
		return nil, &usageError{Code: envelope.MissingValidator, Reason: fmt.Sprintf("unknown kind %q; `agentlint kinds` lists them: %s", a.g.kind, strings.Join(kind.Names(), ", "))}
	}
	return k, nil
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(a.stdout, versionText())
			return nil
		},
	}
}

// versionString is agentlint's version: -ldflags, the module version, or
// "devel".
func versionString() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if version != "" {
		v = version
	}
	return v
}

// versionText is the line of `agentlint version` and `agentlint --version`:
// agentlint VERSION (commit C, goX).
func versionText() string {
	v, commit := versionString(), "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	if gitCommit != "" {
		commit = gitCommit
	}
	return fmt.Sprintf("agentlint %s (commit %s, %s)", v, commit, runtime.Version())
}

// Set by the Makefile with -ldflags -X.
var (
	version   string
	gitCommit string
)
