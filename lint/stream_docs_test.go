package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// A test check (ZZ913, ZZ914 and ZZ915) over three document kinds and a
// JSON Lines kind: it asks each kind for other fields (KindRule), records
// what it observes for files under a zz-docs directory, reports under
// ZZ913 at Observe (a record with x_flag) and under ZZ914 and ZZ915 after
// the last file (tree), so that the other tests of the package never see
// it.
type docsCheck struct{}

var theDocsCheck = &docsCheck{}

func (*docsCheck) Fields() []rules.Field {
	return []rules.Field{{Pointer: "/id", Type: rules.FieldString}, {Pointer: "/steps", Type: rules.FieldRaw},
		{Pointer: "/reference_id", Type: rules.FieldString}, {Pointer: "/x_flag", Type: rules.FieldString},
		{Pointer: "/dependencies", Type: rules.FieldRaw}}
}

func (*docsCheck) KindFields(kind string) []rules.Field {
	switch kind {
	case "vermas/process":
		return []rules.Field{{Pointer: "/id", Type: rules.FieldString}, {Pointer: "/steps", Type: rules.FieldRaw}, {Pointer: "/x_flag", Type: rules.FieldString}}
	case "vermas/assignment":
		return []rules.Field{{Pointer: "/reference_id", Type: rules.FieldString}, {Pointer: "/x_flag", Type: rules.FieldString}}
	case "vermas/work-order":
		return []rules.Field{{Pointer: "/id", Type: rules.FieldString}, {Pointer: "/dependencies", Type: rules.FieldRaw}}
	}
	return []rules.Field{{Pointer: "/x_flag", Type: rules.FieldString}}
}

func (*docsCheck) NewFile(string, *rules.Options) rules.FileState { panic("NewFile of a KindRule") }

func (*docsCheck) NewKindFile(file, kind string, _ *rules.Options) rules.FileState {
	return &docsFile{file: file, kind: kind, zz: strings.Contains(filepath.ToSlash(file), "zz-docs/")}
}

func (*docsCheck) NewTree(*rules.Options) rules.TreeState { return &docsTree{} }

type docsFile struct {
	file, kind string
	zz         bool
	seen       []string
	idLine     int
	idCol      int
}

func (s *docsFile) Observe(rec *rules.StreamRecord, r *rules.StreamReporter) {
	if !s.zz {
		return
	}
	var vals []string
	for _, v := range rec.Values {
		vals = append(vals, fmt.Sprintf("%d:%s@%d", v.Type, v.Str, v.Column))
	}
	keys := "-"
	if m, ok := rec.Doc.(map[string]any); ok {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		keys = strings.Join(ks, ",")
	}
	where := "-"
	if rec.Locate != nil {
		l, c := rec.Locate("/steps/1/status")
		where = fmt.Sprintf("%d:%d", l, c)
		s.idLine, s.idCol = rec.Locate("/id")
	}
	s.seen = append(s.seen, fmt.Sprintf("%s line=%d valid=%v values=%s doc=%s steps1=%s", s.kind, rec.Line, rec.Valid, strings.Join(vals, " "), keys, where))
	for _, v := range rec.Values {
		if v.Type == rules.ValueString && string(v.Str) == "flag" {
			r.As("ZZ913").Report(rules.StreamFinding{Line: s.idLine, Column: s.idCol, Pointer: "/x_flag", Reason: "flagged"})
		}
	}
}

func (s *docsFile) Finish(*rules.StreamReporter) {}

type docsTree struct{ files []*docsFile }

func (t *docsTree) AddFile(_ string, st rules.FileState) {
	if f := st.(*docsFile); f.zz {
		t.files = append(t.files, f)
	}
}

func (t *docsTree) Finish(r *rules.StreamReporter) {
	var all []string
	for _, f := range t.files {
		all = append(all, f.seen...)
		if f.idLine > 0 && f.kind != "vermas/template" {
			r.As("ZZ914").Report(rules.StreamFinding{File: f.file, Line: f.idLine, Column: f.idCol, Pointer: "/id", Reason: "tree finding"})
			r.As("ZZ915").Report(rules.StreamFinding{File: f.file, Line: f.idLine + 1, Pointer: "/id", Reason: "second tree finding"})
		}
	}
	docsSeenMu.Lock()
	defer docsSeenMu.Unlock()
	if len(all) > 0 {
		docsSeen = all
	}
}

var (
	docsSeenMu sync.Mutex
	docsSeen   []string
)

func init() {
	kinds := []string{"vermas/process", "vermas/template", "vermas/assignment", "vermas/work-order"}
	for _, id := range []string{"ZZ913", "ZZ914", "ZZ915"} {
		rules.Register(&rules.Rule{ID: id, Name: "test-docs-" + id, Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Kinds: kinds, Summary: "test only: documents seen by a stream check", Source: "lint/stream_docs_test.go"})
		rules.RegisterStream(id, theDocsCheck)
	}
}

// TestStreamDocuments: documents reach stream checks as one record of line
// 0 with their decoded form and a locator of source positions (JSON, TOML
// and text alike); a document the schema rejected is observed with Valid
// false; one that does not parse is not observed. A KindRule gets each
// kind's own fields; raw fields hold the value's JSON text. One check
// attached to three rules runs once per file and reports under each; its
// findings on a document join one envelope without a line.
func TestStreamDocuments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zz-docs", ".work")
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	proc := write("processes/proc-a.json", "{\n  \"id\": \"proc-a\",\n  \"template\": \"t\",\n  \"state\": \"active\",\n  \"created_at\": \"2026-01-06T10:00:00.000Z\",\n"+
		"  \"steps\": [\n    {\"id\": \"s1\", \"status\": \"completed\"},\n    {\"id\": \"s2\",\n     \"status\": \"pending\"}\n  ],\n  \"x_flag\": \"flag\"\n}\n")
	bad := write("processes/proc-b.json", `{"id": "proc-b", "template": "t", "state": "dormant", "created_at": "2026-01-06T10:00:00.000Z", "steps": []}`)
	broken := write("processes/proc-c.json", `{"id": "proc-c", `)
	tmpl := write("templates/t.toml", "template = \"t\"\ndescription = \"d\"\nversion = 1\n\n[[steps]]\nid = \"s1\"\ntitle = \"one\"\ndescription = \"x\"\n\n"+
		"[[steps]]\nid = \"s2\"\ntitle = \"two\"\ndescription = \"y\"\nstatus = \"z\"\nneeds = [\"s1\"]\n")
	asg := write(".assignment-ceo", "process:proc-a\n")
	wo := write("work_orders.jsonl", `{"id":"wo-1","title":"t","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-06T10:00:00.000Z","updated_at":"2026-01-06T10:00:00.000Z","created_by":"ceo","dependencies":[{"depends_on_id":"wo-2","type":"blocks","created_at":"2026-01-06T10:00:00.000Z","created_by":"ceo"}]}`+"\n")
	var out strings.Builder
	st, err := lintWithTimeout(t, func(yield func(Input) bool) {
		for _, p := range []string{asg, proc, bad, broken, tmpl, wo} {
			if !yield(Input{Path: p}) {
				return
			}
		}
	}, LintConfig{Jobs: 2, Render: render, Out: &out, Options: record.Options{Severity: map[string]string{"ZZ915": "off"}},
		StreamRules: []string{"ZZ913", "ZZ914", "ZZ915"}})
	if err != nil {
		t.Fatal(err)
	}
	docsSeenMu.Lock()
	got := strings.Join(docsSeen, "\n")
	docsSeenMu.Unlock()
	want := strings.Join([]string{
		"vermas/assignment line=0 valid=true values=1:proc-a@0 0:@0 doc=reference_id,type steps1=1:1",
		`vermas/process line=0 valid=true values=1:proc-a@0 5:[
    {"id": "s1", "status": "completed"},
    {"id": "s2",
     "status": "pending"}
  ]@0 1:flag@0 doc=created_at,id,state,steps,template,x_flag steps1=9:16`,
		"vermas/process line=0 valid=false values=1:proc-b@0 5:[]@0 0:@0 doc=created_at,id,state,steps,template steps1=1:106",
		"vermas/template line=0 valid=true values=0:@0 doc=description,steps,template,version steps1=14:1",
		`vermas/work-order line=1 valid=true values=1:wo-1@7 5:[{"depends_on_id":"wo-2","type":"blocks","created_at":"2026-01-06T10:00:00.000Z","created_by":"ceo"}]@189 doc=- steps1=-`,
	}, "\n")
	if got != want {
		t.Errorf("observed:\n%s\nwant:\n%s", got, want)
	}
	// ZZ913 joins the process's own envelope; ZZ914 is reported after the
	// last file, one envelope per document (render shows the line of its
	// first violation); ZZ915 is off.
	wantOut := proc + ":2 allow=false LEDGER_INCONSISTENT ZZ913@2:9\n" +
		bad + ":1 allow=false SCHEMA_INVALID AL003@1:44\n" +
		broken + ":1 allow=false SCHEMA_INVALID AL001@1:18\n" +
		asg + ":1 allow=false LEDGER_INCONSISTENT ZZ914@1:1\n" +
		proc + ":2 allow=false LEDGER_INCONSISTENT ZZ914@2:9\n" +
		bad + ":1 allow=false LEDGER_INCONSISTENT ZZ914@1:8\n"
	if out.String() != wantOut {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), wantOut)
	}
	if st.ByRule["ZZ915"] != 0 || st.ByRule["ZZ914"] != 3 {
		t.Errorf("by rule: %v", st.ByRule)
	}

	// Only ZZ915 wanted: the check runs and reports under ZZ915 alone.
	out.Reset()
	if _, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(Input{Path: proc}) },
		LintConfig{Jobs: 1, Render: render, Out: &out, StreamRules: []string{"ZZ915"}}); err != nil {
		t.Fatal(err)
	}
	if want := proc + ":3 allow=false LEDGER_INCONSISTENT ZZ915@3:0\n"; out.String() != want {
		t.Errorf("ZZ915 only:\n%s\nwant:\n%s", out.String(), want)
	}
}

// writeFile writes data to dir/name, making the directories, and returns
// the path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStreamRecSize: a record's entry for the stream rules stays 32
// bytes (the workers write one per record, the emitter reads it on the
// other core); a document's decoded form and positions are in
// result.docs.
func TestStreamRecSize(t *testing.T) {
	if n := unsafe.Sizeof(streamRec{}); n != 32 {
		t.Fatalf("streamRec is %d bytes, want 32", n)
	}
}
