package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

func (a *app) validateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate [FILE|-]",
		Short: "Validate one payload and print exactly one envelope",
		Long: `Validate one payload (a JSON document, a VerMAS TOML template or a VerMAS
assignment file) and print exactly one envelope {allow, code, reason,
details}. The kind comes from --kind, the config file's globs, the built-in
globs, then the payload's top-level keys.

Exit status: 0 allow, 1 deny, 2 usage error (missing file, unknown kind).`,
		Example: `  agentlint validate packets/t12.json
  cat result.json | agentlint validate --kind operator/result -
  agentlint validate --assignment packets/t12.json results/t12.json
  agentlint validate --format text --strict packets/t12.json
  agentlint validate .work/templates/worker-execute.toml
  agentlint validate --format sarif --output junit=validate.xml packets/t12.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.stream || len(args) > 1 {
				return a.validateMany(args) // validate_many.go
			}
			file := "-"
			if len(args) == 1 {
				file = args[0]
			} else if isTerminal(a.stdin) {
				// Nothing piped in: reading a terminal would wait forever.
				fmt.Fprint(a.stderr, cmd.UsageString())
				return usagef("validate needs a FILE, or a payload piped into standard input (standard input is a terminal)")
			}
			if err := a.noBase("validate"); err != nil {
				return err
			}
			return a.validate(file)
		},
	}
	cmd.Flags().StringVar(&a.g.kind, "kind", "", "kind of the payload, e.g. operator/assignment (see agentlint kinds)")
	cmd.Flags().StringVar(&a.g.assignment, "assignment", "", "assignment packet a result is checked against (scope, task and run ids)")
	a.addCommonFlags(cmd)
	a.addOutputFlag(cmd)
	a.addManyFlags(cmd) // validate_many.go
	return cmd
}

// maxPayload is the largest payload validate reads: record.MaxLine (64 MiB),
// the longest JSON Lines record lint reads. Tests lower it.
var maxPayload int64 = record.MaxLine

// readInput reads a named file or stdin ("-"), at most maxPayload bytes; a
// missing or unreadable file, or a payload larger than maxPayload (read no
// further), is a usage error (exit 2, MISSING_REQUIRED_INPUT): the tool does
// not judge what it did not read.
func (a *app) readInput(file string) ([]byte, error) {
	var r io.Reader = a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fileUsagef(file, "%s: no such file", file)
			}
			return nil, fileUsagef(file, "%s: cannot read: %v", file, unwrapPath(err))
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil {
		if file == "-" {
			return nil, usagef("cannot read standard input: %v", err)
		}
		return nil, fileUsagef(file, "%s: cannot read: %v", file, unwrapPath(err))
	}
	if int64(len(data)) > maxPayload {
		return nil, fileUsagef(file, "%s: the payload is larger than %s, the most validate reads; split it (JSON Lines: agentlint lint streams files of any length)", file, sizeText(maxPayload))
	}
	return data, nil
}

// sizeText writes a byte count as MiB when it is a whole number of them.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// detector returns the detection of the validate commands (cue/README.md
// "Detection"): --kind, the config's [kinds] globs, the built-in globs,
// then sniffing whatever the file's name (validate reads a named payload
// whole anyway).
func (a *app) detector(cfg *lint.Config) (*kind.Detector, error) {
	forced, err := a.checkKind()
	if err != nil {
		return nil, err
	}
	return &kind.Detector{Forced: forced, Config: cfg, SniffAny: true}, nil
}

func undetectable(file string) error { return inputUsage(lint.Undetectable(file)) }

// detect resolves the kind of an input already read into data; an
// undetectable input is a usage error.
func (a *app) detect(file string, data []byte, cfg *lint.Config) (*kind.Kind, error) {
	det, err := a.detector(cfg)
	if err != nil {
		return nil, err
	}
	if k := det.Detect(file, data); k != nil {
		return k, nil
	}
	return nil, undetectable(file)
}

// setup parses the flags every checking command shares: output format,
// config, validator options and schema engine.
func (a *app) setup() (output.Printer, *lint.Config, record.Options, record.SchemaEngine, error) {
	var opts record.Options
	if a.many != nil && a.many.p != nil {
		return a.many.setupResult() // validate_many.go: once per run
	}
	p, err := a.printer()
	if err != nil {
		return nil, nil, opts, nil, err
	}
	if err := a.openOutputs(); err != nil {
		return nil, nil, opts, nil, err
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, nil, opts, nil, err
	}
	if opts, err = a.options(); err != nil {
		return nil, nil, opts, nil, err
	}
	cfg.Apply(&opts)
	eng, err := a.schemaEngine()
	return p, cfg, opts, eng, err
}

// setupGate is setup for the runtime gates (validate, validate --stream,
// replay): their time rules run at --now, by default the current time
// (`lint` never reads the wall clock: README, "Adopting agentlint in a
// repository that already has data").
func (a *app) setupGate() (output.Printer, *lint.Config, record.Options, record.SchemaEngine, error) {
	p, cfg, opts, eng, err := a.setup()
	if err == nil && opts.Now.IsZero() {
		opts.Now = a.now()
	}
	return p, cfg, opts, eng, err
}

func (a *app) validate(file string) error {
	p, cfg, opts, eng, err := a.setupGate()
	if err != nil {
		return err
	}
	if err := a.checkOutputs(file, a.g.assignment); err != nil {
		return err
	}
	data, err := a.readInput(file)
	if err != nil {
		return err
	}
	k, err := a.detect(file, data, cfg)
	if err != nil && emptyPayload(data) {
		// README, Codes and precedence: empty input to validate is SCHEMA_INVALID
		// "empty payload" (exit 1) whatever its kind; the engine's AL005
		// check does not need one.
		k, err = &kind.Kind{}, nil
	}
	if err != nil {
		return err
	}
	var pre []envelope.Violation
	if a.g.assignment != "" {
		if k.Name != "operator/result" {
			return usagef("--assignment applies to operator/result payloads, not %s", k.Name)
		}
		adata, err := a.readInput(a.g.assignment)
		if err != nil {
			return err
		}
		av := record.NewValidator(opts, eng)
		avs, adoc := av.Document("operator/assignment", a.g.assignment, adata)
		if adoc == nil || envelope.HasErrors(avs) {
			for _, v := range avs {
				if v.Severity == envelope.SeverityError {
					v.Reason = fmt.Sprintf("assignment %s:%d:%d: %s", a.g.assignment, v.Line, v.Column, v.Reason)
					v.Line, v.Column = 0, 0
					pre = append(pre, v)
				}
			}
		} else {
			opts.Assignment = adoc
		}
	}
	vs := append(lint.PayloadViolations(k, file, data, opts, eng), pre...)
	details := map[string]any{"file": file}
	if k.Name != "" {
		details["kind"] = k.Name
	}
	env := envelope.Verdict(vs, k.OKReason, details)
	a.overWarnings(&env, countWarnings(env))
	if err := a.record(p, env); err != nil {
		return err
	}
	if !env.Allow {
		return errDenied
	}
	return nil
}

// record prints the one envelope of validate to --format and every
// --output, and ends the printers that need the whole run.
func (a *app) record(p output.Printer, env envelope.Envelope) error {
	if a.many != nil {
		return a.many.record(a, env) // validate_many.go: no close per payload
	}
	if err := p.Record(env); err != nil {
		return err
	}
	for _, o := range a.outs {
		if err := o.p.Record(env); err != nil {
			return err
		}
	}
	return a.finishRun(p, nil)
}

// utf8BOM is the UTF-8 byte-order mark, skipped (with a warning) at the
// start of a payload.
var utf8BOM = []byte("\ufeff")

// emptyPayload reports whether a payload holds nothing but a byte-order mark
// and white space: `validate` reports it as SCHEMA_INVALID "empty payload"
// (AL005), whatever its kind and engine.
func emptyPayload(data []byte) bool {
	return len(bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))) == 0
}
