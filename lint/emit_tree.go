package lint

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// treeRender renders the envelopes of the findings an ordered tree state
// reports at the end of a run (streamTree) on other goroutines than the
// emitter's, a batch at a time, and writes them in order, as the emitter
// would have. At the end of a run with many such findings (CL101 reports
// each parent reference of the run that no span resolves, one envelope
// each) filling and rendering the envelopes, not finding them, is the
// work; the emitter goroutine only finds them, counts them (Stats, in
// order) and writes the rendered bytes. Memory: at most 3×Jobs batches of
// treeBatchFindings findings and their output.
type treeRender struct {
	e     *emitter
	cur   *treeBatch
	queue []*treeBatch // handed to the renderers, in order, not yet written
	free  []*treeBatch
	work  chan *treeBatch
	wg    sync.WaitGroup
	max   int // batches in queue at most
	err   error
}

// treeBatchFindings is the number of findings after which a batch is
// handed to the renderers.
const treeBatchFindings = 512

// treeBatch is a run of envelopes to render: groups of findings (each one
// envelope), the findings, and what a renderer made of them: the filled
// violations of each group (treeGroup.nv of vs, in order) and the
// rendered envelopes (out).
type treeBatch struct {
	groups []treeGroup
	fs     []rules.StreamFinding
	vs     []envelope.Violation
	out    []byte
	stats  Stats // the counts of vs (countFound), added to the run's in order
	done   chan struct{}
}

// treeGroup is one envelope of a treeBatch: nf findings of file f on line
// (0 for a document), of which nv violations were kept by Fill.
type treeGroup struct {
	f      *fileRun
	line   int
	nf, nv int
}

// newTreeRender starts jobs renderers; close stops them.
func newTreeRender(e *emitter, jobs int) *treeRender {
	t := &treeRender{e: e, work: make(chan *treeBatch, jobs), max: 2 * jobs}
	for range jobs {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			v := record.NewValidator(e.p.cfg.Options, noEngine{})
			for b := range t.work {
				t.render(b, v)
			}
		}()
	}
	return t
}

// add queues the envelope of the findings fs (of one line of f, or of the
// document f: line 0).
func (t *treeRender) add(f *fileRun, line int, fs []rules.StreamFinding) {
	b := t.batch()
	b.groups = append(b.groups, treeGroup{f: f, line: line, nf: len(fs)})
	b.fs = append(b.fs, fs...)
	if len(b.fs) >= treeBatchFindings {
		t.submit()
	}
}

// addFinding queues finding fd of the JSON Lines file f: in the envelope
// of the finding queued last when that one is of f and of fd's line, else
// in an envelope of its own (as add of the findings of one line).
func (t *treeRender) addFinding(f *fileRun, fd rules.StreamFinding) {
	if b := t.cur; b != nil {
		g := &b.groups[len(b.groups)-1]
		if g.f == f && g.line == fd.Line {
			b.fs = append(b.fs, fd)
			g.nf++
			return
		}
		if len(b.fs) >= treeBatchFindings {
			t.submit()
		}
	}
	b := t.batch()
	b.groups = append(b.groups, treeGroup{f: f, line: fd.Line, nf: 1})
	b.fs = append(b.fs, fd)
}

// batch returns the batch being filled: a free one, or a new one, when
// none is.
func (t *treeRender) batch() *treeBatch {
	if t.cur == nil {
		if n := len(t.free); n > 0 {
			t.cur, t.free = t.free[n-1], t.free[:n-1]
		} else {
			t.cur = &treeBatch{}
		}
	}
	return t.cur
}

// submit hands the current batch to the renderers, and writes the oldest
// batches while more than max wait.
func (t *treeRender) submit() {
	b := t.cur
	if b == nil {
		return
	}
	t.cur = nil
	b.done = make(chan struct{})
	t.queue = append(t.queue, b)
	t.work <- b
	for len(t.queue) > t.max {
		t.writeOldest()
	}
}

// render fills and renders the envelopes of b (on a renderer's goroutine,
// with its own Validator), as emitter.merged does for one.
func (t *treeRender) render(b *treeBatch, v *record.Validator) {
	defer close(b.done)
	b.vs, b.out = b.vs[:0], b.out[:0]
	b.stats.reset()
	fs := b.fs
	for i := range b.groups {
		g := &b.groups[i]
		n0 := len(b.vs)
		for _, f := range fs[:g.nf] {
			b.vs = append(b.vs, findingViolation(f, fs[0].Line))
		}
		checked := allChecked(fs[:g.nf])
		fs = fs[g.nf:]
		b.vs = b.vs[:n0+len(fillFindings(v, b.vs[n0:], checked))]
		g.nv = len(b.vs) - n0
		countFound(&b.stats, b.vs[n0:], false, true)
		if g.nv > 0 {
			b.out = t.e.p.renderRecord(b.out, g.f, g.line, b.vs[n0:])
		}
	}
}

// writeOldest waits for the oldest batch, counts its violations and
// writes its envelopes (after a write error, only counts).
func (t *treeRender) writeOldest() {
	b := t.queue[0]
	<-b.done
	t.queue = t.queue[:copy(t.queue, t.queue[1:])]
	t.e.stats.Merge(&b.stats)
	if t.err == nil && len(b.out) > 0 {
		_, t.err = t.e.p.cfg.Out.Write(b.out)
	}
	clear(b.fs)
	clear(b.vs)
	b.groups, b.fs, b.vs = b.groups[:0], b.fs[:0], b.vs[:0]
	t.free = append(t.free, b)
}

// close writes what is left, stops the renderers and returns the first
// write error.
func (t *treeRender) close() error {
	t.submit()
	for len(t.queue) > 0 {
		t.writeOldest()
	}
	close(t.work)
	t.wg.Wait()
	return t.err
}

// eachEnvelope calls fn with the findings of each envelope of fs, in
// order: those of one file and line of a JSON Lines file, sorted by line
// (stable), or those of one document (line 0; fs[0].Line gives the
// findings without a line theirs).
func eachEnvelope(fs []rules.StreamFinding, fileOf func(string) *fileRun, fn func(f *fileRun, line int, fs []rules.StreamFinding) error) error {
	if !slices.IsSortedFunc(fs, func(a, b rules.StreamFinding) int { return cmp.Compare(a.Line, b.Line) }) {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
	}
	for i := 0; i < len(fs); {
		f := fileOf(fs[i].File)
		doc := f.kind.Format != kind.FormatJSONL && f.kind.Format != ""
		j := i
		for j < len(fs) && (doc || fs[j].Line == fs[i].Line) && fs[j].File == fs[i].File {
			j++
		}
		line := fs[i].Line
		if doc {
			line = 0
		}
		if err := fn(f, line, fs[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}
