//go:build !cueengine

package main

import "github.com/agentlint/agentlint/lint"

// newCUEEngine: the default binary does not link the CUE evaluator, which
// would add ~3.5 ms of package initialisation to every `validate` (measured:
// 6.2 ms vs 2.7 ms median). Build with `go build -tags cueengine ./cmd/agentlint`
// for --engine cue; the agreement test (lint/cueeval) always runs both engines.
func newCUEEngine() (lint.SchemaEngine, error) {
	return nil, usagef("--engine cue needs a binary built with -tags cueengine (go build -tags cueengine ./cmd/agentlint)")
}
