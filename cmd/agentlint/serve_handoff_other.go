//go:build !unix

package main

// handOffServe runs agentlint-serve with the same arguments as a child
// process, forwarding interrupts to it.
func (a *app) handOffServe() error {
	path := findServeBinary()
	if path == "" {
		return missingServeBinary()
	}
	return a.runServeChild(path)
}
