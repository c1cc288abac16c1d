// Package replay is the ledger-delta replayer of lint/replay/README.md (seed
// 001, "Ledger Delta Application Semantics"): it applies streams of ledger
// deltas to a base ledger, checks every applied delta against the task state
// machine, reconciles the resulting ledger and, with a clock, runs the
// watchdog; the verdict is one validator envelope. It is a library so that a
// Go orchestrator can embed it; `agentlint replay` is a thin command over
// Run and Result.WriteLedger.
//
// Inputs. BASE is a handoff bundle (operator/handoff), a reconcile document
// (operator/reconcile, the form this package emits), a JSON array of ledger
// rows or JSON Lines of ledger rows. A STREAM is an orchestrator output
// (operator/orchestrator-output: its ledger_delta) or JSON Lines of deltas.
// Every input is validated as its kind first (rows as the rows of an
// operator/reconcile document, deltas as the ledger_delta entries of an
// orchestrator output); an invalid input stops the replay and the verdict
// lists the violations of every invalid input.
//
// Semantics (lint/replay/README.md):
//
//   - D1: the deltas of a stream apply in listed order.
//   - D2: a delta_id seen before (earlier in the stream, or recorded in
//     BASE's x_agentlint_applied_deltas) with identical content (equal
//     after RFC 8785 canonicalization) is skipped and counted; with other
//     content it is rejected (RP002, CONCURRENCY_CONFLICT). The same id with
//     different content in two streams is RP002 too.
//   - D3: the last applied delta wins for status, owner, reason,
//     last_heartbeat_at, timed_out and retry_after_ms. An optional field a
//     delta does not carry keeps its value.
//   - D4: a delta for a task absent from BASE is rejected (RP001,
//     LEDGER_INCONSISTENT) unless its status is todo (create-intent): then it
//     creates a row holding task_id and the delta's mutable fields.
//   - D5: each stream is applied to BASE on its own. A stream writes a field
//     of a task when one of its applied deltas for that task carries the
//     field; when two streams write a field and leave different values
//     (compared canonically), the task is listed (RP007,
//     CONCURRENCY_CONFLICT) with every such field, and there is no merged
//     ledger. Otherwise the merged ledger takes each field from the streams
//     that wrote it, or from BASE.
//   - The task state machine (rules.CheckStep): a forbidden status change
//     (RP003) and a terminal self-loop that changes owner (RP004) are
//     INVALID_TRANSITION; entering in_progress needs a non-blank owner
//     (RP005, INVALID_TRANSITION) and every dependency done in the stream's
//     current ledger (RP006, DEPENDENCY_NOT_MET). A rejected delta is not
//     applied; the replay goes on with the next one.
//   - After the last delta the resulting ledger is reconciled with the
//     registry rules of operator/reconcile (OP050-OP054) and, when
//     Options.Now is set, checked by the watchdog rules OP060 (TASK_TIMEOUT)
//     and OP061 (heartbeat beyond MaxSkew after now). With a D5 conflict
//     there is no resulting ledger and these checks are skipped.
//
// Every violation carries, in its details, the file it points into and, for
// a delta, "stream", "delta_index" (0-based position in its stream) and
// "delta_id". Findings about the resulting ledger point at the delta that
// last wrote the field concerned (or at BASE when no delta did).
//
// The emitted ledger (Result.WriteLedger) is an operator/reconcile document
// in a canonical layout described at WriteLedger.
package replay

import (
	"errors"
	"hash/maphash"
	"io"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// Input is one input of a replay: its name (a file name, "-" for standard
// input; used in details and positions) and its content. Run reads R to its
// end and does not close it. A STREAM whose R is also an io.ReaderAt and an
// io.Seeker (a regular *os.File, a *bytes.Reader; not a pipe or terminal)
// is read again at byte offsets, from the offset R was at, by Run and by
// Result.WriteLedger (lint/replay/README.md, D2: see Run), so it must stay
// open and unchanged until the ledger is written.
type Input struct {
	Name string
	R    io.Reader
}

// Options configure a replay. The embedded record.Options are those of input
// validation (Strict, MaxSkew, Severity); Now is the watchdog's clock: zero
// means no watchdog. MaxSkew zero means rules.DefaultMaxSkew.
type Options struct {
	record.Options
	// Engine validates the inputs' schemas; nil: the fast path.
	Engine record.SchemaEngine

	// Tests only: hash replaces the delta_id hash (to make ids collide);
	// noReread keeps every id and digest in memory for every stream, as
	// for a stream that cannot be read again.
	hash     func([]byte) uint64
	noReread bool
}

// InputError is a problem that keeps the replay from starting at all: an
// input that cannot be read or whose form cannot be determined. The CLI
// reports it with exit status 2 (README, Codes and precedence).
type InputError struct {
	Name   string
	Reason string
}

func (e *InputError) Error() string { return e.Name + ": " + e.Reason }

// ErrNoLedger is returned by WriteLedger when the verdict denies or the
// streams conflict (D5): there is no resulting ledger to write.
var ErrNoLedger = errors.New("replay: no resulting ledger (the verdict denies)")

// Counts are the delta counts of one stream or of the whole replay.
type Counts struct {
	// Deltas is the number of deltas read (valid inputs only).
	Deltas int `json:"deltas"`
	// Applied deltas changed the ledger (D1, D3, D4 create-intent).
	Applied int `json:"applied"`
	// SkippedDuplicates were seen before with identical content (D2).
	SkippedDuplicates int `json:"skipped_duplicates"`
	// Rejected deltas were not applied: D2 conflict, D4, state machine.
	Rejected int `json:"rejected"`
}

func (c *Counts) add(o Counts) {
	c.Deltas += o.Deltas
	c.Applied += o.Applied
	c.SkippedDuplicates += o.SkippedDuplicates
	c.Rejected += o.Rejected
}

// Result is the outcome of a replay.
type Result struct {
	// Envelope is the verdict: allow, code, reason and details: "ledger"
	// and "ledger_form" (BASE), "streams" (per stream: file, form and
	// counts), the total counts ("deltas", "applied",
	// "skipped_duplicates", "rejected"), "tasks" (task_id → final status;
	// null for a task the streams conflict on, D5), "task_count", "now" (with a
	// watchdog clock) and "violations".
	Envelope envelope.Envelope
	// Counts are the totals over all streams.
	Counts Counts
	// final is the resulting (merged) ledger; nil when there is none.
	final *state
}

// Run replays streams (concurrent, D5) against base and returns the
// verdict. The error is an *InputError when an input cannot be read or its
// form determined; every problem of the inputs' content is a violation in
// the verdict instead. BASE and orchestrator outputs are read whole; JSON
// Lines streams are read line by line (validated and decoded by worker
// goroutines, applied in order), so memory grows with the number of tasks
// and of distinct delta_ids (D2 remembers them all), not with the streams'
// length in bytes. A stream that can be read again (a regular file, an
// io.Reader that is also an io.ReaderAt and io.Seeker, or a document read
// whole) costs 9-14 bytes per distinct delta_id (mapped outside the Go heap
// on Unix, and given back before the reconciliation) plus 4 per delta: a
// hash of the id and the delta's offset, a possible repeat being confirmed by
// reading the earlier delta again (exact); such a stream must not change
// during the replay (a delta that reads back differently is an
// *InputError). Any other stream (standard input from a pipe) keeps every
// id and digest, about 32-36 bytes plus the id's bytes each.
// BenchmarkReplay measures the peak.
func Run(base Input, streams []Input, opts Options) (*Result, error) {
	if opts.MaxSkew == 0 {
		opts.MaxSkew = rules.DefaultMaxSkew
	}
	r := &run{opts: opts, engine: opts.Engine, hashID: opts.hash}
	if r.hashID == nil {
		seed := maphash.MakeSeed()
		r.hashID = func(id []byte) uint64 { return maphash.Bytes(seed, id) }
	}
	if r.engine == nil {
		r.engine = record.NewFastEngine()
	}
	o := opts.Options
	if o.Now.IsZero() {
		o.Now = time.Now() // the input validators' clock; the watchdog runs only with opts.Now
	}
	r.validator = record.NewValidator(o, r.engine)

	// Read BASE and open every stream (form detection) before any work, so
	// that a usage problem is reported before anything else.
	b, err := r.readBase(base)
	if err != nil {
		return nil, err
	}
	ss := make([]*stream, len(streams))
	defer func() {
		// The D2 indexes are needed until the streams are compared;
		// writing the ledger reads the streams again without them.
		for _, s := range ss {
			if s != nil && s.idx != nil {
				s.idx.release()
			}
		}
	}()
	for i, in := range streams {
		if ss[i], err = r.openStream(i, in); err != nil {
			return nil, err
		}
	}
	b.tasks = newTaskIndex(b.rows)
	r.base = b
	for _, s := range ss {
		if err := r.replayStream(s); err != nil {
			return nil, err
		}
	}
	res := r.finish(ss)
	for _, s := range ss {
		if s.err != nil {
			return nil, s.err
		}
	}
	return res, nil
}

// run is the state of one replay.
type run struct {
	opts      Options
	hashID    func([]byte) uint64 // hashes delta_ids (maphash, one seed per run); safe for concurrent use
	engine    record.SchemaEngine
	validator *record.Validator
	base      *ledger
	// invalid is set once an input has an error: the replay stops applying
	// and the verdict holds the inputs' violations only.
	invalid bool
	// inputVs are the violations of input validation (all inputs, errors
	// and warnings); vs are the replay's own.
	inputVs []envelope.Violation
	vs      []envelope.Violation
}

// enabled reports whether the configuration leaves rule id on.
func (r *run) enabled(id string) bool { return r.opts.Severity[id] != "off" }

// report records a violation of the replay itself (code and severity from
// the registry and the configuration).
func (r *run) report(v envelope.Violation) {
	r.vs = append(r.vs, r.validator.Fill([]envelope.Violation{v})...)
}

// addInput records the violations of validating one input, each tagged with
// the file; an error makes the replay stop applying.
func (r *run) addInput(file string, vs []envelope.Violation) {
	for _, v := range vs {
		v.Extra = withFile(v.Extra, file)
		if v.Severity == envelope.SeverityError {
			r.invalid = true
		}
		r.inputVs = append(r.inputVs, v)
	}
}

// withFile returns a copy of extra with "file" set.
func withFile(extra map[string]any, file string) map[string]any {
	out := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		out[k] = v
	}
	out["file"] = file
	return out
}

// newEngine returns another schema engine for a validation worker, or nil
// when Options.Engine was given (it may not be safe for concurrent use).
func (r *run) newEngine() record.SchemaEngine {
	if r.opts.Engine != nil {
		return nil
	}
	return record.NewFastEngine()
}
