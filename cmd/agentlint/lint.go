package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
)

func (a *app) lintCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Lint files and directories; stream JSON Lines record by record",
		Long: `Lint files, directories (walked) and - (standard input). JSON Lines files are
read record by record in memory bounded by the longest line. Prints one
envelope per denied or warned record, then one summary envelope.

When a directory is walked, files whose kind cannot be determined are skipped
and counted; a file named explicitly must have a known kind.`,
		Example: `  agentlint lint testdata/demo
  agentlint lint --format text worklogs/
  cat worklogs/T-12.jsonl | agentlint lint --kind operator/worklog -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return a.lint(args)
		},
	}
	cmd.Flags().StringVar(&a.g.kind, "kind", "", "kind of every input (see agentlint kinds)")
	cmd.Flags().BoolVar(&a.g.quiet, "quiet", false, "print the summary envelope only")
	cmd.Flags().IntVar(&a.g.maxWarnings, "max-warnings", -1, "exit 1 when more than N warnings are reported (-1: no limit)")
	cmd.Flags().IntVarP(&a.g.jobs, "jobs", "j", 0, "parallel workers (default: number of CPUs)")
	return cmd
}

type input struct {
	path     string
	explicit bool
}

func (a *app) lint(args []string) error {
	p, cfg, opts, eng, err := a.setup()
	if err != nil {
		return err
	}
	if _, err := a.checkKind(); err != nil {
		return err
	}
	l := &lint.Linter{V: lint.NewValidator(opts, eng)}
	if !a.g.quiet {
		l.Emit = p.Record
	} else {
		l.Emit = func(envelope.Envelope) error { return nil }
	}
	var inputs []input
	for _, arg := range args {
		if arg == "-" {
			inputs = append(inputs, input{path: "-", explicit: true})
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("%s: no such file or directory", arg)
			}
			return usagef("%s: %v", arg, unwrapPath(err))
		}
		if !st.IsDir() {
			inputs = append(inputs, input{path: arg, explicit: true})
			continue
		}
		var files []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return usagef("%s: %v", path, unwrapPath(err))
			}
			if d.IsDir() {
				if path != arg && d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && !cfg.Excluded(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			inputs = append(inputs, input{path: f})
		}
	}
	for _, in := range inputs {
		if err := a.lintOne(l, in, cfg); err != nil {
			return err
		}
	}
	sum := l.Stats.Summary()
	if sum.Allow && a.g.maxWarnings >= 0 && l.Stats.Warnings > a.g.maxWarnings {
		sum.Allow = false
		sum.Code = envelope.NonCompliant
		sum.Reason = fmt.Sprintf("%d warnings exceed --max-warnings %d", l.Stats.Warnings, a.g.maxWarnings)
	}
	if err := p.Summary(sum); err != nil {
		return err
	}
	if !sum.Allow {
		return errDenied
	}
	return nil
}

func (a *app) lintOne(l *lint.Linter, in input, cfg *lint.Config) error {
	if in.path == "-" {
		data, err := a.readInput("-")
		if err != nil {
			return err
		}
		kind, err := a.detect("-", data, cfg)
		if err != nil {
			return err
		}
		return l.File(kind, "-", bytesReader(data))
	}
	kind, err := a.kindOf(in.path, cfg)
	if err != nil {
		return err
	}
	if kind == nil {
		if in.explicit {
			return undetectable(in.path)
		}
		l.Stats.SkippedFiles++
		return nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return usagef("%s: cannot read: %v", in.path, unwrapPath(err))
	}
	defer f.Close()
	if err := l.File(kind, in.path, f); err != nil {
		return usagef("%s: cannot read: %v", in.path, unwrapPath(err))
	}
	return nil
}

// kindOf detects a file's kind; only .json and .jsonl files are sniffed,
// from their first 64 KiB.
func (a *app) kindOf(path string, cfg *lint.Config) (*lint.KindInfo, error) {
	ext := filepath.Ext(path)
	var rerr error
	k, err := a.resolveKind(path, cfg, ext == ".json" || ext == ".jsonl", func() []byte {
		f, err := os.Open(path)
		if err != nil {
			rerr = usagef("%s: cannot read: %v", path, unwrapPath(err))
			return nil
		}
		defer f.Close()
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(f, head)
		return head[:n]
	})
	if rerr != nil {
		return nil, rerr
	}
	return k, err
}
