//go:build serveengine

package main

import (
	"github.com/agentlint/agentlint/lint/server"
)

// agentlint-serve: this build runs the server itself.
func init() {
	serveImpl = server.Run
}
