// Package output renders envelopes: one file per format (json.go, text.go,
// github.go, sarif.go, junit.go, markdown.go).
// It knows nothing of validation; the engine hands it finished envelopes.
package output

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Printer writes envelopes in one format.
type Printer interface {
	// Record prints the verdict of one record or document.
	Record(e envelope.Envelope) error
	// Summary prints the closing summary envelope of `agentlint lint`.
	Summary(e envelope.Envelope) error
}

// Appender is a Printer whose record envelopes can be rendered apart from
// printing: AppendRecord appends exactly what Record would write. It keeps no
// state, so `agentlint lint` calls it from its workers concurrently and
// writes the bytes in input order.
type Appender interface {
	Printer
	AppendRecord(dst []byte, e envelope.Envelope) []byte
}

// RecordAppender is an Appender that renders the envelope of one record or
// document straight from its violations, without building the envelope's
// details map: AppendRecordVerdict appends exactly what
// AppendRecord(dst, envelope.Verdict(vs, okReason, details)) appends for
// details {"file": file, "kind": kind, "line": line} ("line" only when
// line > 0), and sorts vs in place as Verdict does. `agentlint lint` renders
// its record envelopes so in its workers, where a log may give most of its
// records a finding. It may keep memos of what it rendered before (JSON: a
// record's beginning, a rule's first members, recurring reasons), shared by
// the workers and safe for concurrent use; they never change its output.
type RecordAppender interface {
	Appender
	AppendRecordVerdict(dst []byte, file, kind, okReason string, line int, vs []envelope.Violation) []byte
}

// Closer is a Printer that needs the whole run (SARIF, JUnit, Markdown): it
// keeps the findings (never the records) and writes its one document in
// Close, after the last Record and the Summary, if any. Streaming printers
// do not implement it.
type Closer interface {
	Printer
	Close() error
}

// Aborter is a Closer that can still write a valid document for a run that
// could not do its job (a usage error, exit 2): e is the envelope of the
// usage error (allow false, code and reason). Close writes the document.
type Aborter interface {
	Closer
	Abort(e envelope.Envelope)
}

// BaselineMarker is a Printer that tells new findings from older ones
// (SARIF's result.baselineState) when `agentlint lint` runs with
// --new-from-rev or --baseline: after MarkBaseline, Record receives the new
// findings and Unchanged the older ones, which other printers never see.
type BaselineMarker interface {
	Printer
	MarkBaseline()
	Unchanged(e envelope.Envelope) error
}

// FileObserver is a Printer that is told of every linted file, findings or
// not (JUnit writes a test case per record, passing ones included).
type FileObserver interface {
	File(f FileInfo)
}

// FileInfo is one linted file as `agentlint lint` saw it.
type FileInfo struct {
	// Path as given or walked ("-": standard input); Kind its kind name.
	Path, Kind string
	// Document: the file is one document (a record without a line).
	Document bool
	// Records validated; SkipLines: the 1-based lines of a JSON Lines
	// file that are not records (blank, too long), in order.
	Records   int
	SkipLines []int
	// Stat is the file as it was read (nil: standard input, a pipe): a
	// format that reads the file again (SARIF's record hashes) checks it is
	// still that file.
	Stat fs.FileInfo
}

// RuleInfo is one rule of the registry as formats that list rules (SARIF)
// show it: ID, kebab-case name, primary code, default severity ("error" or
// "warning"), one-line summary, and Help, the text `agentlint explain ID`
// prints.
type RuleInfo struct {
	ID, Name, Code, Severity, Summary, Help string
}

// RunInfo describes the run to the formats that need it.
type RunInfo struct {
	// Command is the subcommand: "lint", "validate" or "replay".
	Command string
	// Version of agentlint ("devel" when unknown).
	Version string
	// Rules returns the rules of the registry, in registry order (SARIF
	// tool.driver.rules); called only by the formats that list them.
	Rules func() []RuleInfo
	// Root is the absolute directory file paths are relative to (the
	// working directory); SARIF's %SRCROOT%.
	Root string
	// Getenv reads the environment (Markdown links to GitHub); nil: none.
	Getenv func(string) string
}

// Formats lists every format name New accepts.
var Formats = []string{"json", "text", "github", "sarif", "junit", "markdown"}

// New returns the printer for format (one of Formats). color enables ANSI
// colors in text output; run describes the run to SARIF, JUnit and Markdown.
func New(format string, w io.Writer, color bool, run *RunInfo) (Printer, error) {
	if run == nil {
		run = &RunInfo{}
	}
	switch format {
	case "json":
		return &JSON{W: w}, nil
	case "text":
		return &Text{W: w, Color: color}, nil
	case "github":
		return &GitHub{W: w}, nil
	case "sarif":
		return &SARIF{W: w, Run: run}, nil
	case "junit":
		return &JUnit{W: w, Run: run}, nil
	case "markdown":
		return &Markdown{W: w, Run: run}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want json, text, github, sarif, junit or markdown)", format)
}
