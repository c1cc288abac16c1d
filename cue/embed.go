// Package cuedefs embeds the CUE definitions of every kind (cue/README.md): the
// single source of truth for schemas and per-record invariants. lint/schema
// compiles them into the fast path at `go generate` time; lint/cueeval evaluates
// them with the CUE evaluator (--engine cue).
package cuedefs

import "embed"

// Files holds every *.cue file of this directory (package agentlint) and the
// collector JSON Schema of seed 004 (collector.schema.json), verbatim.
//
//go:embed *.cue *.json
var Files embed.FS
