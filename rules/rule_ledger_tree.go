package rules

import (
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// LG102, across the files of one run (seed 003 "Status File Schema":
// last_task_id is the agent's current or last task, session_id its current
// session; README, Codes and precedence, LEDGER_INCONSISTENT: dangling references across files):
// agents/<agent>/status.json names in last_task_id a task_id and in
// session_id a session_id that appear in that agent's ledger.
//
//   - An agent's ledger is every ledger/entry file linted in the run whose
//     path is .../ledger/<agent>/<name>.jsonl (seed 003 "File Pattern"
//     g/ledger/<agent>/YYYY-MM-DD.jsonl), wherever it lies in the tree; its
//     entries count whatever their own agent field says (LG012 reports a
//     mismatch) and whether or not they are valid (no cascades).
//   - A status file's agent is <agent> of its path agents/<agent>/status.json,
//     or its agent field when the path has another form (LG013 reports a
//     mismatch).
//   - A status file is checked only when it is valid and its agent's
//     ledger is complete in the run: at least one ledger file of the agent
//     was linted, and every folder holding one was walked (Options.Walked),
//     not only some of its files named. Linting agents/ alone, or the
//     status file with today's ledger file only (what pre-commit passes when
//     both changed), says nothing about the tasks of other days. Absent or
//     null last_task_id and session_id are not checked (they are optional).
//   - Because the check runs only over a complete ledger folder, its
//     verdict does not depend on which files were named: it stays an error
//    , and the pre-commit tree hook blocks a status file
//     naming a task that no ledger entry holds.
//
// Memory: the distinct task_id and session_id values of each agent's
// ledger.

// statusRef is one id a status file names.
type statusRef struct {
	field     string // "last_task_id" or "session_id"
	id        string
	line, col int
}

// ledgerTreeFile is the state of one file: a ledger file collects ids, a
// status file keeps what it names.
type ledgerTreeFile struct {
	status bool
	agent  string // the owner: ledger folder, or the status file's agent
	tasks  map[string]struct{}
	sess   map[string]struct{}
	refs   []statusRef
}

// ledgerRefs is the check of LG102: a KindRule (entries and status files
// give different fields) and a TreeRule.
type ledgerRefs struct{}

var theLedgerRefs = &ledgerRefs{}

var (
	ledgerRefEntryFields  = []Field{{Pointer: "/task_id", Type: FieldString}, {Pointer: "/session_id", Type: FieldString}}
	ledgerRefStatusFields = []Field{{Pointer: "/last_task_id", Type: FieldString}, {Pointer: "/session_id", Type: FieldString}, {Pointer: "/agent", Type: FieldString}}
)

func (*ledgerRefs) Fields() []Field {
	return append(append([]Field(nil), ledgerRefEntryFields...), ledgerRefStatusFields...)
}

func (*ledgerRefs) KindFields(kind string) []Field {
	if kind == "ledger/status" {
		return ledgerRefStatusFields
	}
	return ledgerRefEntryFields
}

func (*ledgerRefs) NewFile(file string, opts *Options) FileState {
	return theLedgerRefs.NewKindFile(file, "ledger/entry", opts)
}

func (*ledgerRefs) NewKindFile(file, kind string, _ *Options) FileState {
	if kind == "ledger/status" {
		return &ledgerTreeFile{status: true, agent: ownerFolder(file, "agents", func(b string) bool { return b == "status.json" })}
	}
	return &ledgerTreeFile{
		agent: ownerFolder(file, "ledger", func(b string) bool { return strings.HasSuffix(b, ".jsonl") }),
		tasks: map[string]struct{}{}, sess: map[string]struct{}{},
	}
}

func (s *ledgerTreeFile) Observe(rec *StreamRecord, _ *StreamReporter) {
	if !s.status {
		if s.agent == "" {
			return
		}
		if v := &rec.Values[0]; v.Type == ValueString {
			if _, ok := s.tasks[string(v.Str)]; !ok {
				s.tasks[string(v.Str)] = struct{}{}
			}
		}
		if v := &rec.Values[1]; v.Type == ValueString {
			if _, ok := s.sess[string(v.Str)]; !ok {
				s.sess[string(v.Str)] = struct{}{}
			}
		}
		return
	}
	if !rec.Valid {
		return
	}
	if s.agent == "" && rec.Values[2].Type == ValueString {
		s.agent = string(rec.Values[2].Str)
	}
	for i, field := range []string{"last_task_id", "session_id"} {
		v := &rec.Values[i]
		if v.Type != ValueString {
			continue
		}
		ref := statusRef{field: field, id: string(v.Str), line: rec.Line, col: v.Column}
		if rec.Locate != nil {
			ref.line, ref.col = rec.Locate("/" + field)
		}
		s.refs = append(s.refs, ref)
	}
}

func (s *ledgerTreeFile) Finish(*StreamReporter) {}

func (*ledgerRefs) NewTree(opts *Options) TreeState {
	return &ledgerRefsTree{ledgers: map[string]*agentLedger{}, opts: opts}
}

// agentLedger is the union of one agent's ledger files.
type agentLedger struct {
	files []string
	tasks map[string]struct{}
	sess  map[string]struct{}
}

// dirs returns the directories of the ledger's files, sorted.
func (l *agentLedger) dirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range l.files {
		d := path.Dir(filepath.ToSlash(f)) + "/"
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

type ledgerRefsTree struct {
	ledgers map[string]*agentLedger
	status  []statusFile
	opts    *Options
}

// complete reports whether every folder of l was walked: no ledger file of
// the agent can be missing from the run.
func (t *ledgerRefsTree) complete(l *agentLedger) bool {
	for _, f := range l.files {
		if !t.opts.DirWalked(filepath.Dir(f)) {
			return false
		}
	}
	return true
}

type statusFile struct {
	path string
	st   *ledgerTreeFile
}

func (t *ledgerRefsTree) AddFile(file string, fs FileState) {
	st := fs.(*ledgerTreeFile)
	if st.status {
		t.status = append(t.status, statusFile{file, st})
		return
	}
	if st.agent == "" {
		return
	}
	l := t.ledgers[st.agent]
	if l == nil {
		l = &agentLedger{tasks: st.tasks, sess: st.sess}
		t.ledgers[st.agent] = l
	} else {
		for k := range st.tasks {
			l.tasks[k] = struct{}{}
		}
		for k := range st.sess {
			l.sess[k] = struct{}{}
		}
	}
	l.files = append(l.files, file)
}

func (t *ledgerRefsTree) Finish(r *StreamReporter) {
	for _, sf := range t.status {
		l := t.ledgers[sf.st.agent]
		if l == nil || !t.complete(l) {
			continue
		}
		for _, ref := range sf.st.refs {
			set := l.tasks
			what := "task_id"
			if ref.field == "session_id" {
				set, what = l.sess, "session_id"
			}
			if _, ok := set[ref.id]; ok {
				continue
			}
			r.Report(StreamFinding{
				File: sf.path, Line: ref.line, Column: ref.col, Pointer: "/" + ref.field,
				Reason: ref.field + " " + strconv.Quote(ref.id) + " is not the " + what + " of any entry of agent " + sf.st.agent + "'s ledger (" +
					plural(len(l.files), "file") + " linted in " + strings.Join(l.dirs(), ", ") + ")",
				Extra: map[string]any{"agent": sf.st.agent, "ledger_files": len(l.files)},
			})
		}
	}
}

// plural returns "1 file" or "n files".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// ledgerTreeRules defines the rules of this file (group LG, loaded on first use: see groups).
func ledgerTreeRules() {
	register(&Rule{
		ID: "LG102", Name: "status-in-ledger", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
		Scope:       "the agent's whole ledger folder, decided after the last file, and only when the run walked every folder holding that agent's ledger files (agentlint lint DIR): when ledger files are named one by one (a pre-commit hook passing the changed files) the check is skipped, so the verdict never depends on which daily files were named.",
		Kinds:       []string{"ledger/entry", "ledger/status"},
		Summary:     "agents/<agent>/status.json names a last_task_id or session_id that no entry of that agent's ledger (ledger/<agent>/*.jsonl linted in the same run) has",
		Source:      "seed 003 Status File Schema (last_task_id, session_id) and File Patterns; README, Codes and precedence, LEDGER_INCONSISTENT",
		ExampleTree: "testdata/stream/ledger/LG102",
	})
	registerStream("LG102", theLedgerRefs)
}
