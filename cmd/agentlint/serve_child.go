package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// runServeChild runs agentlint-serve at path with this command's arguments
// and standard streams, forwards SIGTERM and SIGINT to it, and takes over
// its exit status.
func (a *app) runServeChild(path string) error {
	cmd := exec.Command(path, a.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		return usagef("serve: running %s: %v", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sig:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			var xe *exec.ExitError
			switch {
			case err == nil:
				return &exitStatus{code: exitOK}
			case errors.As(err, &xe) && xe.ExitCode() >= 0:
				return &exitStatus{code: xe.ExitCode()}
			}
			return usagef("serve: running %s: %v", path, err)
		}
	}
}
