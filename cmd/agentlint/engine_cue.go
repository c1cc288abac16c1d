package main

import (
	"github.com/agentlint/agentlint/lint"
)

// newCUEEngine returns the CUE evaluator engine (--engine cue).
func newCUEEngine() (lint.SchemaEngine, error) {
	return nil, usagef("--engine cue is not available yet")
}
