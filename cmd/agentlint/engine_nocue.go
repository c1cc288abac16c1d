//go:build !cueengine

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentlint/agentlint/lint/record"
)

// cueBinary is the name of the agentlint build that links the CUE evaluator
// (`go build -tags cueengine -o agentlint-cue ./cmd/agentlint`; `make build`
// writes bin/agentlint-cue next to bin/agentlint).
const cueBinary = "agentlint-cue"

// newCUEEngine hands the whole command to agentlint-cue. The default binary
// does not link the CUE evaluator, which would add ~3.5 ms of package
// initialisation to every `validate` (measured: 6.2 ms against 2.7 ms median);
// `--engine cue` is for audits, where one more process start does not matter.
// agentlint-cue is looked up next to this executable, then on PATH. Its exit
// status becomes ours (an *exitStatus error); when it is missing, the error is a
// usage error that says how to build it.
func (a *app) newCUEEngine() (record.SchemaEngine, error) {
	path := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), cueBinary); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		if p, err := exec.LookPath(cueBinary); err == nil {
			path = p
		}
	}
	if path == "" {
		return nil, usagef("--engine cue runs %s, which was found neither next to agentlint nor on PATH; build it with `make build` (bin/%s) or `go build -tags cueengine -o $(go env GOPATH)/bin/%s ./cmd/agentlint`", cueBinary, cueBinary, cueBinary)
	}
	cmd := exec.Command(path, a.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
	err := cmd.Run()
	var xe *exec.ExitError
	switch {
	case err == nil:
		return nil, &exitStatus{code: exitOK}
	case errors.As(err, &xe) && xe.ExitCode() >= 0:
		return nil, &exitStatus{code: xe.ExitCode()}
	}
	return nil, usagef("--engine cue: running %s: %v", path, err)
}
