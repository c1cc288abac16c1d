// Package record validates one payload at a time: a whole document (JSON, a
// VerMAS TOML template or assignment text, converted to its JSON form) or one
// JSON Lines record. Validator.Document and Validator.Record run the schema of
// the kind (the fast path generated from cue/*.cue, or another SchemaEngine
// such as the CUE evaluator of lint/cueeval) and the document rules of the
// registry (rules), and return every violation with its rule, code,
// severity, JSON Pointer, line and column (seed 001 "Validator Output
// Contract"; README, "Codes and precedence").
//
// It is the seam between the run engine (package lint, which reads files,
// runs -j workers and the rules across records) and the per-record checks:
//
//   - Validator: Document, Record, RecordLine (violations, and the decoded
//     document when the schema passed), Fill (codes and severities of
//     violations found elsewhere), Captured (where the fast path's acceptor
//     found the declared members of the last record);
//   - Extractor: the values stream rules declare (rules.Field) out of one
//     record, in one scan or from the acceptor's spans;
//   - DocumentJSON, JSONForm: a document's JSON form and source positions;
//   - Locate, LineCol: a JSON Pointer's byte offset, line and column;
//   - LineReader: sequential JSON Lines reading for readers that do not need
//     the run engine (the replayer, summarize).
//
// A Validator is not safe for concurrent use; make one per goroutine.
package record
