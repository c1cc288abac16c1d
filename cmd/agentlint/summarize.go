package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/lint/replay"
	"github.com/agentlint/agentlint/lint/summarize"
)

func (a *app) summarizeCmd() *cobra.Command {
	var session, out string
	cmd := &cobra.Command{
		Use:   "summarize LEDGER.jsonl... [--session ID] [--out FILE|DIR]",
		Short: "Write the Markdown session summaries of agent ledgers (seed 003)",
		Long: `Summarize agent ledgers (seed 003, kind ledger/entry) as seed 003's Markdown
session summaries: title, date, total events, timeline, tasks completed
(status, duration), errors and notes, one per session_id.

Every entry is validated first. A denied entry is printed on stderr as its
envelope (--format json or text) and left out of the summaries, and the exit
status is 1.

Without --session every session found is summarized, sorted by session id;
on stdout the summaries are separated by a line "---" between blank lines.
--out FILE writes the one summary atomically; with several sessions (or when
it names an existing directory) --out is a directory, created if missing, and
each summary is written atomically to DIR/YYYY-MM-DD_<agent>_NNN.md (seed 003's
file pattern). Ledgers are streamed; - reads stdin.

Exit status: 0 every entry valid, 1 an entry was denied (the summaries of the
valid entries are still written), 2 usage error (missing file, no session).`,
		Example: `  agentlint summarize g/ledger/cls/2025-11-16.jsonl
  agentlint summarize --session 2025-11-16_cls_001 --out summary.md g/ledger/cls/*.jsonl
  agentlint summarize --out memory/sessions/ g/ledger/*/*.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.summarize(args, session, out)
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "summarize only this session_id (YYYY-MM-DD_<agent>_NNN)")
	cmd.Flags().StringVar(&out, "out", "", "write the summary to FILE, or the summaries to DIR/<session_id>.md (atomically)")
	return cmd
}

func (a *app) summarize(files []string, session, out string) error {
	_, _, opts, eng, err := a.setup() // flags, config, engine
	if err != nil {
		return err
	}
	ep, err := output.New(a.g.format, a.stderr, false, a.runInfo())
	if err != nil {
		return usagef("%v", err)
	}
	stdin := 0
	for _, f := range files {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("at most one input may be standard input (-)")
	}
	s := summarize.New(summarize.Options{
		Validator: record.NewValidator(opts, eng),
		Session:   session,
		Denied: func(e envelope.Envelope) error {
			if err := ep.Record(e); err != nil {
				return &writeError{err}
			}
			return nil
		},
	})
	for _, f := range files {
		if err := a.summarizeFile(s, f); err != nil {
			return err
		}
	}
	sessions := s.Sessions()
	switch {
	case len(sessions) == 0 && session != "":
		return usagef("session %s: no valid entry of it in %s", session, strings.Join(files, ", "))
	case len(sessions) == 0 && s.Denied() == 0:
		return usagef("no ledger entries in %s", strings.Join(files, ", "))
	}
	if err := a.writeSummaries(sessions, out, files); err != nil {
		return err
	}
	if s.Denied() > 0 {
		return errDenied
	}
	return nil
}

// summarizeFile streams one ledger into s.
func (a *app) summarizeFile(s *summarize.Summarizer, file string) error {
	var r io.Reader = a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fileUsagef(file, "%s: no such file", file)
			}
			return fileUsagef(file, "%s: cannot read: %v", file, unwrapPath(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return fileUsagef(file, "%s: is a directory; summarize takes ledger files (g/ledger/<agent>/YYYY-MM-DD.jsonl)", file)
		}
		r = f
	}
	err := s.Read(file, r)
	var we *writeError
	if err != nil && !errors.As(err, &we) {
		return fileUsagef(file, "%s: cannot read: %v", file, unwrapPath(err))
	}
	return err
}

// writeError is a failure to write a denied entry's envelope (stderr), as
// opposed to a failure to read a ledger.
type writeError struct{ error }

// writeSummaries prints the summaries on stdout, or writes them under out;
// inputs are the ledgers read, never written. A summary that cannot be
// written (a file name longer than the file system allows) does not stop
// the others: every failure is reported in the one usage error returned.
func (a *app) writeSummaries(sessions []*summarize.Session, out string, inputs []string) error {
	if out == "" {
		return summarize.Write(a.stdout, sessions)
	}
	st, err := os.Stat(out)
	isDir := err == nil && st.IsDir()
	if len(sessions) == 1 && !isDir && !strings.HasSuffix(out, string(filepath.Separator)) {
		return writeSummary(out, sessions[0], inputs)
	}
	if err == nil && !isDir {
		return usagef("--out %s: %d sessions need a directory, and %s is a file (or pick one with --session)", out, len(sessions), out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usagef("--out %s: %v", out, unwrapPath(err))
	}
	var failed []string
	for _, ss := range sessions {
		if err := writeSummary(filepath.Join(out, ss.FileName()), ss, inputs); err != nil {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		return usagef("%s", strings.Join(failed, "; "))
	}
	return nil
}

// writeSummary writes one summary atomically (temporary file, rename),
// unless path is one of the inputs.
func writeSummary(path string, ss *summarize.Session, inputs []string) error {
	if err := refuseInput("--out "+path, path, inputs); err != nil {
		return err
	}
	err := replay.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(ss.Markdown())
		return err
	})
	if err != nil {
		return usagef("--out %s: %v", path, unwrapPath(err))
	}
	return nil
}
