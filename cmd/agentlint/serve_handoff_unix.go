//go:build unix

package main

import (
	"os"
	"syscall"
)

// handOffServe replaces this process with agentlint-serve, run with the
// same arguments: the server keeps this process's id, so that SIGTERM sent
// to it reaches the server.
func (a *app) handOffServe() error {
	path := findServeBinary()
	if path == "" {
		return missingServeBinary()
	}
	if f, ok := a.stdout.(*os.File); !ok || f != os.Stdout {
		return a.runServeChild(path) // a caller's writers (tests): a child process
	}
	err := syscall.Exec(path, append([]string{serveBinary}, a.args...), os.Environ())
	return usagef("serve: running %s: %v", path, err)
}
