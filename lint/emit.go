package lint

import (
	"fmt"
	"os"
	"sort"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// The emitter stage of the pipeline (pipeline.go).

// emitter consumes items in input order.
type emitter struct {
	p     *pipeline
	stats Stats
	v     *record.Validator // fills codes and severities of stream findings
	out   []byte
	file  *fileRun
	runs  []fileStreamRun
	trees []treeRun
	vals  []rules.Value
	rec   rules.StreamRecord // what Observe gets (one, reused: no allocation per record)
	found []pending
	vs    []envelope.Violation
	// FileDone bookkeeping of the current file: records before it, the
	// lines of it that are not records.
	records0 int
	doc      bool
	skip     []int
	src      *fileSource // of the current file; nil when it cannot be re-read
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
	return &emitter{p: p, v: record.NewValidator(p.cfg.Options, noEngine{})}
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
	switch it.role {
	case itemSkip:
		if !it.uncounted {
			e.stats.SkippedFiles++
			e.p.cfg.Progress.fileDone()
		}
		if e.p.cfg.Skipped != nil {
			e.p.cfg.Skipped(it.path, it.reason)
		}
		return nil
	case itemError:
		e.p.cfg.Progress.fileDone()
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
		e.doc = it.doc
	}
	e.stats.Merge(&res.stats)
	if e.p.cfg.FileDone != nil {
		e.skip = append(e.skip, res.skip...)
	}
	if prog := e.p.cfg.Progress; prog != nil {
		prog.Records.Add(int64(res.stats.Records))
	}
	if err := e.chunk(it); err != nil {
		return err
	}
	if it.first && !it.last && it.file.size > 0 && len(res.recs) > 0 && len(it.data) > 0 {
		// Rules that remember every record make room for the whole file.
		est := int(it.file.size * int64(len(res.recs)) / int64(len(it.data)))
		for j := range e.runs {
			if x, ok := e.runs[j].state.(rules.Expecter); ok {
				x.Expect(est)
			}
		}
	}
	if it.last {
		e.p.cfg.Progress.fileDone()
		return e.finishFile()
	}
	return nil
}

func (e *emitter) recycle(it *item) {
	if it.pooled {
		e.p.putBuf(it.data)
	}
	if it.bigHeld {
		<-e.p.big
	}
	it.data = nil
	it.file = nil
	e.p.items.Put(it)
}

// startFile creates the stream states of a file.
func (e *emitter) startFile(f *fileRun) {
	e.file = f
	e.records0 = e.stats.Records
	e.skip = e.skip[:0]
	e.runs = e.runs[:0]
	if f.plan == nil {
		return
	}
	if f.reread && f.kind.Format == kind.FormatJSONL {
		e.src = newFileSource(f.path, e.p.maxLine)
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
		e.runs = append(e.runs, fileStreamRun{run: r, state: st, rep: e.reporter(r)})
	}
}

// reporter returns a reporter for the findings of rule run r: only counted
// when the run prints no finding (record.Options.CountOnly, set for Quiet).
func (e *emitter) reporter(r *streamRuleRun) *rules.StreamReporter {
	rep := rules.NewStreamReporter(r.id, r.also...)
	if e.p.cfg.Options.CountOnly {
		rep.SetCounting()
	}
	return rep
}

func (e *emitter) ruleOptions() *rules.Options {
	o := e.p.cfg.Options
	return &rules.Options{Now: o.Now, MaxSkew: o.MaxSkew, Strict: o.Strict, Walked: e.p.walked}
}

// chunk writes the envelopes of one chunk, with the findings of the stream
// rules on its records merged in.
func (e *emitter) chunk(it *item) error {
	res := &it.res
	e.found = e.found[:0]
	e.observe(res)
	if len(e.found) == 0 {
		return e.pass(it, 0, len(res.envs))
	}
	return e.merge(it)
}

// observe runs the stream rules on the records of a chunk and keeps their
// findings in e.found: each rule on every record of the chunk in turn
// (the rules' states are independent of each other), then the findings
// ordered by record, stably (a record's in the order of its rules, as
// if each record had gone through every rule before the next).
func (e *emitter) observe(res *result) {
	for j := range e.runs {
		fr := &e.runs[j]
		e.observeRun(res, fr)
	}
	// Rules that decide a batch at once (rules.Flusher) report its
	// records now, by line.
	for j := range e.runs {
		fr := &e.runs[j]
		if fl, ok := fr.state.(rules.Flusher); ok {
			fl.Flush(fr.rep)
			for _, f := range fr.rep.Take() {
				i := sort.Search(len(res.recs), func(i int) bool { return res.recs[i].line >= f.Line })
				if i == len(res.recs) || res.recs[i].line != f.Line {
					panic(fmt.Sprintf("lint: %s reported line %d, not a record of its batch", fr.run.id, f.Line))
				}
				e.found = append(e.found, pending{rec: i, f: f})
			}
		}
	}
	if len(e.found) > 0 {
		e.sortFound()
	}
}

// observeRun runs the stream rule of fr on the records of a chunk,
// appending its findings to e.found (record by record).
func (e *emitter) observeRun(res *result, fr *fileStreamRun) {
	st, rep := fr.state, fr.rep
	direct, idx := fr.run.direct, fr.run.idx
	k0, nv := 0, len(idx)
	if direct {
		k0 = idx[0]
	}
	r := &e.rec
	*r = rules.StreamRecord{}
	if e.src != nil {
		r.Source = e.src
	}
	vals := res.vals
	for i := range res.recs {
		rec := &res.recs[i]
		// Only what differs from the record before is written.
		r.Line, r.Offset, r.Valid = rec.line, rec.off, rec.valid
		if rec.doc > 0 {
			d := &res.docs[rec.doc-1]
			r.Doc, r.Locate = d.doc, d.locate
		} else if r.Doc != nil || r.Locate != nil {
			r.Doc, r.Locate = nil, nil
		}
		if direct {
			k := rec.v0 + k0
			r.Values = vals[k : k+nv : k+nv]
		} else {
			e.vals = e.vals[:0]
			for _, k := range idx {
				e.vals = append(e.vals, vals[rec.v0+k])
			}
			r.Values = e.vals
		}
		st.Observe(r, rep)
		if fs := rep.Take(); len(fs) > 0 {
			for _, f := range fs {
				e.found = append(e.found, pending{rec: i, f: f})
			}
		}
	}
}

// sortFound orders e.found by record, stably, unless it is in order.
func (e *emitter) sortFound() {
	for k := 1; k < len(e.found); k++ {
		if e.found[k].rec < e.found[k-1].rec {
			sort.SliceStable(e.found, func(a, b int) bool { return e.found[a].rec < e.found[b].rec })
			return
		}
	}
}

// merge writes the envelopes of a chunk with the stream findings e.found
// joined to their records.
func (e *emitter) merge(it *item) error {
	res := &it.res
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
		checked := true
		for _, p := range e.found[k:j] {
			e.vs = append(e.vs, findingViolation(p.f, rec.line))
			checked = checked && p.f.Checked
		}
		if err := e.merged(it.file, rec.line, n, denied, checked); err != nil {
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

// findingViolation is the violation of stream finding f of a record on
// line. A run that only counts findings drops its reason and details
// unread when it fills it (record.Options.CountOnly).
func findingViolation(f rules.StreamFinding, line int) envelope.Violation {
	if f.Line == 0 {
		f.Line = line
	}
	return envelope.Violation{Rule: f.Rule, Pointer: f.Pointer, Line: f.Line, Column: f.Column, Reason: f.Reason, Extra: f.Extra}
}

// allChecked reports whether every finding of fs is Checked.
func allChecked(fs []rules.StreamFinding) bool {
	for i := range fs {
		if !fs[i].Checked {
			return false
		}
	}
	return true
}

// fillFindings fills the violations vs of stream findings with v: without
// scanning their texts for secrets when their rules did (checked).
func fillFindings(v *record.Validator, vs []envelope.Violation, checked bool) []envelope.Violation {
	if checked {
		return v.FillChecked(vs)
	}
	return v.Fill(vs)
}

// merged fills, counts and writes the envelope of a record whose
// violations e.vs[:n] were counted already and e.vs[n:] are stream findings
// (checked: all of them rules.StreamFinding.Checked).
func (e *emitter) merged(f *fileRun, line, n int, denied, checked bool) error {
	e.vs = e.vs[:n+len(fillFindings(e.v, e.vs[n:], checked))] // Fill keeps what it keeps in place
	e.count(e.vs[n:], denied)
	if len(e.vs) == 0 || e.p.cfg.Quiet {
		return nil
	}
	if e.p.cfg.Render != nil { // rendered at once: e.vs is not kept
		e.out = e.p.renderRecord(e.out[:0], f, line, e.vs)
		_, err := e.p.cfg.Out.Write(e.out)
		return err
	}
	return e.write(recordEnvelope(f, line, append([]envelope.Violation(nil), e.vs...)))
}

// count adds to the run's Stats the filled violations vs of one envelope,
// whose record was denied already when denied is true.
func (e *emitter) count(vs []envelope.Violation, denied bool) {
	countFound(&e.stats, vs, denied, false)
}

// countFound adds to st the filled violations vs of one envelope of
// stream findings, whose record was denied already when denied is true;
// by code and rule in found when st is partial (a batch's, which only
// Merge reads: Stats.tally), else in the maps.
func countFound(st *Stats, vs []envelope.Violation, denied, partial bool) {
	for i := range vs {
		v := &vs[i]
		if partial {
			st.tally(v)
		} else {
			st.count(v)
		}
		if v.Severity == envelope.SeverityError {
			st.worse(v.Code)
			if !denied {
				st.Denied++
				denied = true
			}
		} else {
			st.Warnings++
		}
	}
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
	e.closeSource()
	if err := e.findings(fs, func(string) *fileRun { return f }); err != nil {
		return err
	}
	if why := changedSince(f.path, f.stat); why != "" {
		e.stats.UnreadableFiles++
		e.stats.worse(envelope.MissingRequiredInput)
		err := e.write(envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput,
			Reason:  f.path + ": the file changed during the run (" + why + "); its findings may not match its content: lint it again once nothing writes to it",
			Details: map[string]any{"file": f.path}})
		if err != nil {
			return err
		}
	}
	if e.p.cfg.FileDone != nil {
		e.p.cfg.FileDone(FileResult{Path: f.path, Kind: f.kind.Name, Document: e.doc,
			Records: e.stats.Records - e.records0, SkipLines: append([]int(nil), e.skip...), Stat: f.stat})
	}
	return nil
}

// changedSince says how the file at path differs from the file opened as
// was (identity, size, modification time): "" when it does not, or when was
// is nil (standard input, a pipe: read once). Findings, the records stream
// rules read again and the record hashes of SARIF fingerprints must all
// come from one content.
func changedSince(path string, was os.FileInfo) string {
	if was == nil {
		return ""
	}
	now, err := os.Stat(path)
	switch {
	case err != nil:
		return "it was deleted or can no longer be read"
	case !os.SameFile(was, now):
		return "it was replaced"
	case now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime()):
		return "it was written to"
	}
	return ""
}

// closeSource closes the current file's rules.Source.
func (e *emitter) closeSource() {
	if e.src != nil {
		e.src.close()
		e.src = nil
	}
}

// findings writes stream findings that do not join a record's envelope:
// one envelope per file and line (per file for a document), in order.
func (e *emitter) findings(fs []rules.StreamFinding, fileOf func(string) *fileRun) error {
	return eachEnvelope(fs, fileOf, func(f *fileRun, line int, fs []rules.StreamFinding) error {
		e.vs = e.vs[:0]
		for i := range fs {
			e.vs = append(e.vs, findingViolation(fs[i], fs[0].Line))
		}
		return e.merged(f, line, 0, false, allChecked(fs))
	})
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
	e.closeSource()
	for i := range e.trees {
		t := &e.trees[i]
		rep := e.reporter(t.run)
		fileOf := func(path string) *fileRun {
			if f := t.files[path]; f != nil {
				return f
			}
			return &fileRun{path: path, kind: &kind.Kind{}}
		}
		if _, ok := t.state.(rules.OrderedTreeState); ok {
			if err := e.streamTree(t.state, rep, fileOf); err != nil {
				return err
			}
			continue
		}
		t.state.Finish(rep)
		fs := rep.Take()
		rank := func(file string) int {
			if r, ok := t.order[file]; ok {
				return r
			}
			return len(t.order) // files the rule names but never saw: last
		}
		sort.SliceStable(fs, func(a, b int) bool { return rank(fs[a].File) < rank(fs[b].File) })
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

// streamTree runs the Finish of a tree state that reports in output order
// (rules.OrderedTreeState) and writes each envelope as soon as its findings
// are complete (those of one line of a JSON Lines file, or of one document),
// so that the findings are never all held at once. With more than one job
// and a Render, the envelopes are filled and rendered by Jobs goroutines
// (treeRender) and written here, in the same order and bytes.
func (e *emitter) streamTree(st rules.TreeState, rep *rules.StreamReporter, fileOf func(string) *fileRun) (err error) {
	var group []rules.StreamFinding
	var doc bool // group's file is a document: one envelope for the file
	// The file of the last finding (most findings are of the file before).
	var lastPath string
	var lastFile *fileRun
	fileOf0 := fileOf
	fileOf = func(path string) *fileRun {
		if lastFile == nil || path != lastPath {
			lastPath, lastFile = path, fileOf0(path)
		}
		return lastFile
	}
	write := e.findings
	var tr *treeRender
	if e.p.jobs > 1 && e.p.cfg.Render != nil && !e.p.cfg.Quiet {
		// Rendered by Jobs goroutines, written here in order.
		tr = newTreeRender(e, e.p.jobs)
		defer func() {
			if cerr := tr.close(); err == nil {
				err = cerr
			}
		}()
		write = func(fs []rules.StreamFinding, fileOf func(string) *fileRun) error {
			if tr.err != nil {
				return tr.err
			}
			if !doc { // the findings of one line: one envelope
				tr.add(fileOf(fs[0].File), fs[0].Line, fs)
				return nil
			}
			return eachEnvelope(fs, fileOf, func(f *fileRun, line int, fs []rules.StreamFinding) error {
				tr.add(f, line, fs)
				return nil
			})
		}
	}
	flush := func() {
		if len(group) > 0 && err == nil {
			err = write(group, fileOf)
		}
		group = group[:0]
	}
	rep.Stream(func(f rules.StreamFinding) {
		if tr != nil && (len(group) == 0 || f.File != group[0].File) {
			// A finding of a JSON Lines file goes to the renderers'
			// batch at once (addFinding groups it with the finding
			// before when they share a file and line).
			fr := fileOf(f.File)
			if k := fr.kind; k.Format == kind.FormatJSONL || k.Format == "" {
				flush()
				if err == nil {
					err = tr.err
				}
				if err == nil {
					tr.addFinding(fr, f)
				}
				return
			}
		}
		if len(group) > 0 && (f.File != group[0].File || !doc && f.Line != group[0].Line) {
			flush()
		}
		if len(group) == 0 {
			k := fileOf(f.File).kind
			doc = k.Format != kind.FormatJSONL && k.Format != ""
		}
		group = append(group, f)
	})
	st.Finish(rep)
	flush()
	return
}

// Release implements rules.SourceReleaser: it closes the file, which is
// opened again if read again.
func (s *fileSource) Release() { s.close() }
