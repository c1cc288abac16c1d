//go:build cueengine

package main

import (
	"github.com/agentlint/agentlint/lint/cueeval"
	"github.com/agentlint/agentlint/lint/record"
)

// newCUEEngine returns the CUE evaluator engine (--engine cue): the same
// definitions as the fast path, evaluated by cuelang.org/go.
func (a *app) newCUEEngine() (record.SchemaEngine, error) {
	e, err := cueeval.New()
	if err != nil {
		return nil, usagef("--engine cue: %v", err)
	}
	return e, nil
}
