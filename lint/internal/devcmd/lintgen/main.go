//go:build devtools

// Command lintgen writes a generated log (lint/bench.Generate) and the list
// of its defective lines (FILE.defects.tsv: line, code, severity, defect).
//
//	go run ./lint/internal/devcmd/lintgen -kind collector/event -lines 1000000 -o events-bench.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentlint/agentlint/lint/bench"
)

func main() {
	kind := flag.String("kind", bench.KindCollector, "collector/event or operator/worklog")
	lines := flag.Int("lines", 100000, "number of lines")
	seed := flag.Uint64("seed", 4, "seed of the generator")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "lintgen: -o FILE is required")
		os.Exit(2)
	}
	if err := gen(*kind, *lines, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "lintgen:", err)
		os.Exit(1)
	}
}

func gen(kind string, lines int, seed uint64, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defects, err := bench.Generate(f, bench.Config{Kind: kind, Lines: lines, Seed: seed})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	df, err := os.Create(out + ".defects.tsv")
	if err != nil {
		return err
	}
	if err := bench.WriteDefects(df, defects); err != nil {
		df.Close()
		return err
	}
	return df.Close()
}
