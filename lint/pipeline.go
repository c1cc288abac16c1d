package lint

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules"
)

// The pipeline behind Lint: one reader goroutine, Jobs workers and the
// emitter (the caller's goroutine).
//
//	reader ──work──▶ workers (validate, render, extract)
//	   └────order──────────────▶ emitter (waits for each item in turn,
//	                              runs stream rules, writes, counts)
//
// The reader sends every item to order, and the items that need work to
// work first, so the emitter only ever waits for items that a worker will
// get. Buffers come from a free list of at most 2*Jobs+2 chunks, returned by
// the emitter once the chunk's output is written: that bounds memory.

type itemKind uint8

const (
	itemChunk itemKind = iota // lines, a whole document or a too-long line
	itemSkip                  // a walked file whose kind is unknown
	itemError                 // an input that cannot be read
)

// fileRun is one file being linted.
type fileRun struct {
	path string
	kind *KindInfo
	plan *streamPlan // nil: no stream rule for the kind
}

// item is one unit of the pipeline, in input order.
type item struct {
	kind        itemKind
	file        *fileRun
	first, last bool // the file's first and last chunk
	line1       int  // line number of data's first line
	data        []byte
	pooled      bool // data is a buffer of the free list
	doc         bool // data is a whole document
	tooLong     bool // line line1 is longer than MaxLine (data is empty)
	path        string
	err         error
	done        chan struct{}
	res         result
}

// result is what a worker found in one item.
type result struct {
	out   []byte   // rendered envelopes (Render)
	envs  []recEnv // one per envelope, in line order
	vios  []envelope.Violation
	recs  []streamRec // records for the stream rules
	vals  []rules.Value
	arena []byte
	stats Stats
}

// recEnv is one envelope of a result: its line (0 for a document), its
// bytes in out and its violations in vios.
type recEnv struct {
	line       int
	start, end int
	v0, v1     int
}

// streamRec is one record for the stream rules: its line, its values in
// vals (plan.fields order), whether it was denied already and whether the
// schema accepted it (rules.StreamRecord.Valid).
type streamRec struct {
	line   int
	v0     int
	denied bool
	valid  bool
	doc    any                          // documents: the decoded JSON form
	locate func(string) (line, col int) // documents: source positions
}

func (r *result) reset() {
	r.out, r.envs, r.vios, r.recs, r.vals, r.arena = r.out[:0], r.envs[:0], r.vios[:0], r.recs[:0], r.vals[:0], r.arena[:0]
	r.stats.reset()
}

// streamPlan is the stream rules of one kind: the union of their fields
// and, per rule, where its fields are in the union.
type streamPlan struct {
	fields []rules.Field
	rules  []streamRuleRun
	tree   bool
}

// streamRuleRun is one stream check for one kind: the rule it runs as (the
// first of its rules that is on), the other rules on that it reports under,
// and where its fields are in the plan's union.
type streamRuleRun struct {
	id     string
	also   []string
	rule   rules.StreamRule
	idx    []int
	direct bool // idx is 0, 1, …: the record's values are passed as they are
}

type pipeline struct {
	cfg     LintConfig
	jobs    int
	chunk   int
	maxLine int
	plans   map[*KindInfo]*streamPlan

	work  chan *item
	order chan *item
	free  chan []byte
	nbuf  int // buffers made (reader goroutine only)
	stop  chan struct{}
	items sync.Pool
}

func newPipeline(cfg LintConfig) *pipeline {
	p := &pipeline{cfg: cfg, jobs: cfg.Jobs, chunk: cfg.ChunkSize, maxLine: cfg.MaxLine}
	if p.jobs < 1 {
		p.jobs = 1
	}
	if p.chunk <= 0 {
		p.chunk = DefaultChunkSize
	}
	if p.maxLine <= 0 {
		p.maxLine = MaxLine
	}
	if p.cfg.Detector == nil {
		p.cfg.Detector = &Detector{}
	}
	nbuf := 2*p.jobs + 2
	p.work = make(chan *item, nbuf)
	p.order = make(chan *item, 2*nbuf)
	p.free = make(chan []byte, nbuf)
	p.stop = make(chan struct{})
	p.plans = p.makePlans()
	return p
}

// makePlans builds the stream plan of every kind that has enabled stream
// rules. A check attached to several rules runs once per kind, when one of
// them applies to the kind and is on; it reports under every rule of its
// that is on (whatever the kind).
func (p *pipeline) makePlans() map[*KindInfo]*streamPlan {
	wanted := map[string]bool{}
	for _, id := range p.cfg.StreamRules {
		wanted[id] = true
	}
	on := func(id string) bool {
		return (p.cfg.StreamRules == nil || wanted[id]) && p.cfg.Options.Severity[id] != "off"
	}
	// The rules that are on, per check, in ID order.
	var ids []string
	for _, r := range rules.All() {
		if rules.Stream(r.ID) != nil && on(r.ID) {
			ids = append(ids, r.ID)
		}
	}
	plans := map[*KindInfo]*streamPlan{}
	for _, k := range Kinds {
		var plan streamPlan
		for _, id := range rules.StreamsForKind(k.Name) {
			if !on(id) {
				continue
			}
			sr := rules.Stream(id)
			dup := false
			for i := range plan.rules {
				dup = dup || plan.rules[i].rule == sr
			}
			if dup {
				continue
			}
			run := streamRuleRun{id: id, rule: sr}
			for _, other := range ids {
				if other != id && rules.Stream(other) == sr {
					run.also = append(run.also, other)
				}
			}
			fields := sr.Fields()
			if kr, ok := sr.(rules.KindRule); ok {
				fields = kr.KindFields(k.Name)
			}
			for _, f := range fields {
				j := -1
				for i, g := range plan.fields {
					if g == f {
						j = i
					}
				}
				if j < 0 {
					j = len(plan.fields)
					plan.fields = append(plan.fields, f)
				}
				run.idx = append(run.idx, j)
			}
			run.direct = true
			for i, j := range run.idx {
				run.direct = run.direct && i == j
			}
			if _, ok := sr.(rules.TreeRule); ok {
				plan.tree = true
			}
			plan.rules = append(plan.rules, run)
		}
		if len(plan.rules) > 0 {
			plans[k] = &plan
		}
	}
	return plans
}

func (p *pipeline) run(inputs func(yield func(Input) bool)) (*Stats, error) {
	var wg sync.WaitGroup
	wg.Add(1 + p.jobs)
	go func() {
		defer wg.Done()
		p.read(inputs)
	}()
	for i := 0; i < p.jobs; i++ {
		w := &worker{p: p, v: NewValidator(p.cfg.Options, p.newEngine()), xs: map[*streamPlan]*extractor{}}
		go func() {
			defer wg.Done()
			for it := range p.work {
				w.process(it)
				close(it.done)
			}
		}()
	}
	e := newEmitter(p)
	err := e.run()
	if err != nil {
		close(p.stop)
		for it := range p.order {
			if it.done != nil {
				<-it.done
			}
		}
	}
	wg.Wait()
	return &e.stats, err
}

func (p *pipeline) newEngine() SchemaEngine {
	if p.cfg.NewEngine == nil {
		return nil
	}
	return p.cfg.NewEngine()
}

// ---- reader

func (p *pipeline) newItem(kind itemKind, f *fileRun) *item {
	it, _ := p.items.Get().(*item)
	if it == nil {
		it = &item{}
	}
	res := it.res
	res.reset()
	*it = item{kind: kind, file: f, res: res}
	return it
}

// send queues it; it reports false when the run stops.
func (p *pipeline) send(it *item) bool {
	if it.kind == itemChunk {
		it.done = make(chan struct{})
		select {
		case p.work <- it:
		case <-p.stop:
			return false
		}
	}
	select {
	case p.order <- it:
		return true
	case <-p.stop:
		return false
	}
}

// getBuf returns a chunk buffer, waiting for the emitter to return one when
// all are in flight; nil when the run stops.
func (p *pipeline) getBuf() []byte {
	select {
	case b := <-p.free:
		return b
	default:
	}
	if p.nbuf < cap(p.free) {
		p.nbuf++
		return make([]byte, p.chunk)
	}
	select {
	case b := <-p.free:
		return b
	case <-p.stop:
		return nil
	}
}

func (p *pipeline) putBuf(b []byte) {
	if b = b[:cap(b)]; len(b) == p.chunk {
		select {
		case p.free <- b:
		default:
		}
	}
}

func (p *pipeline) read(inputs func(yield func(Input) bool)) {
	defer close(p.order)
	defer close(p.work)
	inputs(func(in Input) bool {
		if in.Err != nil {
			it := p.newItem(itemError, nil)
			it.path, it.err = in.Path, in.Err
			return p.send(it)
		}
		return p.readFile(in)
	})
}

// fill reads into buf[n:] until buf is full or the input ends.
func fill(r io.Reader, buf []byte, n int) (int, bool, error) {
	m, err := io.ReadFull(r, buf[n:])
	n += m
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return n, true, nil
	}
	return n, false, err
}

func (p *pipeline) readError(path string, err error) bool {
	it := p.newItem(itemError, nil)
	it.path = path
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	it.err = errors.New("cannot read " + path + ": " + err.Error())
	return p.send(it)
}

// readFile detects the kind of one input and sends its chunks.
func (p *pipeline) readFile(in Input) bool {
	det := p.cfg.Detector
	kind := in.Kind
	r := in.Reader
	if r == nil {
		if kind == nil {
			kind = det.ByName(in.Path)
			if kind == nil && !det.Sniffs(in.Path) {
				return p.send(p.newItem(itemSkip, nil))
			}
		}
		f, err := os.Open(in.Path)
		if err != nil {
			return p.readError(in.Path, err)
		}
		defer f.Close()
		r = f
	}
	buf := p.getBuf()
	if buf == nil {
		return false
	}
	n, eof, err := fill(r, buf, 0)
	if err != nil {
		p.putBuf(buf)
		return p.readError(in.Path, err)
	}
	if kind == nil {
		kind = det.Detect(in.Path, buf[:n])
	}
	if kind == nil {
		p.putBuf(buf)
		return p.send(p.newItem(itemSkip, nil))
	}
	f := &fileRun{path: in.Path, kind: kind, plan: p.plans[kind]}
	if kind.Format != FormatJSONL {
		return p.readDocument(f, r, buf, n, eof)
	}
	return p.readLines(f, r, buf, n, eof)
}

// readDocument sends a whole document as one item.
func (p *pipeline) readDocument(f *fileRun, r io.Reader, buf []byte, n int, eof bool) bool {
	it := p.newItem(itemChunk, f)
	it.first, it.last, it.doc, it.line1 = true, true, true, 1
	if eof {
		it.data, it.pooled = buf[:n], true
		return p.send(it)
	}
	data := append(make([]byte, 0, 2*n), buf[:n]...)
	p.putBuf(buf)
	rest, err := io.ReadAll(r)
	if err != nil {
		return p.readError(f.path, err)
	}
	it.data = append(data, rest...)
	return p.send(it)
}

// readLines cuts a JSON Lines file into chunks of whole lines.
func (p *pipeline) readLines(f *fileRun, r io.Reader, buf []byte, n int, eof bool) bool {
	line, first := 1, true
	sendChunk := func(data []byte, pooled, last bool) bool {
		it := p.newItem(itemChunk, f)
		it.first, it.last, it.line1, it.data, it.pooled = first, last, line, data, pooled
		line += bytes.Count(data, []byte{'\n'})
		first = false
		return p.send(it)
	}
	for {
		if eof {
			return sendChunk(buf[:n], true, true)
		}
		j := bytes.LastIndexByte(buf[:n], '\n')
		if j < 0 {
			var ended, ok bool
			if buf, n, eof, ended, ok = p.longLine(f, r, buf, n, &line, &first); !ok || ended {
				return ok
			}
			continue
		}
		next := p.getBuf()
		if next == nil {
			return false
		}
		rem := copy(next, buf[j+1:n])
		if !sendChunk(buf[:j+1], true, false) {
			return false
		}
		buf = next
		var err error
		if n, eof, err = fill(r, buf, rem); err != nil {
			return sendChunk(buf[:0], true, true) && p.readError(f.path, err)
		}
	}
}

// longLine handles a full buffer without a newline: a line longer than the
// chunk size. Up to maxLine bytes it is read into a buffer of its own and
// sent as a chunk; a longer line is skipped up to its newline and sent as a
// too-long item. It returns the buffer that holds what follows the line, or
// ended when the file's last item was sent; ok is false when the run stops.
func (p *pipeline) longLine(f *fileRun, r io.Reader, buf []byte, n int, line *int, first *bool) (next []byte, m int, eof, ended, ok bool) {
	send := func(it *item) bool {
		it.first, it.line1 = *first, *line
		*first = false
		*line++
		return p.send(it)
	}
	fail := func(err error) ([]byte, int, bool, bool, bool) {
		last := p.newItem(itemChunk, f)
		last.last, last.line1 = true, *line
		return nil, 0, false, true, p.send(last) && p.readError(f.path, err)
	}
	big := append(make([]byte, 0, 2*n), buf[:n]...)
	limit := p.maxLine + 2 + p.chunk // the most big ever holds
	searched := 0
	for {
		if i := bytes.IndexByte(big[searched:], '\n'); i >= 0 {
			end := searched + i + 1
			it := p.newItem(itemChunk, f)
			if lineLen(big[:end]) > p.maxLine {
				it.tooLong = true
			} else {
				it.data = big[:end]
			}
			if !send(it) {
				return nil, 0, false, false, false
			}
			// What follows the line came with the last read: it fits buf.
			rem := copy(buf, big[end:])
			var err error
			if m, eof, err = fill(r, buf, rem); err != nil {
				return fail(err)
			}
			return buf, m, eof, false, true
		}
		searched = len(big)
		if eof || len(big) > p.maxLine+2 {
			break
		}
		if cap(big)-len(big) < p.chunk {
			c := min(2*cap(big), limit)
			big = append(make([]byte, 0, c), big...)
		}
		var err error
		if m, eof, err = fill(r, big[:len(big)+p.chunk], len(big)); err != nil {
			return fail(err)
		}
		big = big[:m]
	}
	if eof && len(big) <= p.maxLine {
		// The file's last line, without a newline, not too long.
		it := p.newItem(itemChunk, f)
		it.data, it.last = big, true
		p.putBuf(buf)
		return nil, 0, false, true, send(it)
	}
	// Too long: discard up to the newline, reading into buf.
	big = nil
	for !eof {
		var err error
		if m, eof, err = fill(r, buf, 0); err != nil {
			return fail(err)
		}
		if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
			it := p.newItem(itemChunk, f)
			it.tooLong = true
			if !send(it) {
				return nil, 0, false, false, false
			}
			rem := copy(buf, buf[i+1:m])
			if !eof {
				if rem, eof, err = fill(r, buf, rem); err != nil {
					return fail(err)
				}
			}
			return buf, rem, eof, false, true
		}
	}
	it := p.newItem(itemChunk, f)
	it.tooLong, it.last = true, true
	p.putBuf(buf)
	return nil, 0, false, true, send(it)
}

// lineLen is the length of a line without its line ending.
func lineLen(b []byte) int {
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
		if n > 0 && b[n-1] == '\r' {
			n--
		}
	}
	return n
}

// ---- workers

// worker validates items with its own Validator (not safe for concurrent use).
type worker struct {
	p   *pipeline
	v   *Validator
	pre []envelope.Violation
	xs  map[*streamPlan]*extractor
}

var bom = []byte("\ufeff")

func (w *worker) process(it *item) {
	res := &it.res
	f := it.file
	switch {
	case it.tooLong:
		w.tooLong(it, it.line1)
	case it.doc:
		vs, doc := w.v.Document(f.kind.Name, f.path, it.data)
		res.stats.Records++
		w.flag(it, 0, vs)
		if f.plan != nil {
			w.extractDoc(it, vs, doc)
		}
	default:
		data := it.data
		n := it.line1
		for len(data) > 0 {
			var text []byte
			terminated := true
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				text, data = data[:i], data[i+1:]
			} else {
				text, data, terminated = data, nil, false
			}
			w.line(it, text, n, terminated)
			n++
		}
	}
}

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// tooLong reports line n, longer than MaxLine, which is not a record.
func (w *worker) tooLong(it *item, n int) {
	w.pre = append(w.pre[:0], envelope.Violation{Rule: "AL009", Line: n, Column: 1,
		Reason: "line longer than " + sizeText(w.p.maxLine) + " skipped; the rest of the file is checked"})
	w.lineOnly(it, n)
}

// line validates one JSON Lines line.
func (w *worker) line(it *item, text []byte, n int, terminated bool) {
	res := &it.res
	w.pre = w.pre[:0]
	if l := len(text); l > w.p.maxLine && (l > w.p.maxLine+1 || !terminated || text[l-1] != '\r') {
		// Longer than the limit even without a CR of its CRLF ending.
		w.tooLong(it, n)
		return
	}
	if it.first && n == 1 && bytes.HasPrefix(text, bom) {
		text = text[len(bom):]
		w.pre = append(w.pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"})
	}
	if terminated && len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
		w.pre = append(w.pre, envelope.Violation{Rule: "AL007", Line: n, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
	}
	if isBlank(text) {
		res.stats.BlankLines++
		if w.v.opts.Strict {
			w.pre = append(w.pre, envelope.Violation{Rule: "AL008", Line: n, Column: 1, Reason: "blank line (strict mode)"})
		}
		if len(w.pre) > 0 {
			w.lineOnly(it, n)
		}
		return
	}
	vs, _ := w.v.Record(it.file.kind.Name, it.file.path, text, n)
	if len(w.pre) > 0 {
		// Record returned its reused buffer: add the line's own findings.
		w.v.vs = append(vs, w.pre...)
		w.v.finish()
		vs = w.v.vs
		envelope.Sort(vs)
	}
	res.stats.Records++
	w.flag(it, n, vs)
	if plan := it.file.plan; plan != nil {
		// Valid records first: their path is one scan of vs, as before.
		if schemaAccepted(vs) {
			w.extract(it, plan, text, n, envelope.HasErrors(vs), true)
		} else if invalidObject(vs, text) {
			w.extract(it, plan, text, n, true, false)
		}
	}
}

// invalidObject reports whether a record the schema rejected is still a
// JSON object (no parse error, first byte '{'): the stream rules observe it
// with Valid false, so that it registers the ids it carries (no cascades).
func invalidObject(vs []envelope.Violation, text []byte) bool {
	for i := range vs {
		if vs[i].Parse {
			return false
		}
	}
	i := skipWS(text, 0)
	return i < len(text) && text[i] == '{'
}

// isBlank reports whether a line holds only white space.
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if c < 0x80 {
			return false
		}
		return len(bytes.TrimSpace(b)) == 0
	}
	return true
}

// lineOnly reports the violations in w.pre of a line that is not a record.
func (w *worker) lineOnly(it *item, n int) {
	w.v.vs = append(w.v.vs[:0], w.pre...)
	w.v.finish()
	envelope.Sort(w.v.vs)
	w.flag(it, n, w.v.vs)
}

// flag counts the violations of one verdict and, when there are any, keeps
// them and renders its envelope.
func (w *worker) flag(it *item, n int, vs []envelope.Violation) {
	res := &it.res
	if len(vs) == 0 {
		return
	}
	res.stats.Add(vs)
	e := recEnv{line: n, v0: len(res.vios), start: len(res.out)}
	res.vios = append(res.vios, vs...)
	e.v1 = len(res.vios)
	if !w.p.cfg.Quiet && w.p.cfg.Render != nil {
		res.out = w.p.cfg.Render(res.out, recordEnvelope(it.file, n, res.vios[e.v0:e.v1:e.v1]))
	}
	e.end = len(res.out)
	res.envs = append(res.envs, e)
}

// recordEnvelope is the envelope of one record (line > 0) or document.
func recordEnvelope(f *fileRun, line int, vs []envelope.Violation) envelope.Envelope {
	d := map[string]any{"kind": f.kind.Name, "file": f.path}
	if line > 0 {
		d["line"] = line
	}
	return envelope.Verdict(vs, f.kind.OKReason, d)
}

// schemaAccepted reports whether no error comes from the schema (rules
// without a document check: the generated validators and line rules).
func schemaAccepted(vs []envelope.Violation) bool {
	for i := range vs {
		if vs[i].Severity == envelope.SeverityError {
			if r := rules.Lookup(vs[i].Rule); r == nil || r.Check == nil {
				return false
			}
		}
	}
	return true
}

// extract keeps the stream values of one record (valid: the schema
// accepted it).
func (w *worker) extract(it *item, plan *streamPlan, text []byte, n int, denied, valid bool) {
	res := &it.res
	x := w.xs[plan]
	if x == nil {
		x = newExtractor(plan.fields)
		w.xs[plan] = x
	}
	v0 := len(res.vals)
	k := len(plan.fields)
	if cap(res.vals)-v0 < k {
		res.vals = append(res.vals[:cap(res.vals)], make([]rules.Value, k+cap(res.vals))...)
	}
	res.vals = res.vals[:v0+k]
	x.arena = res.arena
	x.extract(text, res.vals[v0:])
	res.arena = x.arena
	res.recs = append(res.recs, streamRec{line: n, v0: v0, denied: denied, valid: valid})
}

// extractDoc keeps the stream values of a document that is a JSON object
// (in its JSON form, for TOML and text), valid or not: one record of line
// 0 with the decoded document and a locator of source positions.
func (w *worker) extractDoc(it *item, vs []envelope.Violation, doc *rules.Doc) {
	for i := range vs {
		if vs[i].Parse {
			return
		}
	}
	js, locate := documentJSON(it.file.kind, it.data)
	if js == nil {
		return
	}
	var value any
	if doc != nil {
		value = doc.Value
	} else if err := json.Unmarshal(js, &value); err != nil {
		return
	}
	if _, ok := value.(map[string]any); !ok {
		return
	}
	w.extract(it, it.file.plan, js, 0, envelope.HasErrors(vs), schemaAccepted(vs))
	res := &it.res
	rec := &res.recs[len(res.recs)-1]
	rec.doc, rec.locate = value, locate
	for i := rec.v0; i < len(res.vals); i++ {
		res.vals[i].Column = 0 // offsets into the JSON form: use Locate
	}
	// The values point into js, which lives as long as the item.
}

// ---- emitter

// emitter consumes items in input order.
type emitter struct {
	p     *pipeline
	stats Stats
	v     *Validator // fills codes and severities of stream findings
	out   []byte
	file  *fileRun
	runs  []fileStreamRun
	trees []treeRun
	vals  []rules.Value
	rec   rules.StreamRecord // reused: Observe must not keep it
	found []pending
	vs    []envelope.Violation
}

type fileStreamRun struct {
	run   *streamRuleRun
	state rules.FileState
	rep   *rules.StreamReporter
}

type treeRun struct {
	run   *streamRuleRun // of the first file: its id and also
	state rules.TreeState
	files map[string]*fileRun
	order map[string]int // input order of files
}

// pending is a stream finding and the index of its record in result.recs.
type pending struct {
	rec int
	f   rules.StreamFinding
}

func newEmitter(p *pipeline) *emitter {
	return &emitter{p: p, v: NewValidator(p.cfg.Options, noEngine{})}
}

// noEngine is the schema engine of the emitter's Validator, which only fills
// codes and severities.
type noEngine struct{}

func (noEngine) Schema(string, []byte, int, bool) []envelope.Violation { return nil }

func (e *emitter) run() error {
	for it := range e.p.order {
		if err := e.item(it); err != nil {
			return err
		}
	}
	return e.finishTree()
}

func (e *emitter) item(it *item) error {
	defer e.recycle(it)
	switch it.kind {
	case itemSkip:
		e.stats.SkippedFiles++
		return nil
	case itemError:
		e.stats.UnreadableFiles++
		e.stats.worse(envelope.MissingRequiredInput)
		return e.write(envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput, Reason: it.err.Error(),
			Details: map[string]any{"file": it.path}})
	}
	<-it.done
	res := &it.res
	if it.first {
		e.stats.Files++
		e.startFile(it.file)
	}
	e.stats.Merge(&res.stats)
	if err := e.chunk(it); err != nil {
		return err
	}
	if it.last {
		return e.finishFile()
	}
	return nil
}

func (e *emitter) recycle(it *item) {
	if it.pooled {
		e.p.putBuf(it.data)
	}
	it.data = nil
	it.file = nil
	e.p.items.Put(it)
}

// startFile creates the stream states of a file.
func (e *emitter) startFile(f *fileRun) {
	e.file = f
	e.runs = e.runs[:0]
	if f.plan == nil {
		return
	}
	opts := e.ruleOptions()
	for i := range f.plan.rules {
		r := &f.plan.rules[i]
		var st rules.FileState
		if kr, ok := r.rule.(rules.KindRule); ok {
			st = kr.NewKindFile(f.path, f.kind.Name, opts)
		} else {
			st = r.rule.NewFile(f.path, opts)
		}
		e.runs = append(e.runs, fileStreamRun{run: r, state: st, rep: rules.NewStreamReporter(r.id, r.also...)})
	}
}

func (e *emitter) ruleOptions() *rules.Options {
	o := e.p.cfg.Options
	return &rules.Options{Now: o.Now, MaxSkew: o.MaxSkew, Strict: o.Strict}
}

// chunk writes the envelopes of one chunk, with the findings of the stream
// rules on its records merged in.
func (e *emitter) chunk(it *item) error {
	res := &it.res
	e.found = e.found[:0]
	for i := range res.recs {
		rec := &res.recs[i]
		for j := range e.runs {
			fr := &e.runs[j]
			vals := res.vals[rec.v0 : rec.v0+len(fr.run.idx) : rec.v0+len(fr.run.idx)]
			if !fr.run.direct {
				e.vals = e.vals[:0]
				for _, k := range fr.run.idx {
					e.vals = append(e.vals, res.vals[rec.v0+k])
				}
				vals = e.vals
			}
			e.rec = rules.StreamRecord{Line: rec.line, Valid: rec.valid, Values: vals, Doc: rec.doc, Locate: rec.locate}
			fr.state.Observe(&e.rec, fr.rep)
			for _, f := range fr.rep.Take() {
				e.found = append(e.found, pending{rec: i, f: f})
			}
		}
	}
	if len(e.found) == 0 {
		return e.pass(it, 0, len(res.envs))
	}
	ei := 0
	for k := 0; k < len(e.found); {
		rec := &res.recs[e.found[k].rec]
		j := k
		for j < len(e.found) && e.found[j].rec == e.found[k].rec {
			j++
		}
		start := ei
		for ei < len(res.envs) && res.envs[ei].line < rec.line {
			ei++
		}
		if err := e.pass(it, start, ei); err != nil {
			return err
		}
		e.vs = e.vs[:0]
		if ei < len(res.envs) && res.envs[ei].line == rec.line {
			env := &res.envs[ei]
			e.vs = append(e.vs, res.vios[env.v0:env.v1]...)
			ei++
		}
		denied := rec.denied
		n := len(e.vs)
		for _, p := range e.found[k:j] {
			e.vs = append(e.vs, findingViolation(p.f, rec.line))
		}
		if err := e.merged(it.file, rec.line, n, denied); err != nil {
			return err
		}
		k = j
	}
	return e.pass(it, ei, len(res.envs))
}

// pass writes the envelopes envs[i:j] of a chunk unchanged.
func (e *emitter) pass(it *item, i, j int) error {
	res := &it.res
	if i >= j || e.p.cfg.Quiet {
		return nil
	}
	if e.p.cfg.Render != nil {
		_, err := e.p.cfg.Out.Write(res.out[res.envs[i].start:res.envs[j-1].end])
		return err
	}
	for _, env := range res.envs[i:j] {
		vs := append([]envelope.Violation(nil), res.vios[env.v0:env.v1]...)
		if err := e.p.cfg.Emit(recordEnvelope(it.file, env.line, vs)); err != nil {
			return err
		}
	}
	return nil
}

func findingViolation(f rules.StreamFinding, line int) envelope.Violation {
	if f.Line == 0 {
		f.Line = line
	}
	return envelope.Violation{Rule: f.Rule, Pointer: f.Pointer, Line: f.Line, Column: f.Column, Reason: f.Reason, Extra: f.Extra}
}

// merged fills, counts and writes the envelope of a record whose
// violations e.vs[:n] were counted already and e.vs[n:] are stream findings.
func (e *emitter) merged(f *fileRun, line, n int, denied bool) error {
	e.v.vs = e.vs
	e.v.fill(e.v.vs[n:])
	e.v.vs = dropOff(e.v.vs)
	e.vs = e.v.vs
	for i := n; i < len(e.vs); i++ {
		v := &e.vs[i]
		if e.stats.ByCode == nil {
			e.stats.ByCode, e.stats.ByRule = map[string]int{}, map[string]int{}
		}
		e.stats.ByCode[string(v.Code)]++
		e.stats.ByRule[v.Rule]++
		if v.Severity == envelope.SeverityError {
			e.stats.worse(v.Code)
			if !denied {
				e.stats.Denied++
				denied = true
			}
		} else {
			e.stats.Warnings++
		}
	}
	if len(e.vs) == 0 || e.p.cfg.Quiet {
		return nil
	}
	return e.write(recordEnvelope(f, line, append([]envelope.Violation(nil), e.vs...)))
}

// write renders or emits one envelope.
func (e *emitter) write(env envelope.Envelope) error {
	if e.p.cfg.Quiet {
		return nil
	}
	if e.p.cfg.Render == nil {
		return e.p.cfg.Emit(env)
	}
	e.out = e.p.cfg.Render(e.out[:0], env)
	_, err := e.p.cfg.Out.Write(e.out)
	return err
}

// finishFile runs the stream rules' Finish and writes their findings in
// line order; tree rules get the file's states.
func (e *emitter) finishFile() error {
	f := e.file
	var fs []rules.StreamFinding
	for i := range e.runs {
		fr := &e.runs[i]
		fr.state.Finish(fr.rep)
		fs = append(fs, fr.rep.Take()...)
		if _, ok := fr.run.rule.(rules.TreeRule); ok {
			t := e.tree(fr.run)
			t.state.AddFile(f.path, fr.state)
			if t.files[f.path] == nil {
				t.order[f.path] = len(t.order)
			}
			t.files[f.path] = f
		}
	}
	e.runs = e.runs[:0]
	return e.findings(fs, func(string) *fileRun { return f })
}

// findings writes stream findings that do not join a record's envelope:
// one envelope per file and line (per file for a document), in order.
func (e *emitter) findings(fs []rules.StreamFinding, fileOf func(string) *fileRun) error {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
	for i := 0; i < len(fs); {
		f := fileOf(fs[i].File)
		doc := f.kind.Format != FormatJSONL && f.kind.Format != ""
		j := i
		e.vs = e.vs[:0]
		for j < len(fs) && (doc || fs[j].Line == fs[i].Line) && fs[j].File == fs[i].File {
			e.vs = append(e.vs, findingViolation(fs[j], fs[i].Line))
			j++
		}
		line := fs[i].Line
		if doc {
			line = 0
		}
		if err := e.merged(f, line, 0, false); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// tree returns the run-wide state of r's check (one per check, whatever
// the kind it runs for).
func (e *emitter) tree(r *streamRuleRun) *treeRun {
	for i := range e.trees {
		if e.trees[i].run.rule == r.rule {
			return &e.trees[i]
		}
	}
	st := r.rule.(rules.TreeRule).NewTree(e.ruleOptions())
	e.trees = append(e.trees, treeRun{run: r, state: st, files: map[string]*fileRun{}, order: map[string]int{}})
	return &e.trees[len(e.trees)-1]
}

// finishTree runs the tree rules' Finish after the last file; findings are
// written by file (in input order of the rule's files) and line.
func (e *emitter) finishTree() error {
	for i := range e.trees {
		t := &e.trees[i]
		rep := rules.NewStreamReporter(t.run.id, t.run.also...)
		t.state.Finish(rep)
		fs := rep.Take()
		rank := func(file string) int {
			if r, ok := t.order[file]; ok {
				return r
			}
			return len(t.order) // files the rule names but never saw: last
		}
		sort.SliceStable(fs, func(a, b int) bool { return rank(fs[a].File) < rank(fs[b].File) })
		fileOf := func(path string) *fileRun {
			if f := t.files[path]; f != nil {
				return f
			}
			return &fileRun{path: path, kind: &KindInfo{}}
		}
		for k := 0; k < len(fs); {
			j := k
			for j < len(fs) && fs[j].File == fs[k].File {
				j++
			}
			if err := e.findings(fs[k:j], fileOf); err != nil {
				return err
			}
			k = j
		}
	}
	return nil
}
