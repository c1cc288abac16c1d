// Command gen compiles cue/*.cue into lint/fast/zz_validators.go (run by
// `go generate ./lint/fast`). It writes the file atomically and fails on any
// CUE construct outside the supported subset (see package schema).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/schema"
)

func main() {
	out := flag.String("o", "zz_validators.go", "output file")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	m, err := schema.Compile(cuedefs.Files)
	if err != nil {
		return err
	}
	src, err := schema.Generate(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".gen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(src); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
