package lint

import (
	"io"
	"os"

	"github.com/agentlint/agentlint/rules"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// DefaultChunkSize is the size of the read buffers that the reader cuts
// JSON Lines files into (whole lines only; a longer line gets a buffer of its
// own, up to record.MaxLine).
const DefaultChunkSize = 256 << 10

// Input is one file of a lint run, in input order.
type Input struct {
	// Path names the file in envelopes; "-" is standard input.
	Path string
	// Reader, when set, is read instead of opening Path (standard input).
	Reader io.Reader
	// Kind is the file's kind when already known (files named on the
	// command line are detected before the run, so that an undetectable one
	// is a usage error before any output); nil: detected while reading, and
	// an undetectable file is skipped and counted.
	Kind *kind.Kind
	// Err, when set, is an input that cannot be linted (a dangling symbolic
	// link, an unreadable directory): it is reported in its place as an
	// envelope with allow:false and code MISSING_REQUIRED_INPUT, counted as
	// unreadable, and the run goes on.
	Err error
	// Skipped, when set, is a file or directory the walker left out, and
	// why (Walker.ReportSkipped): it is only passed to LintConfig.Skipped,
	// in its place, and not counted.
	Skipped string
	// Root is the directory the Walker found the file under ("" for a file
	// named explicitly). Tree rules treat every directory at or under a
	// Root as complete (rules.Options.Walked): a set of files there (an
	// agent's ledger, templates/) is all in the run.
	Root string
}

// LintConfig configures Lint.
type LintConfig struct {
	// Options configure the validators (one per worker).
	Options record.Options
	// NewEngine returns the schema engine of one worker; nil: the fast path.
	NewEngine func() record.SchemaEngine
	// Jobs is the number of workers; below 1: one.
	Jobs int
	// Detector detects the kind of inputs without one.
	Detector *kind.Detector
	// Quiet renders no record envelope (the summary still counts them).
	Quiet bool
	// Render appends the rendering of one envelope to dst. It is called from
	// the workers, concurrently, so it must not keep state; its output is
	// written to Out in input order. nil: Emit is called instead.
	Render func(dst []byte, e envelope.Envelope) []byte
	// RenderRecord, when not nil beside Render, appends the rendering of
	// the envelope of one record (line > 0) or document (line 0) straight
	// from its violations, as Render would append the envelope
	// envelope.Verdict makes of them with details file, kind and line
	// (output.RecordAppender; the same concurrency as Render).
	RenderRecord func(dst []byte, file, kind, okReason string, line int, vs []envelope.Violation) []byte
	// Emit receives each envelope, in input order, when Render is nil.
	Emit func(e envelope.Envelope) error
	// Out receives the rendered envelopes (Render only); wrap it in a
	// bufio.Writer: it gets one Write per chunk of records.
	Out io.Writer
	// ChunkSize is the size of the read buffers (default DefaultChunkSize);
	// MaxLine the longest record (default MaxLine). Tests make them small.
	ChunkSize int
	MaxLine   int
	// StreamRules, when non-nil, lists the stream rules to run (IDs of
	// rules.RegisterStream); nil: every registered one. Rules switched off
	// by Options.Severity never run.
	StreamRules []string
	// Base binds rule AL020 to a git revision (`--base REV`): every file of
	// an append-only kind (rules.AppendOnlyKinds) read from disk is compared
	// with its version there (lint/gitbase). Zero: no append-only check.
	Base rules.AppendOnly
	// BaseRoots are the directories linted; with Base, append-only logs
	// under them that existed at the revision and were deleted since are
	// reported after the last file.
	BaseRoots []string
	// Progress, when non-nil, is advanced as the run goes (files done,
	// bytes read, records validated), for a progress display.
	Progress *Progress
	// Skipped, when non-nil, is called in input order for every input left
	// out: walked files whose kind cannot be determined (ReasonNotSniffed,
	// ReasonNoKind; counted as skipped_files) and what the walker reports
	// with Input.Skipped (`agentlint lint --verbose`).
	Skipped func(path, reason string)
	// FileDone, when non-nil, is called by the emitter, in input order,
	// once per linted file after its records and its own stream findings
	// (findings of tree rules come after the last file). Formats that
	// need the whole run (JUnit) use it to account for the records that
	// passed without keeping them.
	FileDone func(FileResult)
}

// FileResult is what LintConfig.FileDone learns of one linted file.
type FileResult struct {
	// Path is the file as given or walked ("-" for standard input); Kind
	// its kind name.
	Path, Kind string
	// Document is true for a file validated as one document (JSON, TOML,
	// assignment text): one record without a line.
	Document bool
	// Records is the number of records validated (JSON Lines: non-blank
	// lines no longer than MaxLine).
	Records int
	// SkipLines lists, in order, the 1-based lines of a JSON Lines file
	// that are not records (blank or too long), so that the records are
	// lines 1..Records+len(SkipLines) without them. Memory is proportional
	// to such lines, never to the records.
	SkipLines []int
	// Stat is the file as the engine opened it (nil: standard input, a
	// pipe): whoever reads it again checks it is still that file.
	Stat os.FileInfo
}

// Lint lints inputs, in order, and returns the run's counts (the summary
// envelope is Stats.Summary). It is the engine of `agentlint lint`
// (README, Codes and precedence; Usage):
//
//   - JSON Lines files are streamed: a reader cuts each file into chunks of
//     whole lines, with a bounded number of buffers in flight, so memory is
//     bounded by Jobs, ChunkSize and the longest line, whatever the file's
//     length. A line longer than MaxLine is one AL009 envelope and the rest
//     of the file is still checked; a final line without a newline is still
//     a record; blank lines are counted (AL008 with --strict); a byte-order
//     mark (AL006) and CRLF line endings (AL007) are warnings.
//   - Jobs workers, each with its own Validator, validate chunks (and whole
//     documents) in parallel and render the envelopes of denied or warned
//     records; they also extract, from every record that is a JSON object,
//     the few values the stream rules of its kind declare (rules.Field), and
//     mark those the schema rejected (rules.StreamRecord.Valid false: they
//     still register their ids, so one mistake gives one finding). A whole
//     document (JSON, TOML template, assignment text) is one such record,
//     with its decoded form and a locator of source positions.
//   - An ordered emitter writes each chunk's envelopes in input order, runs
//     the stream rules (rules.StreamRule, rules.TreeRule) sequentially on
//     the extracted values and adds their findings at the records they
//     concern, and sums the counts.
//   - Checks that depend on the run (rules.RunBinder) are bound to it
//     first: with cfg.Base, AL020 compares every append-only log read from
//     disk with its version at the base revision (and, after the last file,
//     reports the logs of cfg.BaseRoots deleted since); the distinct
//     correlation groups the checks collect become Stats.Groups.
//
// The output is byte-identical whatever Jobs is. Lint returns an error only
// when writing the output fails (the run then stops); everything about the
// inputs is an envelope.
func Lint(inputs func(yield func(Input) bool), cfg LintConfig) (*Stats, error) {
	p := newPipeline(cfg)
	run := &rules.LintRun{Base: cfg.Base.Base, Rev: cfg.Base.Rev}
	p.bindRun(run)
	st, err := p.run(inputs)
	if err == nil {
		st.Groups = run.Groups()
		err = reportDeleted(&p.cfg, st)
	}
	return st, err
}

// Linter lints single files with Lint, one at a time, on the caller's
// Validator (its options and schema engine; one worker): the API of tests
// and tools that lint a file they opened themselves. Emit receives the
// envelopes in input order and Stats accumulates the counts of every File
// call.
type Linter struct {
	V     *record.Validator
	Stats Stats
	Emit  func(envelope.Envelope) error
}

// File lints the content of one file of a known kind read from r. Only
// errors of Emit are returned; everything about the content is an envelope.
func (l *Linter) File(k *kind.Kind, file string, r io.Reader) error {
	emit := l.Emit
	if emit == nil {
		emit = func(envelope.Envelope) error { return nil }
	}
	st, err := Lint(func(yield func(Input) bool) {
		yield(Input{Path: file, Reader: r, Kind: k})
	}, LintConfig{Options: l.V.Options(), NewEngine: func() record.SchemaEngine { return l.V.Engine() }, Jobs: 1, Emit: emit})
	l.Stats.Merge(st)
	return err
}
