// Package lint is the run engine: it takes the inputs of a run (files,
// directories walked with .gitignore and the configuration's excludes,
// standard input), gives each its kind (lint/kind), cuts JSON Lines files
// into chunks of whole lines, validates their records on -j workers with the
// record validator (lint/record), runs the stream and tree rules of the
// registry (rules) across records and files in input order, and emits one
// envelope per record or document, in order, with bounded memory. It knows
// nothing of output formats (lint/output renders them).
//
// The layers, each importing only those below it:
//
//	cmd/agentlint            flags, output, exit status
//	lint                     the run: Lint, Linter, Session, ValidatePayload
//	lint/record              one document or record in, violations out
//	rules                    the registry: document, stream and tree rules
//	lint/kind, lint/fast, lint/envelope, ...  the catalogue, the generated
//	                         validators, the verdict
//
// # Progress
//
// **Progress without cost on the hot path.** `lint.LintConfig.Progress` is three
// atomic counters (files done, bytes read, records validated) that the pipeline
// advances once per chunk or file, never per record: the reader counts bytes
// through a wrapper of the file's reader, the emitter adds each chunk's record
// count. With no display the pointer is nil (one test per chunk). The CLI's
// ticker reads them every 100 ms and draws; a second walk of the same inputs (stat
// only, in the background) gives the totals. When stdout is the same terminal,
// the line is erased before each write of output and redrawn at the next tick.
package lint
