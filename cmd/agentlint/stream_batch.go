package main

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// How `agentlint validate --stream` spends its time (cmd/agentlint/server/README.md,
// "Measured"): it takes every whole line that has already arrived as one
// batch, decides the batch, prints its envelopes in order and flushes them
// when no further whole line is waiting, so that a co-process that writes a
// line and waits for its envelope gets it at once, while a client that
// writes ahead costs one write system call per batch rather than per line.
// The lines of a document kind (one payload per line, no state across
// lines) are decided on every core, in order; a record kind's lines go
// through the one Session, whose cross-record rules need them in order.

// Bounds of a batch: lines and bytes held at once (a line longer than
// maxStreamBatchBytes is a batch of its own).
const (
	maxStreamBatch      = 512
	maxStreamBatchBytes = 1 << 20
)

// streamGCPercent is the garbage collector's target of `validate --stream`
// unless GOGC says otherwise. A co-process validates payload after payload
// around a live heap of about a megabyte: at the CLI's gcPercent (main.go)
// the collector ran every few hundred lines and the runtime's scavenger
// gave the freed pages back to the kernel after each cycle (madvise and
// TLB shootdowns: a tenth of the CPU of a stream of assignment packets in
// a perf profile, 2026-11-25), only for the next lines to fault them in
// again. At 200: a third of the system time, peak RSS 13 -> 19 MiB.
const streamGCPercent = 200

// minParallelBatch is the smallest batch split among the cores: below it
// the hand-over between goroutines costs more than it saves.
const minParallelBatch = 4

// streamBatch is the lines of one batch, copied out of the reader's buffer.
type streamBatch struct {
	data  []byte
	ends  []int // end offset in data of each line
	lines [][]byte
}

func (b *streamBatch) reset() {
	b.data, b.ends, b.lines = b.data[:0], b.ends[:0], b.lines[:0]
}

func (b *streamBatch) add(line []byte) {
	b.data = append(b.data, line...)
	b.ends = append(b.ends, len(b.data))
}

// seal makes lines from data and ends (data no longer grows).
func (b *streamBatch) seal() [][]byte {
	start := 0
	for _, end := range b.ends {
		b.lines = append(b.lines, b.data[start:end:end])
		start = end
	}
	return b.lines
}

// docPool decides the lines of a document kind on several goroutines:
// each holds a Session of its own (a Session is not safe for concurrent
// use), the calling goroutine the first. A Session numbers the lines it
// sees itself, so each envelope's line numbers are moved to the stream's
// (renumber); the summary adds up the sessions' counts (summary).
type docPool struct {
	sessions []*lint.Session
	jobs     []chan docJob // one per helper goroutine (sessions[1:])
	wg       sync.WaitGroup
}

// docJob is a run of consecutive lines for one session: first is the
// stream's number of lines[0]; out receives their envelopes.
type docJob struct {
	s     *lint.Session
	lines [][]byte
	first int
	out   []envelope.Envelope
	done  *sync.WaitGroup
}

// parallelDocs reports whether a stream of kind k, validated with the
// schema engine eng, may be decided on several goroutines: a document kind
// (no cross-record state) with the fast engine (the CUE engine is one
// evaluator, not safe for concurrent use), on more than one processor.
func parallelDocs(k *kind.Kind, eng record.SchemaEngine) bool {
	return k != nil && k.Format == kind.FormatJSON && eng == nil && streamWorkers() > 1
}

// streamWorkers is the number of goroutines that decide a stream of
// documents: one per processor, at most 8. Tests change it.
var streamWorkers = func() int { return min(runtime.GOMAXPROCS(0), 8) }

// newDocPool returns a pool of streamWorkers Sessions of kind k with cfg,
// and starts its helper goroutines.
func newDocPool(k *kind.Kind, cfg lint.SessionConfig) (*docPool, error) {
	n := streamWorkers()
	p := &docPool{}
	for i := range n {
		s, err := lint.NewSession(k.Name, cfg)
		if err != nil {
			p.close()
			return nil, err
		}
		p.sessions = append(p.sessions, s)
		if i > 0 {
			ch := make(chan docJob)
			p.jobs = append(p.jobs, ch)
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				for j := range ch {
					j.run()
				}
			}()
		}
	}
	return p, nil
}

// close stops the helper goroutines.
func (p *docPool) close() {
	for _, ch := range p.jobs {
		close(ch)
	}
	p.jobs = nil
	p.wg.Wait()
}

// decide returns the envelopes of lines, the first of which is line first
// of the stream, in order, in out (reused).
func (p *docPool) decide(lines [][]byte, first int, out []envelope.Envelope) []envelope.Envelope {
	out = append(out[:0], make([]envelope.Envelope, len(lines))...)
	parts := min(len(p.sessions), max(1, len(lines)/(minParallelBatch/2)))
	if len(lines) < minParallelBatch {
		parts = 1
	}
	var done sync.WaitGroup
	var own docJob
	for i := range parts {
		lo, hi := len(lines)*i/parts, len(lines)*(i+1)/parts
		j := docJob{s: p.sessions[i], lines: lines[lo:hi], first: first + lo, out: out[lo:hi], done: &done}
		if i == 0 {
			own, own.done = j, nil
			continue
		}
		done.Add(1)
		p.jobs[i-1] <- j
	}
	own.run()
	done.Wait()
	return out
}

func (j docJob) run() {
	for i, line := range j.lines {
		e := j.s.Record(line)
		renumber(&e, j.first+i-j.s.Lines())
		j.out[i] = e
	}
	if j.done != nil {
		j.done.Done()
	}
}

// renumber moves the line numbers of a document's envelope by delta: from
// the lines its Session counted to the stream's. A Session puts the line in
// details.line (or there the primary violation's, itself a line of the
// stream) and in each violation's line.
func renumber(e *envelope.Envelope, delta int) {
	if delta == 0 {
		return
	}
	if n, ok := e.Details["line"].(int); ok {
		e.Details["line"] = n + delta
	}
	vs, _ := e.Details["violations"].([]envelope.Violation)
	for i := range vs {
		if vs[i].Line > 0 {
			vs[i].Line += delta
		}
	}
}

// summary closes the pool's sessions and s (which decided the lines before
// the pool took over) and returns the stream's summary envelope, as one
// Session's Close would give it for every line: the counts added up, the
// stream's lines, and s's details of the stream.
func (p *docPool) summary(s *lint.Session) envelope.Envelope {
	p.close()
	first := s.Close()
	st := s.Stats()
	lines := s.Lines()
	for _, ws := range p.sessions {
		ws.Close()
		o := ws.Stats()
		st.Merge(&o)
		lines += ws.Lines()
	}
	st.Files = 1
	sum := st.Summary()
	for k, v := range first.Details {
		if _, counted := sum.Details[k]; !counted {
			sum.Details[k] = v // kind, file, and any run-wide findings
		}
	}
	sum.Details["lines"] = lines
	return sum
}

// lineReady reports whether a whole line is waiting in l's buffer: the
// next call of next returns without reading (so without waiting).
func (l *lineReader) lineReady() bool {
	b, _ := l.r.Peek(l.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}
