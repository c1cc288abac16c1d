package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
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

// itemRole says what an item carries.
type itemRole uint8

const (
	itemChunk itemRole = iota // lines, a whole document or a too-long line
	itemSkip                  // a walked file whose kind is unknown
	itemError                 // an input that cannot be read
)

// fileRun is one file being linted.
type fileRun struct {
	path string
	kind *kind.Kind
	plan *streamPlan // nil: no stream rule for the kind
	// reread: the engine opened the file by its path and it is a regular
	// file, which can be read again (rules.Source); false for standard
	// input, pipes and given readers.
	reread bool
	// size is the file's size in bytes when reread (rules.Expecter).
	size int64
	// stat is the file as the engine opened it, when reread: at its end,
	// the path must still name that file, unchanged (changedSince).
	stat os.FileInfo
}

// item is one unit of the pipeline, in input order.
type item struct {
	role        itemRole
	file        *fileRun
	first, last bool  // the file's first and last chunk
	line1       int   // line number of data's first line
	off         int64 // byte offset of data's first byte (of line line1) in the file
	data        []byte
	pooled      bool // data is a buffer of the free list
	bigHeld     bool // data is the one larger buffer allowed in flight
	doc         bool // data is a whole document
	tooLong     bool // line line1 is longer than record.MaxLine (data is empty)
	otherFormat bool // the file is plainly another format (AL011; data is empty)
	path        string
	err         error
	reason      string // itemSkip: why the file is skipped
	uncounted   bool   // itemSkip: the walker skipped it (not a skipped_files count)
	done        chan struct{}
	res         result
}

// result is what a worker found in one item.
type result struct {
	out  []byte   // rendered envelopes (Render)
	envs []recEnv // one per envelope, in line order
	vios []envelope.Violation
	recs []streamRec // records for the stream rules
	docs []streamDoc // the documents among recs (streamRec.doc)
	vals []rules.Value
	// dirty has a bit for each entry of vals' memory (up to its capacity)
	// that may not be zero: what the extractor wrote there last. It
	// outlives reset with that memory, so that the next records written
	// there zero only those entries (record.Extractor.Over).
	dirty []uint64
	arena []byte
	stats Stats
	skip  []int // lines that are not records (blank, too long); only with LintConfig.FileDone
}

// recEnv is one envelope of a result: its line (0 for a document), its
// bytes in out and its violations in vios.
type recEnv struct {
	line       int
	start, end int
	v0, v1     int
}

// streamRec is one record for the stream rules, in 32 bytes (the workers
// write one per record and the emitter reads it on the other core): its
// line, the byte offset of its first byte in the file (-1 for a document),
// its values in vals (plan.fields order), for a document its entry in
// result.docs (doc-1; 0 for a record of a JSON Lines file), whether it
// was denied already and whether the schema accepted it
// (rules.StreamRecord.Valid).
type streamRec struct {
	line   int
	off    int64
	v0     int
	doc    int32
	denied bool
	valid  bool
}

// streamDoc is what the stream rules get of a document besides its
// values: its decoded JSON form and its source positions.
type streamDoc struct {
	doc    any
	locate func(string) (line, col int)
}

func (r *result) reset() {
	clear(r.docs)
	r.out, r.envs, r.vios, r.recs, r.vals, r.arena, r.docs = r.out[:0], r.envs[:0], r.vios[:0], r.recs[:0], r.vals[:0], r.arena[:0], r.docs[:0]
	r.stats.reset()
	r.skip = r.skip[:0]
}

// streamPlan is the stream rules of one kind: the union of their fields
// and, per rule, where its fields are in the union.
type streamPlan struct {
	kind   string // the kind's name
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
	direct bool // idx is k, k+1, …: the record's values are passed as they are, from k
}

type pipeline struct {
	cfg     LintConfig
	jobs    int
	chunk   int
	maxLine int
	plans   map[*kind.Kind]*streamPlan

	work  chan *item
	order chan *item
	free  chan []byte
	nbuf  int           // buffers made (reader goroutine only)
	big   chan struct{} // one buffer larger than a chunk in flight at most
	stop  chan struct{}
	items sync.Pool

	// roots are the directories walked (Input.Root), written by the reader
	// only; the emitter reads them after order is closed (tree rules'
	// Finish), through walked.
	roots   map[string]bool
	absRoot []string // roots made absolute, on first use by walked
}

func newPipeline(cfg LintConfig) *pipeline {
	p := &pipeline{cfg: cfg, jobs: cfg.Jobs, chunk: cfg.ChunkSize, maxLine: cfg.MaxLine, roots: map[string]bool{}}
	if p.jobs < 1 {
		p.jobs = 1
	}
	if p.chunk <= 0 {
		p.chunk = DefaultChunkSize
	}
	if p.maxLine <= 0 {
		p.maxLine = record.MaxLine
	}
	if p.cfg.Detector == nil {
		p.cfg.Detector = &kind.Detector{}
	}
	// A quiet run prints no finding: its validators only count them.
	p.cfg.Options.CountOnly = p.cfg.Options.CountOnly || cfg.Quiet
	nbuf := 2*p.jobs + 2
	p.work = make(chan *item, nbuf)
	p.order = make(chan *item, 2*nbuf)
	p.free = make(chan []byte, nbuf)
	p.big = make(chan struct{}, 1)
	p.stop = make(chan struct{})
	p.plans = p.makePlans()
	return p
}

// makePlans builds the stream plan of every kind that has enabled stream
// rules. A check attached to several rules runs once per kind, when one of
// them applies to the kind and is on; it reports under every rule of its
// that is on (whatever the kind).
func (p *pipeline) makePlans() map[*kind.Kind]*streamPlan {
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
	plans := map[*kind.Kind]*streamPlan{}
	for _, k := range kind.All {
		plan := streamPlan{kind: k.Name}
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
			plan.fields, run.idx = placeFields(plan.fields, fields)
			run.direct = len(run.idx) > 0
			for i, j := range run.idx {
				run.direct = run.direct && j == run.idx[0]+i
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

// placeFields places the fields of one stream rule among the plan's
// fields and returns them with, per field of the rule, its index. A rule
// observes its values where the worker wrote them when they are
// contiguous and in its order (streamRuleRun.direct), so fields are placed
// as a block: where the plan holds them so already; else extending the
// fields at the plan's end when they begin the rule's (IL101's after
// IL100's: event, run_id, then the stack); else as a new block at the end,
// a field then extracted twice (a few nanoseconds) rather than copied for
// every record. When the block would pass the extractor's 64 fields, each
// field is placed where the plan holds it, or appended.
func placeFields(plan, fields []rules.Field) ([]rules.Field, []int) {
	idx := make([]int, len(fields))
	n := len(fields)
	if n == 0 {
		return plan, idx
	}
	// Already a block of the plan.
	for i := 0; i+n <= len(plan); i++ {
		if slices.Equal(plan[i:i+n], fields) {
			for k := range idx {
				idx[k] = i + k
			}
			return plan, idx
		}
	}
	// A block ending the plan that begins the rule's fields.
	for m := min(n-1, len(plan)); m > 0; m-- {
		if i := len(plan) - m; slices.Equal(plan[i:], fields[:m]) && len(plan)+n-m <= 64 {
			for k := range idx {
				idx[k] = i + k
			}
			return append(plan, fields[m:]...), idx
		}
	}
	if len(plan)+n <= 64 {
		for k := range idx {
			idx[k] = len(plan) + k
		}
		return append(plan, fields...), idx
	}
	for k, f := range fields {
		j := slices.Index(plan, f)
		if j < 0 {
			j = len(plan)
			plan = append(plan, f)
		}
		idx[k] = j
	}
	return plan, idx
}

func (p *pipeline) run(inputs func(yield func(Input) bool)) (*Stats, error) {
	var wg sync.WaitGroup
	wg.Add(1 + p.jobs)
	go func() {
		defer wg.Done()
		p.read(inputs)
	}()
	for i := 0; i < p.jobs; i++ {
		w := &worker{p: p, v: record.NewValidator(p.cfg.Options, p.newEngine()), xs: map[*streamPlan]*record.Extractor{}}
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

func (p *pipeline) newEngine() record.SchemaEngine {
	if p.cfg.NewEngine == nil {
		return nil
	}
	return p.cfg.NewEngine()
}

// The worker stage.

// worker validates items with its own Validator (not safe for concurrent use).
type worker struct {
	p   *pipeline
	v   *record.Validator
	pre []envelope.Violation // the line's own violations (AL006, AL007, AL008)
	vs  []envelope.Violation // reused for violations the worker finds itself
	xs  map[*streamPlan]*record.Extractor
	// The plan extract used last and its extractor (the records of a
	// file share one): no map lookup per record.
	xPlan *streamPlan
	x     *record.Extractor
	off   int64 // byte offset in the file of the record being validated
}

var bom = []byte("\ufeff")

func (w *worker) process(it *item) {
	res := &it.res
	f := it.file
	switch {
	case it.tooLong:
		w.tooLong(it, it.line1)
	case it.otherFormat:
		w.otherFormat(it)
	case it.doc:
		if f.plan == nil { // no stream or tree rule reads the document
			vs := w.v.DocumentViolations(f.kind.Name, f.path, it.data)
			res.stats.Records++
			w.flag(it, 0, vs)
			break
		}
		vs, doc := w.v.Document(f.kind.Name, f.path, it.data)
		res.stats.Records++
		w.flag(it, 0, vs)
		w.extractDoc(it, vs, doc)
	default:
		data := it.data
		n := it.line1
		for len(data) > 0 {
			w.off = it.off + int64(len(it.data)-len(data))
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
	if w.p.cfg.FileDone != nil {
		it.res.skip = append(it.res.skip, n)
	}
	w.pre = append(w.pre[:0], envelope.Violation{Rule: "AL009", Line: n, Column: 1,
		Reason: "line longer than " + sizeText(w.p.maxLine) + " skipped; the rest of the file is checked"})
	w.lineOnly(it, n)
}

// otherFormat reports a file that a glob gave a kind whose identifying keys
// its first record lacks (AL011): one file-level finding that says how to
// exclude or re-kind it; its records are not checked.
func (w *worker) otherFormat(it *item) {
	k := it.file.kind
	w.vs = w.v.Fill(append(w.vs[:0], envelope.Violation{Rule: "AL011", Line: 1, Column: 1,
		Reason: "not a " + k.Name + " file: its first record has none of " + strings.Join(k.IdentifyingKeys(), ", ") +
			"; its name matched a " + k.Name + " glob. Exclude it (exclude = [\"" + it.file.path + "\"] in .agentlint.toml), " +
			"give it its kind ([kinds] in .agentlint.toml, or --kind), or rename it"}))
	w.flag(it, 0, w.vs)
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
		w.off += int64(len(bom))
		w.pre = append(w.pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"})
	}
	if terminated && len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
		w.pre = append(w.pre, envelope.Violation{Rule: "AL007", Line: n, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
	}
	if isBlank(text) {
		res.stats.BlankLines++
		if w.p.cfg.FileDone != nil {
			res.skip = append(res.skip, n)
		}
		if w.v.Strict() {
			w.pre = append(w.pre, envelope.Violation{Rule: "AL008", Line: n, Column: 1, Reason: "blank line (strict mode)"})
		}
		if len(w.pre) > 0 {
			w.lineOnly(it, n)
		}
		return
	}
	vs := w.v.RecordLine(it.file.kind.Name, it.file.path, text, n)
	if len(w.pre) > 0 {
		// Record returned its reused buffer: add the line's own findings.
		vs = w.v.Fill(append(vs, w.pre...))
		envelope.Sort(vs)
	}
	res.stats.Records++
	w.flag(it, n, vs)
	if plan := it.file.plan; plan != nil {
		// Valid records first: their path is one scan of vs, as before.
		if schemaAccepted(vs) {
			w.extract(it, plan, text, n, envelope.HasErrors(vs), true, w.v.Captured())
		} else if invalidObject(vs, text) {
			w.extract(it, plan, text, n, true, false, nil)
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
	i := fast.SkipWS(text, 0)
	return i < len(text) && text[i] == '{'
}

// isBlank reports whether a line holds only white space, as Unicode
// defines it (bytes.TrimSpace: also form feed, vertical tab, NBSP), like the
// replayer and summarize. The common bytes are checked first; a line with
// any other byte that is plainly not white space (a printable ASCII byte)
// is not blank.
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if c > ' ' && c < 0x7f {
			return false
		}
		return len(bytes.TrimSpace(b)) == 0
	}
	return true
}

// lineOnly reports the violations in w.pre of a line that is not a record.
func (w *worker) lineOnly(it *item, n int) {
	w.vs = w.v.Fill(append(w.vs[:0], w.pre...))
	envelope.Sort(w.vs)
	w.flag(it, n, w.vs)
}

// flag counts the violations of one verdict and, when there are any, keeps
// them and renders its envelope.
func (w *worker) flag(it *item, n int, vs []envelope.Violation) {
	res := &it.res
	if len(vs) == 0 {
		return
	}
	res.stats.addPartial(vs)
	e := recEnv{line: n, v0: len(res.vios), start: len(res.out)}
	res.vios = append(res.vios, vs...)
	e.v1 = len(res.vios)
	if !w.p.cfg.Quiet && w.p.cfg.Render != nil {
		res.out = w.p.renderRecord(res.out, it.file, n, res.vios[e.v0:e.v1:e.v1])
	}
	e.end = len(res.out)
	res.envs = append(res.envs, e)
}

// renderRecord appends the rendering of the envelope of one record (line >
// 0) or document of f with violations vs (cfg.Render is set): through
// cfg.RenderRecord when the format has it, without building the envelope.
func (p *pipeline) renderRecord(dst []byte, f *fileRun, line int, vs []envelope.Violation) []byte {
	if p.cfg.RenderRecord != nil {
		return p.cfg.RenderRecord(dst, f.path, f.kind.Name, f.kind.OKReason, line, vs)
	}
	return p.cfg.Render(dst, recordEnvelope(f, line, vs))
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
// accepted it; acc not nil: its kind's acceptor accepted text, so the values
// are where it recorded them, record.Validator.Captured).
func (w *worker) extract(it *item, plan *streamPlan, text []byte, n int, denied, valid bool, acc *fast.Acc) {
	res := &it.res
	x := w.x
	if plan != w.xPlan {
		if x = w.xs[plan]; x == nil {
			x = record.NewExtractor(plan.kind, plan.fields)
			w.xs[plan] = x
		}
		w.xPlan, w.x = plan, x
	}
	v0 := len(res.vals)
	k := len(plan.fields)
	if cap(res.vals)-v0 < k {
		res.vals = append(res.vals[:cap(res.vals)], make([]rules.Value, k+cap(res.vals))...)
		res.dirty = append(res.dirty, make([]uint64, (cap(res.vals)+63)/64-len(res.dirty))...)
	}
	res.vals = res.vals[:v0+k]
	x.Arena, x.Digests = res.arena, w.v.Digests()
	found := x.Over(text, acc, res.vals[v0:], res.dirtyBits(v0, k))
	res.setDirty(v0, k, found)
	res.arena, x.Digests = x.Arena, nil
	res.recs = append(res.recs, streamRec{line: n, off: w.off, v0: v0, denied: denied, valid: valid})
}

// dirtyBits returns the bits of dirty for the k (at most 64) entries of
// vals from v0: bit i for entry v0+i.
func (r *result) dirtyBits(v0, k int) uint64 {
	if k == 0 {
		return 0
	}
	w, o := v0/64, uint(v0%64)
	b := r.dirty[w] >> o
	if o > 0 && w+1 < len(r.dirty) {
		b |= r.dirty[w+1] << (64 - o)
	}
	return b & (^uint64(0) >> (64 - uint(k)))
}

// setDirty sets the bits of dirty for the k (at most 64) entries of vals
// from v0 to bits (bit i for entry v0+i).
func (r *result) setDirty(v0, k int, bits uint64) {
	if k == 0 {
		return
	}
	m := ^uint64(0) >> (64 - uint(k))
	w, o := v0/64, uint(v0%64)
	r.dirty[w] = r.dirty[w]&^(m<<o) | bits<<o
	if o > 0 && o+uint(k) > 64 {
		r.dirty[w+1] = r.dirty[w+1]&^(m>>(64-o)) | bits>>(64-o)
	}
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
	js, locate := record.DocumentJSON(it.file.kind, it.data)
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
	w.off = -1
	w.extract(it, it.file.plan, js, 0, envelope.HasErrors(vs), schemaAccepted(vs), nil)
	res := &it.res
	rec := &res.recs[len(res.recs)-1]
	res.docs = append(res.docs, streamDoc{doc: value, locate: locate})
	rec.doc = int32(len(res.docs))
	for i := rec.v0; i < len(res.vals); i++ {
		res.vals[i].Column = 0 // offsets into the JSON form: use record.Locate
	}
	// The values point into js, which lives as long as the item.
}

// walked is rules.Options.Walked: dir is, or lies under, a directory the run
// walked. It may be called only after the reader is done (from the tree
// rules' Finish).
func (p *pipeline) walked(dir string) bool {
	if len(p.roots) == 0 {
		return false
	}
	if p.absRoot == nil {
		for r := range p.roots {
			if a, err := filepath.Abs(r); err == nil {
				p.absRoot = append(p.absRoot, a)
			}
		}
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, r := range p.absRoot {
		if d == r || strings.HasPrefix(d, r) && (strings.HasSuffix(r, string(filepath.Separator)) || d[len(r)] == filepath.Separator) {
			return true
		}
	}
	return false
}
