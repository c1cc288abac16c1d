//go:build serveengine

package main

import (
	"context"

	"github.com/agentlint/agentlint/lint/server"
)

// agentlint-serve: this build runs the server itself.
func init() {
	serveImpl = func(ctx context.Context, r serveRun) error { return server.Run(ctx, server.RunConfig(r)) }
}
