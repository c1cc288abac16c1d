package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/secrets"
	"github.com/agentlint/agentlint/rules"
)

// outFile is one `--output FORMAT=PATH`: the run is also written in FORMAT
// to a temporary file beside PATH, renamed to PATH when the run ends.
type outFile struct {
	format, path string
	pf           *renameio.PendingFile
	bw           *bufio.Writer
	p            output.Printer
}

// addOutputFlag adds --output to a checking command (lint, validate,
// replay) and records the command's name for the formats that name it.
func (a *app) addOutputFlag(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&a.outputs, "output", nil,
		"also write the run in `FORMAT=PATH` ("+strings.Join(output.Formats, ", ")+"), atomically; repeatable")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		a.command = c.Name()
		return run(c, args)
	}
}

// runInfo describes the run to the SARIF, JUnit and Markdown printers.
func (a *app) runInfo() *output.RunInfo {
	if a.info != nil {
		return a.info
	}
	wd, _ := os.Getwd()
	a.info = &output.RunInfo{Command: a.command, Version: versionString(), Root: wd, Getenv: os.Getenv, Rules: ruleInfos}
	return a.info
}

// ruleInfos lists the registry's rules, each with the text of `agentlint
// explain` as its help.
func ruleInfos() []output.RuleInfo {
	var ri []output.RuleInfo
	for _, r := range rules.All() {
		ri = append(ri, output.RuleInfo{ID: r.ID, Name: r.Name, Code: string(r.Code), Severity: string(r.Severity),
			Summary: r.Summary, Help: rules.Explain(r)})
	}
	return ri
}

// openOutputs parses --output and creates the pending files; a bad value
// or a path that cannot be written is a usage error (before any output).
func (a *app) openOutputs() error {
	if a.outs != nil || len(a.outputs) == 0 {
		return nil
	}
	for _, o := range a.outputs {
		format, path, ok := strings.Cut(o, "=")
		if !ok || path == "" || !slices.Contains(output.Formats, format) {
			a.discardOutputs()
			return usagef("--output must be FORMAT=PATH with FORMAT one of %s, not %q", strings.Join(output.Formats, ", "), o)
		}
		if err := notAFile("--output "+o, path); err != nil {
			a.discardOutputs()
			return err
		}
		pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(0o644))
		if err != nil {
			a.discardOutputs()
			return usagef("--output %s: cannot write %s: %v", o, path, unwrapPath(err))
		}
		bw := bufio.NewWriterSize(outputWriter(pf), 64<<10)
		p, err := output.New(format, bw, false, a.runInfo())
		if err != nil {
			_ = pf.Cleanup()
			a.discardOutputs()
			return usagef("%v", err)
		}
		a.outs = append(a.outs, &outFile{format: format, path: path, pf: pf, bw: bw, p: p})
	}
	return nil
}

// outputWriter is what an --output file is written through: the file
// itself; tests make it fail as a full disk does.
var outputWriter = func(f io.Writer) io.Writer { return f }

// finishRun ends a run whose envelopes are all printed: main is the printer
// of --format and flush writes what stdout holds (nil: nothing). The
// --output files are written first (not yet renamed into place), so that a
// late failure (a full disk) is still this run's verdict: exit 2, and the
// last envelope printed says why (allow false), as an annotation of its own
// in streaming formats and, in SARIF, a toolExecutionNotification with
// executionSuccessful false. Then stdout is written; when that fails, each
// --output file holds the failure instead of the run's results. The files
// are renamed into place last.
func (a *app) finishRun(main output.Printer, flush func() error) error {
	if flush == nil {
		flush = func() error { return nil }
	}
	if err := a.prepareOutputs(); err != nil {
		ue := &usageError{Code: envelope.MissingRequiredInput, Reason: err.Error()}
		// Nothing half-written is left; each --output file will hold the
		// failure instead of the results (run writes it; a file that
		// cannot be written is reported on stderr and left out).
		a.discardOutputs()
		_ = a.openOutputs()
		if ab, ok := main.(output.Aborter); ok {
			ab.Abort(envelope.Envelope{Allow: false, Code: ue.Code, Reason: ue.Reason})
			err := closePrinter(main)
			if err == nil {
				err = flush()
			}
			if cerr := a.closeOutputs(ue); cerr != nil {
				fmt.Fprintf(a.stderr, "agentlint: %s\n", output.Clean(cerr.Error()))
			}
			if err != nil {
				return usagef("cannot write the output: %v", err)
			}
			return &exitStatus{exitUsage} // printed: the document says it
		}
		if err := flush(); err != nil {
			return usagef("cannot write the output: %v", err)
		}
		return ue // printed by run, after what stdout holds: the last envelope
	}
	err := closePrinter(main)
	if err == nil {
		err = flush()
	}
	if err != nil {
		// The --output files say the run failed, not what it found.
		a.discardOutputs()
		_ = a.openOutputs()
		return usagef("cannot write the output: %v", err)
	}
	return a.commitOutputs()
}

// prepareOutputs writes the whole of every --output file (its format's
// document ended, buffers flushed, data synced to disk) without renaming it.
func (a *app) prepareOutputs() error {
	for _, o := range a.outs {
		err := finishPrinter(o.p, o.format, o.bw, nil)
		if err == nil {
			err = o.bw.Flush()
		}
		if err == nil {
			err = o.pf.Sync()
		}
		if err != nil {
			return fmt.Errorf("--output %s=%s: %w", o.format, o.path, err)
		}
	}
	return nil
}

// commitOutputs renames every prepared --output file into place.
func (a *app) commitOutputs() error {
	var errs []error
	for _, o := range a.outs {
		if err := o.pf.CloseAtomicallyReplace(); err != nil {
			_ = o.pf.Cleanup()
			errs = append(errs, fmt.Errorf("--output %s=%s: %w", o.format, o.path, err))
		}
	}
	a.outs = nil
	if len(errs) > 0 {
		return usagef("%v", errors.Join(errs...))
	}
	return nil
}

// checkOutputs refuses an --output that names one of the inputs: inputs
// are never written.
func (a *app) checkOutputs(inputs ...string) error {
	for _, o := range a.outs {
		if err := refuseInput("--output "+o.format+"="+o.path, o.path, inputs); err != nil {
			a.discardOutputs() // not even the usage error is written there
			return err
		}
	}
	return nil
}

// refuseInput is the one guard every writer of the tool goes through
// (lint, validate and replay --output, replay --emit-ledger, summarize
// --out): it returns a usage error naming flag when out is one of inputs,
// whatever the spelling (relative or absolute, with `.` or `..`, a symbolic
// link to it or a hard link: files are compared by device and inode).
// Standard input ("-") and empty names are not files. Inputs are never
// written.
func refuseInput(flag, out string, inputs []string) error {
	for _, in := range inputs {
		if in != "" && in != "-" && sameFile(in, out) {
			return usagef("%s is an input of the run; inputs are never written: write elsewhere", flag)
		}
	}
	return notAFile(flag, out)
}

// notAFile refuses an output path that exists and is not a regular file:
// every writer replaces its file by a rename, which would replace a device
// (/dev/full, /dev/stdout), a pipe or a directory itself.
func notAFile(flag, out string) error {
	if st, err := os.Stat(out); err == nil && !st.Mode().IsRegular() {
		return usagef("%s: %s is not a regular file; it is written atomically (temporary file, then rename): name a file", flag, out)
	}
	return nil
}

// sameFile reports whether the paths name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func (a *app) discardOutputs() {
	for _, o := range a.outs {
		_ = o.pf.Cleanup()
	}
	a.outs = nil
}

// closeOutputs finishes every --output file: a usage error (ue non-nil) is
// written as the format writes it (SARIF with executionSuccessful false),
// whole-run formats write their document, and each file is renamed into
// place.
func (a *app) closeOutputs(ue *usageError) error {
	var errs []error
	for _, o := range a.outs {
		err := finishPrinter(o.p, o.format, o.bw, ue)
		if err == nil {
			err = o.bw.Flush()
		}
		if err == nil {
			err = o.pf.CloseAtomicallyReplace()
		}
		if err != nil {
			_ = o.pf.Cleanup()
			errs = append(errs, fmt.Errorf("--output %s=%s: %w", o.format, o.path, err))
		}
	}
	a.outs = nil
	return errors.Join(errs...)
}

// finishPrinter ends a printer's run: a usage error is printed (whole-run
// formats abort), then a whole-run format writes its document.
func finishPrinter(p output.Printer, format string, w io.Writer, ue *usageError) error {
	if ue != nil {
		e := envelope.Envelope{Allow: false, Code: ue.Code, Reason: secrets.Redact(ue.Reason)} // a flag's value may be one
		if ue.File != "" {
			e.Details = map[string]any{"file": ue.File}
		}
		switch ab := p.(type) {
		case output.Aborter:
			ab.Abort(e)
		default:
			switch format {
			case "text":
				_, err := fmt.Fprintf(w, "agentlint: %s: %s\n", ue.Code, output.Clean(e.Reason))
				return err
			case "github":
				// An ::error annotation, so the Actions log shows why the step failed.
				return p.Record(e)
			}
			jp, _ := output.New("json", w, false, nil)
			return jp.Record(e)
		}
	}
	if c, ok := p.(output.Closer); ok {
		return c.Close()
	}
	return nil
}

// closePrinter writes the document of a whole-run format (SARIF, JUnit,
// Markdown); other printers have written everything already.
func closePrinter(p output.Printer) error {
	if c, ok := p.(output.Closer); ok {
		return c.Close()
	}
	return nil
}

// tee is the printer of a run with --output: every envelope goes to the
// printer of --format (records only without --quiet) and to each output.
type tee struct {
	main  output.Printer
	quiet bool
	outs  []*outFile
}

func (t *tee) Record(e envelope.Envelope) error {
	if !t.quiet {
		if err := t.main.Record(e); err != nil {
			return err
		}
	}
	for _, o := range t.outs {
		if err := o.p.Record(e); err != nil {
			return err
		}
	}
	return nil
}

func (t *tee) Summary(e envelope.Envelope) error {
	if err := t.main.Summary(e); err != nil {
		return err
	}
	for _, o := range t.outs {
		if err := o.p.Summary(e); err != nil {
			return err
		}
	}
	return nil
}

// fileDone returns the LintConfig.FileDone that tells every printer that
// observes files (JUnit, SARIF) of each linted file; nil when none does.
func fileDone(ps ...output.Printer) func(lint.FileResult) {
	var obs []output.FileObserver
	for _, p := range ps {
		if o, ok := p.(output.FileObserver); ok {
			obs = append(obs, o)
		}
	}
	if len(obs) == 0 {
		return nil
	}
	return func(f lint.FileResult) {
		fi := output.FileInfo{Path: f.Path, Kind: f.Kind, Document: f.Document, Records: f.Records, SkipLines: f.SkipLines, Stat: f.Stat}
		for _, o := range obs {
			o.File(fi)
		}
	}
}
