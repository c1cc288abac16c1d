//go:build serveengine

package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/agentlint/agentlint/cmd/agentlint/server"
	"github.com/agentlint/agentlint/cmd/agentlint/server/serveconf"
)

// serveGCPercent is the garbage collector's target of agentlint serve
// unless GOGC says otherwise. The CLI's gcPercent (main.go) keeps short
// runs small; a server allocates a few kilobytes per request (net/http's
// request and response, the envelope) around a live heap of a few
// megabytes, so at 50 it collected every few hundred requests and the
// collector took a measured share of its CPU (cmd/agentlint/server/README.md,
// "Measured"). At 400 the heap peaks at about five times the live heap,
// and stays flat under load (TestServeLoad).
const serveGCPercent = 400

// agentlint-serve: this build runs the server itself.
func init() {
	serveImpl = func(ctx context.Context, rc serveconf.RunConfig) error {
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(serveGCPercent)
		}
		return server.Run(ctx, rc)
	}
}
