package rules

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Rules across the files of one VerMAS .work/ directory (seed 000 "File
// Layout"; cue/README.md, Decisions, "Across files of one tree"), run by vermasCheck after
// the last file of the run. A .work/ directory is one unit: each file
// belongs to its nearest ancestor directory named .work (templates/ and
// processes/ are inside it), or, outside any .work, to its own directory
// (the parent of templates/ or processes/). The events side of a unit is
// its events.jsonl (feed.jsonl is a feed, not the source of truth). When a
// unit lacks one side of a comparison (no events.jsonl, no templates/, no
// routes.jsonl, ...), that comparison is skipped. The sides that are sets
// of files, templates/ and processes/, are complete only when the run
// walked them (Options.Walked): when files are named one by one (pre-commit
// passes the changed ones), a process naming a template, or an assignment
// naming a process, that is not among the named files is not reported.

// ---- documents

// vmProcess is one process file (.work/processes/*.json).
type vmProcess struct {
	file              string
	seen, valid       bool
	id                string
	template          string
	tmplLine, tmplCol int
	workOrder         string // "" when absent or null
	woLine, woCol     int
	steps             []vmStep
	stepsLine         int
	stepsCol          int
}

// vmStep is one step instance of a process, with source positions.
type vmStep struct {
	id, status        string
	idLine, idCol     int
	statusLine, stCol int
	index             int
}

// Observe implements FileState: the process's id, template, work order
// and steps (ids and statuses) with their positions.
func (s *vmProcess) Observe(rec *StreamRecord, _ *StreamReporter) {
	v := rec.Values
	s.seen, s.valid = true, rec.Valid
	if v[procID].Type == ValueString {
		s.id = string(v[procID].Str)
	}
	if !rec.Valid || rec.Locate == nil {
		return
	}
	s.template = string(v[procTemplate].Str)
	s.tmplLine, s.tmplCol = rec.Locate("/template")
	if w := &v[procWorkOrder]; w.Type == ValueString {
		s.workOrder = string(w.Str)
		s.woLine, s.woCol = rec.Locate("/work_order_id")
	}
	s.stepsLine, s.stepsCol = rec.Locate("/steps")
	for i, st := range Arr(Obj(rec.Doc), "steps") {
		o := Obj(st)
		step := vmStep{id: Str(o, "id"), status: Str(o, "status"), index: i}
		step.idLine, step.idCol = rec.Locate(Ptr("steps", i, "id"))
		step.statusLine, step.stCol = rec.Locate(Ptr("steps", i, "status"))
		s.steps = append(s.steps, step)
	}
}

func (s *vmProcess) Finish(*StreamReporter) {}

// vmTemplate is one template file (.work/templates/*.toml).
type vmTemplate struct {
	file        string
	seen, valid bool
	name        string
	steps       []string            // step ids, in order
	needs       map[string][]string // step id → the steps it needs
}

// Observe implements FileState: the template's name and, when valid, its
// steps and their needs.
func (s *vmTemplate) Observe(rec *StreamRecord, _ *StreamReporter) {
	s.seen, s.valid = true, rec.Valid
	if t := &rec.Values[0]; t.Type == ValueString {
		s.name = string(t.Str)
	}
	if !rec.Valid {
		return
	}
	s.needs = map[string][]string{}
	for _, st := range Arr(Obj(rec.Doc), "steps") {
		o := Obj(st)
		id := Str(o, "id")
		if _, dup := s.needs[id]; dup {
			continue
		}
		s.steps = append(s.steps, id)
		var needs []string
		for _, n := range Arr(o, "needs") {
			if n, ok := n.(string); ok {
				needs = append(needs, n)
			}
		}
		s.needs[id] = needs
	}
}

func (s *vmTemplate) Finish(*StreamReporter) {}

// vmAssignment is one assignment file (.work/.assignment-{agent}).
type vmAssignment struct {
	file      string
	valid     bool
	typ, ref  string
	line, col int
}

// Observe implements FileState: the assignment's type and reference.
func (s *vmAssignment) Observe(rec *StreamRecord, _ *StreamReporter) {
	s.valid = rec.Valid && rec.Locate != nil
	if !s.valid {
		return
	}
	s.typ, s.ref = string(rec.Values[0].Str), string(rec.Values[1].Str)
	s.line, s.col = rec.Locate("/reference_id")
}

func (s *vmAssignment) Finish(*StreamReporter) {}

// ---- the tree

// NewTree implements TreeRule.
func (*vermasCheck) NewTree(opts *Options) TreeState {
	return &vmTree{byDir: map[string]*vmUnit{}, opts: opts}
}

// vmTree groups the files of a run by .work/ directory.
type vmTree struct {
	units []*vmUnit
	byDir map[string]*vmUnit
	opts  *Options
}

// vmUnit is the files of one .work/ directory, by kind.
type vmUnit struct {
	dir    string
	opts   *Options
	events *vmEvents // events.jsonl
	wos    []*vmWorkOrders
	msgs   []*vmMessages
	routes []*vmRoutes
	procs  []*vmProcess
	tmpls  []*vmTemplate
	asgs   []*vmAssignment
}

// vmUnitDir returns the .work/ directory a file belongs to.
func vmUnitDir(file string, doc bool) string {
	if file == "-" {
		return "-"
	}
	dir := filepath.Dir(file)
	for d := dir; ; {
		if filepath.Base(d) == ".work" {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if b := filepath.Base(dir); doc && (b == "templates" || b == "processes") {
		return filepath.Dir(dir)
	}
	return dir
}

// AddFile implements TreeState.
func (t *vmTree) AddFile(file string, st FileState) {
	_, doc := st.(*vmProcess)
	if _, ok := st.(*vmTemplate); ok {
		doc = true
	}
	dir := vmUnitDir(file, doc)
	u := t.byDir[dir]
	if u == nil {
		u = &vmUnit{dir: dir, opts: t.opts}
		t.byDir[dir] = u
		t.units = append(t.units, u)
	}
	switch s := st.(type) {
	case *vmEvents:
		if filepath.Base(file) == "events.jsonl" && u.events == nil {
			u.events = s
		}
	case *vmWorkOrders:
		u.wos = append(u.wos, s)
	case *vmMessages:
		u.msgs = append(u.msgs, s)
	case *vmRoutes:
		u.routes = append(u.routes, s)
	case *vmProcess:
		if s.seen {
			u.procs = append(u.procs, s)
		}
	case *vmTemplate:
		if s.seen {
			u.tmpls = append(u.tmpls, s)
		}
	case *vmAssignment:
		u.asgs = append(u.asgs, s)
	}
}

// Finish implements TreeState: the rules across files, unit by unit.
func (t *vmTree) Finish(r *StreamReporter) {
	for _, u := range t.units {
		u.projectionWorkOrders(r.As("VM130"))
		u.projectionMessages(r.As("VM131"))
		u.processes(r.As("VM132"), r.As("VM133"), r.As("VM134"))
		u.assignments(r.As("VM135"))
		u.prefixes(r.As("VM136"))
		if u.events != nil {
			u.events.reportLost(r)
			u.events.release()
		}
	}
}

// workOrder returns the projection line of work order id, or nil.
func (u *vmUnit) workOrder(id string) (*vmWorkOrders, *vmProj) {
	for _, f := range u.wos {
		if i, ok := f.ids.get([]byte(id)); ok {
			return f, &f.wos[i]
		}
	}
	return nil, nil
}

// message returns the projection line of message id, or nil.
func (u *vmUnit) message(id string) (*vmMessages, *vmMsg) {
	for _, f := range u.msgs {
		if i, ok := f.ids.get([]byte(id)); ok {
			return f, &f.msgs[i]
		}
	}
	return nil, nil
}

// vmDiff is one field that differs between a projection and the replay.
type vmDiff struct {
	field, projection, replay string
	line                      uint32 // events.jsonl line that set the replayed value
	col                       uint32 // of the field in the projection line (0: absent)
}

// vmDiffs describes the differences ds of one projection line from the
// events file named events: the reason, the column and pointer of the
// first differing field (0 and "" when it is absent from the line) and the
// details.
func vmDiffs(ds []vmDiff, events string) (reason string, col int, ptr string, extra []map[string]any) {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.field+" "+d.projection+" here, "+d.replay+" in "+events+" (line "+vmLine(d.line)+")")
		extra = append(extra, map[string]any{"field": d.field, "projection": d.projection, "replay": d.replay, "events_line": int(d.line)})
	}
	if ds[0].col > 0 {
		col, ptr = int(ds[0].col), "/"+ds[0].field
	}
	return strings.Join(parts, "; "), col, ptr, extra
}

func vmQuote(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}

// projectionWorkOrders is VM130: work_orders.jsonl equals the replay of
// events.jsonl for status, assignee, title and priority; each side's work
// orders are in the other.
func (u *vmUnit) projectionWorkOrders(r *StreamReporter) {
	ev := u.events
	if ev == nil || len(u.wos) == 0 || !r.Enabled() {
		return
	}
	for _, f := range u.wos {
		for i := range f.wos {
			p := &f.wos[i]
			if !p.valid {
				continue
			}
			w := ev.wo4([]byte(p.id))
			if w == nil {
				r.Report(StreamFinding{File: f.file, Line: int(p.line), Column: int(p.col), Pointer: "/id",
					Reason: "work order " + strconv.Quote(p.id) + " is not created in " + ev.file + " (the projection must replay the event log)",
					Extra:  map[string]any{"id": p.id, "events_file": ev.file}})
				continue
			}
			var ds []vmDiff
			if w.statusLine > 0 && w.status != p.status {
				ds = append(ds, vmDiff{"status", strconv.Quote(vmStatuses[p.status]), strconv.Quote(vmStatuses[w.status]), w.statusLine, p.statusCol})
			}
			if a := ev.str(w.assignee); w.assigneeLine > 0 && a != p.assignee {
				ds = append(ds, vmDiff{"assignee", vmQuote(p.assignee), vmQuote(a), w.assigneeLine, p.asgnCol})
			}
			if t := ev.str(w.title); w.titleLine > 0 && t != p.title {
				ds = append(ds, vmDiff{"title", strconv.Quote(p.title), strconv.Quote(t), w.titleLine, p.titleCol})
			}
			if w.priorityLine > 0 && w.priority != p.priority {
				ds = append(ds, vmDiff{"priority", strconv.Itoa(int(p.priority)), strconv.Itoa(int(w.priority)), w.priorityLine, p.priorCol})
			}
			if len(ds) == 0 {
				continue
			}
			reason, col, ptr, extra := vmDiffs(ds, filepath.Base(ev.file))
			if col == 0 {
				col, ptr = int(p.col), "/id"
			}
			r.Report(StreamFinding{File: f.file, Line: int(p.line), Column: col, Pointer: ptr,
				Reason: "work order " + strconv.Quote(p.id) + " differs from the replay of " + ev.file + ": " + reason,
				Extra:  map[string]any{"id": p.id, "events_file": ev.file, "differences": extra}})
		}
	}
	for i := range ev.wo.len() {
		w := ev.wo.get(i)
		if w.createdInvalid {
			continue
		}
		id := ev.woID(&w)
		if _, p := u.workOrder(id); p == nil {
			r.Report(StreamFinding{File: ev.file, Line: int(w.line), Column: int(w.col), Pointer: "/data/work_order_id",
				Reason: "work order " + strconv.Quote(id) + " created here is not in " + u.wos[0].file,
				Extra:  map[string]any{"work_order_id": id, "projection_file": u.wos[0].file}})
		}
	}
}

// vmSameInstant compares two date-times as instants when both parse.
func vmSameInstant(a string, at int64, b string, bt int64) bool {
	if a == "" || b == "" {
		return a == b
	}
	if _, ok := timefmt.ParseRFC3339(a); ok {
		if _, ok := timefmt.ParseRFC3339(b); ok {
			return at == bt
		}
	}
	return a == b
}

// projectionMessages is VM131: each line of messages.jsonl has a mail.sent
// with the same from, to, subject and message_type, and read_at is the
// mail.read's (null when there is none); each mail.sent has a line.
func (u *vmUnit) projectionMessages(r *StreamReporter) {
	ev := u.events
	if ev == nil || len(u.msgs) == 0 || !r.Enabled() {
		return
	}
	for _, f := range u.msgs {
		for i := range f.msgs {
			m := &f.msgs[i]
			if !m.valid {
				continue
			}
			s := ev.sent4([]byte(m.id))
			if s == nil {
				r.Report(StreamFinding{File: f.file, Line: int(m.line), Column: int(m.col), Pointer: "/id",
					Reason: "message " + strconv.Quote(m.id) + " has no mail.sent in " + ev.file,
					Extra:  map[string]any{"id": m.id, "events_file": ev.file}})
				continue
			}
			if !s.known {
				continue
			}
			var ds []vmDiff
			add := func(field, here, there string, col uint32) {
				if here != there {
					ds = append(ds, vmDiff{field, strconv.Quote(here), strconv.Quote(there), s.line, col})
				}
			}
			add("from", m.from, ev.str(s.from), m.fromCol)
			add("to", m.to, ev.str(s.to), m.toCol)
			add("subject", m.subject, ev.str(s.subject), m.subjCol)
			if m.hasType {
				add("message_type", m.typ, ev.str(s.typ), m.tyCol)
			}
			if readAt := ev.str(s.readAt); !s.readUnknown && !vmSameInstant(m.readAt, m.readTime, readAt, s.readTime) {
				d := vmDiff{"read_at", vmNull(m.readAt), vmNull(readAt), s.readLine, m.readCol}
				if s.readLine == 0 {
					d.replay, d.line = "null (no mail.read)", s.line
				}
				ds = append(ds, d)
			}
			if len(ds) == 0 {
				continue
			}
			reason, col, ptr, extra := vmDiffs(ds, filepath.Base(ev.file))
			if col == 0 {
				col, ptr = int(m.col), "/id"
			}
			r.Report(StreamFinding{File: f.file, Line: int(m.line), Column: col, Pointer: ptr,
				Reason: "message " + strconv.Quote(m.id) + " differs from its mail events in " + ev.file + ": " + reason,
				Extra:  map[string]any{"id": m.id, "events_file": ev.file, "differences": extra}})
		}
	}
	for i := range ev.sent.len() {
		s := ev.sent.get(i)
		if !s.known {
			continue
		}
		id := ev.msgID(&s)
		if _, m := u.message(id); m == nil {
			r.Report(StreamFinding{File: ev.file, Line: int(s.line), Column: int(s.col), Pointer: "/data/message_id",
				Reason: "message " + strconv.Quote(id) + " sent here is not in " + u.msgs[0].file,
				Extra:  map[string]any{"message_id": id, "projection_file": u.msgs[0].file}})
		}
	}
}

func vmNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// template returns the template named name, or nil.
func (u *vmUnit) template(name string) *vmTemplate {
	for _, t := range u.tmpls {
		if t.name == name {
			return t
		}
	}
	return nil
}

// processes is VM132 (a process names a template of templates/ and a work
// order of work_orders.jsonl), VM133 (its step ids are the template's) and
// VM134 (a step in_progress or completed has every step it needs
// completed).
func (u *vmUnit) processes(refs, ids, needs *StreamReporter) {
	for _, p := range u.procs {
		if !p.valid {
			continue
		}
		if p.workOrder != "" && len(u.wos) > 0 {
			if _, w := u.workOrder(p.workOrder); w == nil {
				refs.Report(StreamFinding{File: p.file, Line: p.woLine, Column: p.woCol, Pointer: "/work_order_id",
					Reason: "process " + strconv.Quote(p.id) + " names work order " + strconv.Quote(p.workOrder) + ", which is not in " + u.wos[0].file,
					Extra:  map[string]any{"work_order_id": p.workOrder}})
			}
		}
		if len(u.tmpls) == 0 {
			continue
		}
		t := u.template(p.template)
		if t == nil && !u.opts.DirWalked(filepath.Join(u.dir, "templates")) {
			continue // the template may be a file that was not named
		}
		if t == nil {
			var names []string
			for _, t := range u.tmpls {
				names = append(names, t.name)
			}
			refs.Report(StreamFinding{File: p.file, Line: p.tmplLine, Column: p.tmplCol, Pointer: "/template",
				Reason: "process " + strconv.Quote(p.id) + " names template " + strconv.Quote(p.template) + ", which is not in " +
					filepath.Join(u.dir, "templates") + " (" + strings.Join(names, ", ") + ")",
				Extra: map[string]any{"template": p.template, "templates": names}})
			continue
		}
		if !t.valid {
			continue
		}
		u.stepIDs(p, t, ids)
		u.stepNeeds(p, t, needs)
	}
}

// stepIDs is VM133.
func (u *vmUnit) stepIDs(p *vmProcess, t *vmTemplate, r *StreamReporter) {
	have := map[string]bool{}
	var extra []string
	first := -1
	for i, s := range p.steps {
		have[s.id] = true
		if _, ok := t.needs[s.id]; !ok {
			extra = append(extra, s.id)
			if first < 0 {
				first = i
			}
		}
	}
	var missing []string
	for _, id := range t.steps {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "not in the template: "+strings.Join(extra, ", "))
	}
	f := StreamFinding{File: p.file, Line: p.stepsLine, Column: p.stepsCol, Pointer: "/steps",
		Reason: "the steps of process " + strconv.Quote(p.id) + " are not those of template " + strconv.Quote(t.name) + " (" + t.file + "): " +
			strings.Join(parts, "; "),
		Extra: map[string]any{"template": t.name, "missing": nonNilStrings(missing), "unknown": nonNilStrings(extra)}}
	if first >= 0 {
		s := p.steps[first]
		f.Line, f.Column, f.Pointer = s.idLine, s.idCol, Ptr("steps", s.index, "id")
	}
	r.Report(f)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stepNeeds is VM134.
func (u *vmUnit) stepNeeds(p *vmProcess, t *vmTemplate, r *StreamReporter) {
	status := map[string]string{}
	for _, s := range p.steps {
		if _, dup := status[s.id]; !dup {
			status[s.id] = s.status
		}
	}
	for _, s := range p.steps {
		if s.status != "in_progress" && s.status != "completed" {
			continue
		}
		var unmet []string
		for _, n := range t.needs[s.id] {
			if st, ok := status[n]; ok && st != "completed" {
				unmet = append(unmet, strconv.Quote(n)+" ("+st+")")
			}
		}
		if len(unmet) == 0 {
			continue
		}
		sort.Strings(unmet)
		r.Report(StreamFinding{File: p.file, Line: s.statusLine, Column: s.stCol, Pointer: Ptr("steps", s.index, "status"),
			Reason: "step " + strconv.Quote(s.id) + " is " + s.status + ", but template " + strconv.Quote(t.name) + " says it needs " +
				strings.Join(unmet, ", ") + " completed first",
			Extra: map[string]any{"step": s.id, "unmet": unmet}})
	}
}

// assignments is VM135: an assignment file names a work order (of
// work_orders.jsonl or created in events.jsonl), a message (of
// messages.jsonl or sent in events.jsonl) or a process (of processes/)
// that exists in the same .work/.
func (u *vmUnit) assignments(r *StreamReporter) {
	for _, a := range u.asgs {
		if !a.valid {
			continue
		}
		var sides []string
		found := false
		switch a.typ {
		case "work_order":
			if len(u.wos) > 0 {
				_, p := u.workOrder(a.ref)
				found = found || p != nil
				sides = append(sides, u.wos[0].file)
			}
			if u.events != nil {
				found = found || u.events.wo4([]byte(a.ref)) != nil
				sides = append(sides, u.events.file)
			}
		case "mail":
			if len(u.msgs) > 0 {
				_, m := u.message(a.ref)
				found = found || m != nil
				sides = append(sides, u.msgs[0].file)
			}
			if u.events != nil {
				found = found || u.events.sent4([]byte(a.ref)) != nil
				sides = append(sides, u.events.file)
			}
		case "process":
			if dir := filepath.Join(u.dir, "processes"); len(u.procs) > 0 {
				for _, p := range u.procs {
					found = found || p.id == a.ref
				}
				if u.opts.DirWalked(dir) { // else the process may be a file that was not named
					sides = append(sides, dir)
				}
			}
		}
		if len(sides) == 0 || found {
			continue
		}
		what := map[string]string{"work_order": "work order", "mail": "message", "process": "process"}[a.typ]
		r.Report(StreamFinding{File: a.file, Line: a.line, Column: a.col, Pointer: "/reference_id",
			Reason: "assignment names " + what + " " + strconv.Quote(a.ref) + ", which is not in " + strings.Join(sides, " nor in "),
			Extra:  map[string]any{"type": a.typ, "reference_id": a.ref}})
	}
}

// vmPrefix returns the prefix of a work order id (before the first '-').
func vmPrefix(id string) string {
	p, _, _ := strings.Cut(id, "-")
	return p
}

// prefixes is VM136: a work order id's prefix is wo or a prefix of
// routes.jsonl, checked where work orders are defined: the lines of
// work_orders.jsonl, or the work_order.created events when the unit has
// no work_orders.jsonl.
func (u *vmUnit) prefixes(r *StreamReporter) {
	if len(u.routes) == 0 || !r.Enabled() {
		return
	}
	declared := map[string]bool{"wo": true}
	var names []string
	for _, f := range u.routes {
		for p := range f.prefixes {
			declared[p] = true
		}
	}
	for p := range declared {
		names = append(names, p)
	}
	sort.Strings(names)
	report := func(file string, line, col uint32, ptr, id string) {
		r.Report(StreamFinding{File: file, Line: int(line), Column: int(col), Pointer: ptr,
			Reason: "work order " + strconv.Quote(id) + " has prefix " + strconv.Quote(vmPrefix(id)) + ", which " + u.routes[0].file +
				" does not route (" + strings.Join(names, ", ") + ")",
			Extra: map[string]any{"id": id, "prefix": vmPrefix(id), "declared": names}})
	}
	if len(u.wos) > 0 {
		for _, f := range u.wos {
			for i := range f.wos {
				if p := &f.wos[i]; p.valid && !declared[vmPrefix(p.id)] {
					report(f.file, p.line, p.col, "/id", p.id)
				}
			}
		}
		return
	}
	if u.events == nil {
		return
	}
	for i := range u.events.wo.len() {
		if w := u.events.wo.get(i); !w.createdInvalid {
			if id := u.events.woID(&w); !declared[vmPrefix(id)] {
				report(u.events.file, w.line, w.col, "/data/work_order_id", id)
			}
		}
	}
}

// vermasTreeRules defines the rules of this file (group VM, loaded on first use: see groups).
func vermasTreeRules() {
	tree := func(id string) string { return "testdata/stream/vermas/" + id }
	kinds := []string{vmKindEvent, vmKindWorkOrder, vmKindMessage, vmKindRoute, vmKindAssignment, vmKindTemplate, vmKindProcess}
	register(
		&Rule{
			ID: "VM130", Name: "work-order-projection", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope: ScopeWork,
			Kinds: []string{vmKindWorkOrder, vmKindEvent},
			Summary: "work_orders.jsonl equals the replay of events.jsonl of the same .work/ for status, assignee, title and priority " +
				"(the fields that differ and the lines that set them are named); every work order is on both sides",
			Source:      `seed 000 "Event Schema" (Events are the source of truth. All other data is derived from events), "Work Order Schema"; README, Codes and precedence, LEDGER_INCONSISTENT (projection ≠ replay)`,
			ExampleTree: tree("VM130"),
		},
		&Rule{
			ID: "VM131", Name: "message-projection", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope: ScopeWork,
			Kinds: []string{vmKindMessage, vmKindEvent},
			Summary: "messages.jsonl agrees with the mail events of events.jsonl: a mail.sent with the same from, to, subject and " +
				"message_type, read_at of the mail.read (null without one); every sent message is on both sides",
			Source:      `seed 000 "Mail Events", "Message Schema"; README, Codes and precedence, LEDGER_INCONSISTENT (projection ≠ replay)`,
			ExampleTree: tree("VM131"),
		},
		&Rule{
			ID: "VM132", Name: "process-references", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeWork,
			Kinds:       []string{vmKindProcess, vmKindTemplate, vmKindWorkOrder},
			Summary:     "a process names a template of templates/ (by its template field) and a work order of work_orders.jsonl of the same .work/",
			Source:      `seed 000 "Process Schema (JSON)" (template: Source template name; work_order_id: Attached work order); README, Codes and precedence, LEDGER_INCONSISTENT`,
			ExampleTree: tree("VM132"),
		},
		&Rule{
			ID: "VM133", Name: "process-steps-of-template", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeWork,
			Kinds:       []string{vmKindProcess, vmKindTemplate},
			Summary:     "a process's step ids are its template's step ids (missing and unknown steps are named)",
			Source:      `seed 000 "Process Schema (JSON)" (steps: Step instances), "Template Schema (TOML)"; README, Codes and precedence, LEDGER_INCONSISTENT`,
			ExampleTree: tree("VM133"),
		},
		&Rule{
			ID: "VM134", Name: "process-step-needs", Code: envelope.DependencyNotMet, Severity: envelope.SeverityError,
			Scope:       ScopeWork,
			Kinds:       []string{vmKindProcess, vmKindTemplate},
			Summary:     "a process step in_progress or completed has every step its template needs completed",
			Source:      `seed 000 "Step Fields" (needs: Step IDs that must complete first), "Step Status Values"; README, Codes and precedence, DEPENDENCY_NOT_MET`,
			ExampleTree: tree("VM134"),
		},
		&Rule{
			ID: "VM135", Name: "assignment-target-exists", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeWork,
			Kinds:       kinds,
			Summary:     "an assignment file names a work order, message or process that exists in the same .work/",
			Source:      `seed 000 "Assignment Schema", "Assignment Types"; README, Codes and precedence, LEDGER_INCONSISTENT (dangling references across files)`,
			ExampleTree: tree("VM135"),
		},
		&Rule{
			ID: "VM136", Name: "work-order-prefix-routed", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeWork,
			Kinds:       []string{vmKindWorkOrder, vmKindEvent, vmKindRoute},
			Summary:     "a work order id's prefix is wo or a prefix declared in routes.jsonl of the same .work/",
			Source:      `seed 000 "Route Schema"; cue/README.md, vermas "Ids"`,
			ExampleTree: tree("VM136"),
		},
	)
	for _, id := range []string{"VM130", "VM131", "VM132", "VM133", "VM134", "VM135", "VM136"} {
		registerStream(id, theVermasCheck)
	}
}
