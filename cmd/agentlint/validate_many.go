package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// `agentlint validate FILE...` and `agentlint validate --stream` (README,
// "Orchestrators: validate without a process per packet").

// manyRun is the state of one `validate` of several payloads: the setup
// shared by all (printer, config, options, engine) and the worst exit
// status so far.
type manyRun struct {
	p     output.Printer
	cfg   *lint.Config
	opts  record.Options
	eng   record.SchemaEngine
	worst int
}

func (m *manyRun) setupResult() (output.Printer, *lint.Config, record.Options, record.SchemaEngine, error) {
	return m.p, m.cfg, m.opts, m.eng, nil
}

// record prints one payload's envelope to --format and every --output,
// and flushes standard output.
func (m *manyRun) record(a *app, env envelope.Envelope) error {
	if err := m.print(a, env); err != nil {
		return err
	}
	flush(a.stdout)
	return nil
}

// print prints one payload's envelope to --format and every --output.
func (m *manyRun) print(a *app, env envelope.Envelope) error {
	if err := m.p.Record(env); err != nil {
		return err
	}
	for _, o := range a.outs {
		if err := o.p.Record(env); err != nil {
			return err
		}
	}
	return nil
}

func (m *manyRun) worse(status int) {
	if status > m.worst {
		m.worst = status
	}
}

// addManyFlags adds --stream and the examples of several payloads to the
// validate command.
func (a *app) addManyFlags(cmd *cobra.Command) {
	cmd.Use = "validate [FILE...|-]"
	cmd.Long += `

Several FILEs: one envelope per payload, allowed ones too, in argument
order; the exit status is the worst (2 > 1 > 0). An unreadable or
undetectable FILE is an envelope with code MISSING_REQUIRED_INPUT in its
place (exit 2), and the others are still validated.

--stream reads JSON Lines (FILE or standard input), one payload per line,
and writes one envelope per line as soon as that line is decided, so that
an orchestrator may keep one agentlint as a co-process (write a line, read
a line). For record kinds (JSON Lines kinds) the cross-record rules of
lint run as the stream goes; at end of input a summary envelope carries the
counts and the findings that need the whole stream. Without --kind the kind
comes from FILE's name or the first line's keys.`
	cmd.Example += `
  agentlint validate packets/t12.json packets/t13.json results/t12.json
  orchestrator | agentlint validate --stream --kind operator/assignment
  tail -f logs/events-2025-12-13.jsonl | agentlint validate --stream`
	cmd.Flags().BoolVar(&a.stream, "stream", false, "read JSON Lines, one payload per line, and print one envelope per line as it is decided, then a summary")
}

// validateMany validates several payloads (FILE...) or, with --stream, a
// JSON Lines stream.
func (a *app) validateMany(files []string) error {
	if err := a.noBase("validate"); err != nil {
		return err
	}
	if a.stream {
		if len(files) > 1 {
			return usagef("validate --stream reads one stream (FILE or -), not %d", len(files))
		}
		if a.g.assignment != "" {
			return usagef("--assignment applies to one result payload; it is not available with --stream")
		}
		file := "-"
		if len(files) == 1 {
			file = files[0]
		}
		return a.validateStream(file)
	}
	p, cfg, opts, eng, err := a.setupGate()
	if err != nil {
		return err
	}
	m := &manyRun{p: p, cfg: cfg, opts: opts, eng: eng}
	a.many = m
	defer func() { a.many = nil }()
	for _, file := range files {
		err := a.validate(file)
		var ue *usageError
		switch {
		case err == nil:
		case errors.Is(err, errDenied):
			m.worse(exitDeny)
		case errors.As(err, &ue):
			m.worse(exitUsage)
			env := envelope.Envelope{Allow: false, Code: ue.Code, Reason: ue.Reason, Details: map[string]any{"file": file}}
			if err := m.record(a, env); err != nil {
				return err
			}
		default:
			return err
		}
	}
	if err := closePrinter(p); err != nil {
		return err
	}
	return manyStatus(m.worst)
}

// manyStatus is the error that gives a run of several verdicts, all
// printed already, its exit status.
func manyStatus(worst int) error {
	switch worst {
	case exitOK:
		return nil
	case exitDeny:
		return errDenied
	}
	return errIncomplete
}

// flusher is an output that buffers (a bufio.Writer).
type flusher interface{ Flush() error }

// flush pushes what w buffers to its reader: a co-process reads each
// envelope before it writes the next line.
func flush(w io.Writer) {
	_ = flushErr(w)
}

// flushErr is flush, with the error of the write.
func flushErr(w io.Writer) error {
	if f, ok := w.(flusher); ok {
		return f.Flush()
	}
	return nil
}

// validateStream is `agentlint validate --stream [FILE|-]`.
func (a *app) validateStream(file string) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(streamGCPercent))
	}
	if !isTerminal(a.stdout) {
		// Envelopes are buffered and flushed when no whole line is
		// waiting (stream_batch.go): one write per batch, not per line. A
		// terminal keeps its writes as they are (and so its colors).
		bw := bufio.NewWriterSize(a.stdout, 64<<10)
		stdout := a.stdout
		a.stdout = bw
		defer func() {
			_ = bw.Flush()
			a.stdout = stdout
		}()
	}
	p, cfg, opts, eng, err := a.setupGate()
	if err != nil {
		return err
	}
	if err := a.checkOutputs(file); err != nil {
		return err
	}
	det, err := a.detector(cfg)
	if err != nil {
		return err
	}
	name := "" // the session sniffs its first line
	if k := det.ByName(file); k != nil {
		name = k.Name
	}
	scfg := lint.SessionConfig{Options: opts, Engine: eng, File: file}
	s, err := lint.NewSession(name, scfg)
	if err != nil {
		return usagef("%v", err)
	}
	var in io.Reader = a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			if _, rerr := a.readInput(file); rerr != nil {
				return rerr
			}
			return usagef("%s: cannot read: %v", file, unwrapPath(err))
		}
		defer f.Close()
		in = f
	}
	m := &manyRun{p: p}
	lr := newLineReader(in, record.MaxLine)
	var (
		pool  *docPool // document kinds on every core, once the kind is known
		batch streamBatch
		envs  []envelope.Envelope
		n     int // lines decided
	)
	defer func() {
		if pool != nil {
			pool.close()
		}
	}()
	for eof := false; !eof; {
		// A batch: the next line (waiting for it), then every whole line
		// already there.
		batch.reset()
		for {
			line, err := lr.next()
			if len(line) > 0 {
				batch.add(line)
			}
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				return usagef("%s: cannot read: %v", file, err)
			}
			if len(batch.ends) >= maxStreamBatch || len(batch.data) >= maxStreamBatchBytes || !lr.lineReady() {
				break
			}
		}
		lines := batch.seal()
		for len(lines) > 0 {
			if pool == nil && s.Kind() != nil && parallelDocs(s.Kind(), eng) {
				if pool, err = newDocPool(s.Kind(), scfg); err != nil {
					return usagef("%v", err)
				}
			}
			if pool != nil {
				envs = pool.decide(lines, n+1, envs)
				for _, env := range envs {
					if err := m.print(a, env); err != nil {
						return err
					}
					if !env.Allow {
						m.worse(exitDeny)
					}
				}
				n += len(lines)
				break
			}
			env := s.Record(lines[0])
			lines = lines[1:]
			n++
			if err := m.print(a, env); err != nil {
				return err
			}
			if env.Code == envelope.MissingRequiredInput && s.Kind() == nil {
				// Not a payload of any kind this tool knows: a usage error.
				_ = closePrinter(p)
				return errIncomplete
			}
			if !env.Allow {
				m.worse(exitDeny)
			}
		}
		if !lr.lineReady() {
			// Nothing more to decide without reading: the client may be
			// waiting for these envelopes before it writes its next line.
			if err := flushErr(a.stdout); err != nil {
				return err
			}
		}
	}
	var sum envelope.Envelope
	if pool != nil {
		sum = pool.summary(s)
		pool = nil
	} else {
		sum = s.Close()
	}
	warnings, _ := sum.Details["warnings"].(int) // every line's and the summary's
	a.overWarnings(&sum, warnings)
	if !sum.Allow {
		m.worse(exitDeny)
	}
	if vs, _ := sum.Details["violations"].([]envelope.Violation); len(vs) > 0 && a.g.format != "json" {
		// The run-wide findings, for the formats whose summary shows only
		// counts (text, github, SARIF, JUnit, Markdown).
		d := map[string]any{"file": file}
		if k := s.Kind(); k != nil {
			d["kind"] = k.Name
		}
		if err := p.Record(envelope.Verdict(append([]envelope.Violation(nil), vs...), "run-wide findings", d)); err != nil {
			return err
		}
	}
	if err := p.Summary(sum); err != nil {
		return err
	}
	for _, o := range a.outs {
		if err := o.p.Summary(sum); err != nil {
			return err
		}
	}
	flush(a.stdout)
	if err := closePrinter(p); err != nil {
		return err
	}
	return manyStatus(m.worst)
}

// lineReader reads lines as they arrive: next returns as soon as one whole
// line (or the end of input) is there, never waiting for more. A line
// longer than max is returned cut to max+2 bytes, which the validator
// reports as too long (AL009): memory stays bounded by max.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line with its "\n" (none on a last line without
// one) and io.EOF at the end of input (with the last line, if any).
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(chunk) > l.max+2 {
			chunk = chunk[:max(0, l.max+2-len(l.buf))]
		}
		l.buf = append(l.buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return l.buf, fmt.Errorf("%w", err)
		}
		return l.buf, err
	}
}
