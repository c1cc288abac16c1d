//go:build devtools

// Command schemagen compiles cue/*.cue into lint/fast/zz_validators.go (run
// by `go generate ./lint/fast`, `make generate`). It writes the file atomically and fails on any
// CUE construct outside the supported subset (see package schema).
//
// With -jsonschema DIR it writes the JSON Schema of every kind into DIR
// instead (lint/schemaexport/schemas, by `go generate ./lint/schemaexport`),
// each file atomically, and removes *.schema.json files of DIR that no kind
// has any more.
//
// With -cue DIR and -pkg NAME it compiles another CUE package (the test
// schemas of lint/internal/fasttest) into package NAME, which dot-imports
// lint/fast.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/google/renameio/v2"

	"github.com/agentlint/agentlint/lint/internal/exportgen"
	"github.com/agentlint/agentlint/lint/schema"
)

func main() {
	out := flag.String("o", "zz_validators.go", "output file")
	dir := flag.String("cue", "", "directory of the CUE package (default: the embedded cue/*.cue)")
	pkg := flag.String("pkg", "fast", "Go package of the output file")
	jsDir := flag.String("jsonschema", "", "write the JSON Schema of every kind into this directory")
	flag.Parse()
	var fsys fs.FS = cuedefs.Files
	if *dir != "" {
		fsys = os.DirFS(*dir)
	}
	if *jsDir != "" {
		if err := runJSONSchema(fsys, *jsDir); err != nil {
			fmt.Fprintln(os.Stderr, "schemagen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(fsys, *pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func runJSONSchema(fsys fs.FS, dir string) error {
	m, err := schema.Compile(fsys)
	if err != nil {
		return err
	}
	files, err := exportgen.Files(m)
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if files[filepath.Base(p)] == nil {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		if err := renameio.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(fsys fs.FS, pkg, out string) error {
	m, err := schema.Compile(fsys)
	if err != nil {
		return err
	}
	src, err := schema.GeneratePackage(m, pkg)
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
