// Package fast is the hot path: validators generated from the CUE
// definitions (zz_validators.go, by lint/internal/devcmd/schemagen) run over
// a JSON token stream (github.com/go-json-experiment/json/jsontext) and
// validate while they parse: no generic maps, no per-record allocation on
// valid input.
//
// The runtime in this file reads tokens, tracks the JSON Pointer of the value
// being read without building strings, and reports violations with their
// byte offset; line and column are computed only when a violation is reported.
// Objects with conditional fields are pre-scanned for their discriminators
// (Dec.Conds) so that a member may come before the field that types it.
// Violations carry a rule ID and a reason; the engine fills in code and
// severity from the rule registry (rules.Registry).
//
// # Design
//
// **CUE is the single source of truth; the hot path does not evaluate CUE.**
// `cue/*.cue` defines every kind and per-record invariant (types, enums,
// regexes, code-point lengths, bounds including `heartbeat_interval_seconds <
// timeout_seconds`, `status == "done"` ⇒ passing acceptance checks, the x_
// extension policy). Evaluating CUE per record costs 70–90 µs and ~25 KiB, so
// `go generate ./lint/fast` (lint/internal/devcmd/schemagen) compiles the definitions into Go
// validators that check a JSON token stream while they parse it: no generic
// maps, no per-record allocation. The compiler (`lint/schema`) accepts exactly
// the CUE subset the definitions use (documented in `lint/schema/model.go`) and
// fails loudly on anything else; `TestGeneratedIsFresh` fails when the committed
// `lint/fast/zz_validators.go` is stale. Every generated function's comment
// names the CUE paths it checks (`#CollectorEvent.tool.tool_name`) and the rule
// IDs it reports, and the file's header comment explains its layout: search it
// for a definition path to find the code that checks it. Rule IDs are attached in CUE with
// `@rule(ID)` attributes; the rule's code, severity, summary and examples live
// only in the registry (`rules/`). Regular expressions are RE2 in both CUE and
// Go, so both engines agree by construction; they are compiled on first use, so
// `agentlint validate` starts without compiling anything, and the hottest ones
// (date-times, UUIDs, versions, the collector event type) have hand-written
// equivalents (`lint/fast/native.go`) that a test and a fuzz target hold equal
// to the regex. A definition's `@desc("...")` names what its pattern means, so
// reasons say `"x" is not an RFC 3339 date-time` instead of printing the regex,
// and `@format("date-time"|"uuid")` names the JSON Schema format the pattern
// refines (for `agentlint schema export`, generated from the same model).
//
// **Conditional fields.** A CUE struct may say `if f == "lit" { g!: T }` (g
// exists, with its own type and rule, only when f equals the literal), `if f !=
// _|_ if f == "lit" { … }` when f is optional, and `if f == _|_ { … }` for
// records without f (CUE's own meaning: also when f is invalid). VerMAS event
// `data` is typed per `event_type` and idle events per `event` this way. The
// fast path finds the discriminators by scanning the record's bytes before it
// validates, with no allocation (0.4× a syntax check in the worst case).
//
// **Two engines, one verdict.** `--engine cue` evaluates the same definitions
// with the CUE evaluator (`lint/cueeval`). The agreement test runs every payload
// under `testdata/`, the conformance inputs and a systematic mutation corpus
// through both engines and fails on any difference in allow, code or the set of
// violation pointers. CUE hides "required field missing" and "field not
// allowed" errors when a struct also has a conflict, so the CUE engine removes
// the members holding conflicts and re-validates until no new errors appear.
// Linking the CUE evaluator into agentlint costs ~3.5 ms of package
// initialisation on every start (measured: `validate` 6.2 ms against 2.7 ms
// median), so the default binary does not link it: `--engine cue` runs
// `agentlint-cue` (the same CLI built with `-tags cueengine`; `make build`
// writes `bin/agentlint-cue` next to `bin/agentlint`) with the same arguments
// and takes over its output and exit status. `go build -tags cueengine -o
// $(go env GOPATH)/bin/agentlint-cue ./cmd/agentlint` installs it beside a
// `go install`ed agentlint.
//
// **The JSON reader** is `github.com/go-json-experiment/json/jsontext` (the
// `encoding/json/v2` design): it rejects duplicate object names, invalid UTF-8,
// lone surrogate escapes, NaN/Infinity and trailing commas; agentlint adds the
// end-of-input check (trailing garbage), a nesting limit of 10,000 levels
// (jsontext's own, everywhere) with a clear reason (a 100 000-level document is an
// envelope, not a stack overflow), integer checks on the raw number text (`1200.0`
// is not an integer) and line and column for every violation (computed only when a
// violation is reported). The generated validators do not read records with
// jsontext's tokenizer, though: `lint/fast/scan.go` is a one-pass scanner over the
// record's bytes with the same grammar and checks (duplicate names by a linear
// check over the ≤ 16 names of an object, no map; UTF-8; escapes through
// `jsontext.AppendUnquote`; numbers; literals; one top-level value). It never
// reports a syntax error itself: on anything it does not accept (malformed input,
// escaped member names, objects of more than 16 members, nesting deeper than
// 1,000) the run starts again over jsontext, so every violation, syntax or not, is
// what jsontext's reading gives. `FuzzScanner` holds it to that: what the scanner
// accepts, jsontext accepts as the same tokens at the same offsets, and every
// validator reports the same violations either way.
//
// **Acceptors: one pass for the common case**. Most records of a
// log have no violation, and the validator above pays for naming violations
// it will not find: a tokenizer, a JSON Pointer path, a panic to bail out.
// So the generator also compiles every kind into an *acceptor*
// (`lint/schema/accept.go` writes them into `lint/fast/zz_validators.go`,
// beside the validators; runtime in `lint/fast/accept.go`): one pass over the
// record's bytes that checks the grammar (UTF-8, escapes, numbers, literals,
// duplicate names at every depth, one top-level value) and every constraint
// of the kind as it goes, and answers only "certainly valid" or "not sure".
// On "not sure" the validator runs and names the violations, so an acceptor
// only has to be right when it accepts; it declines the rare shapes it
// leaves to the validator (escaped member names, more than 32 undeclared
// members in one object, nesting deeper than 64); a sibling bound
// (`heartbeat_interval_seconds < timeout_seconds`) is checked on the two
// members' literals once the object is read.
// Conditional fields and checks (vermas and idle events) are read as the
// validator reads them: the discriminators first (the validator's own
// pre-scan, `Dec.Conds`), then each member by the declaration whose
// conditions hold; `TestAcceptConditional` holds the acceptors of the test
// schemas of `lint/internal/fasttest/cond.cue` to their validators on every seed
// and its mutations (a generator that skips the checks, or the conditional
// required members, is caught). Declared member names are
// recognized by one or two 8-byte comparisons of `"name":` before the
// general reader; strings are scanned eight bytes at a time; each leaf's
// enum, length and patterns are written out. `TestAcceptAgreement` runs
// every acceptor against its validator, in both modes, on every payload
// under `testdata/` (and `../shared` when present), a mutation corpus and
// the generated logs, and fails if an acceptor accepts what its validator
// rejects (a mutation that drops the enum check or the duplicate check is
// caught); `TestAcceptUseful` requires every valid generated line to be
// accepted; `FuzzAccept` keeps looking. While it checks, an acceptor records
// the span of every declared member outside arrays (capture slots,
// `fast.Acceptor.Fields`): the document rules read their values there
// (`rules.Doc.Flat` and `Doc.DocStr`: no map, nothing decoded; a rule that
// still calls `Root` gets the map built from them) and so do the stream
// rules (`lint/record/extract.go`, `Extractor.Values`), so an accepted record is read once.
// `FastEngine.Schema` tries the acceptor first too, which is what made the
// replayer's batch validation cheap.
package fast
