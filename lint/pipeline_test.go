package lint

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// worklogLine returns a valid worklog entry whose timestamp is minute m
// after 19:00 (m < 60) and whose decision pads it to about pad bytes.
func worklogLine(m int, pad int) string {
	return fmt.Sprintf(`{"timestamp":"2026-02-14T19:%02d:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":[],"decision":"%s","result":"ok","next_step":"report"}`,
		m%60, strings.Repeat("d", pad))
}

// render is a Render function for tests: one line per envelope with the
// fields a reader checks (file, line, allow, code and every violation's
// rule, line and column), so failures are readable.
func render(dst []byte, e envelope.Envelope) []byte {
	file, _ := e.Details["file"].(string)
	line, _ := e.Details["line"].(int)
	dst = fmt.Appendf(dst, "%s:%d allow=%v %s", file, line, e.Allow, e.Code)
	vs, _ := e.Details["violations"].([]envelope.Violation)
	for _, v := range vs {
		dst = fmt.Appendf(dst, " %s@%d:%d", v.Rule, v.Line, v.Column)
	}
	return append(dst, '\n')
}

type namedData struct {
	path string
	data string
}

// lintData lints in-memory files of kind operator/worklog and returns the
// rendered output and the stats.
func lintData(t *testing.T, cfg LintConfig, files ...namedData) (string, *Stats) {
	t.Helper()
	var out bytes.Buffer
	cfg.Out = &out
	if cfg.Render == nil && cfg.Emit == nil {
		cfg.Render = render
	}
	st, err := lintWithTimeout(t, func(yield func(Input) bool) {
		for _, f := range files {
			if !yield(Input{Path: f.path, Reader: strings.NewReader(f.data), Kind: kind.Lookup("operator/worklog")}) {
				return
			}
		}
	}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), st
}

// lintWithTimeout fails the test instead of hanging when the pipeline
// deadlocks.
func lintWithTimeout(t *testing.T, inputs func(yield func(Input) bool), cfg LintConfig) (*Stats, error) {
	t.Helper()
	type res struct {
		st  *Stats
		err error
	}
	c := make(chan res, 1)
	go func() {
		st, err := Lint(inputs, cfg)
		c <- res{st, err}
	}()
	select {
	case r := <-c:
		return r.st, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("Lint did not finish within 60 s (deadlock?)")
		return nil, nil
	}
}

func TestLintJSONLinesLineRules(t *testing.T) {
	good := worklogLine(0, 10)
	bad := strings.Replace(worklogLine(1, 10), "T19", " 19", 1)
	data := "\ufeff" + good + "\n" + bad + "\n   \n" + worklogLine(2, 10) + "\r\n" + worklogLine(3, 10) + "\r"
	out, st := lintData(t, LintConfig{Jobs: 2}, namedData{"w.jsonl", data})
	want := "w.jsonl:1 allow=true OK AL006@1:1\n" +
		"w.jsonl:2 allow=false SCHEMA_INVALID OP024@2:14\n" +
		"w.jsonl:4 allow=true OK AL007@4:" + fmt.Sprint(len(worklogLine(2, 10))+1) + "\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	// The last line ends with a CR but no LF: it is a record (CR is JSON
	// white space), not a CRLF line ending.
	if st.Records != 4 || st.BlankLines != 1 || st.Denied != 1 || st.Warnings != 2 || st.Files != 1 {
		t.Errorf("stats: %+v", st)
	}

	out, _ = lintData(t, LintConfig{Jobs: 1, Options: record.Options{Strict: true}}, namedData{"w.jsonl", data})
	if !strings.Contains(out, "w.jsonl:3 allow=false SCHEMA_INVALID AL008@3:1\n") {
		t.Errorf("strict: blank line not reported:\n%s", out)
	}
}

func TestLintFinalLineWithoutNewline(t *testing.T) {
	for _, chunk := range []int{16, 64, 1 << 10, DefaultChunkSize} {
		data := worklogLine(0, 5) + "\n" + `{"timestamp":`
		out, st := lintData(t, LintConfig{Jobs: 2, ChunkSize: chunk}, namedData{"w.jsonl", data})
		if st.Records != 2 || !strings.HasPrefix(out, "w.jsonl:2 allow=false SCHEMA_INVALID AL001@2:") {
			t.Errorf("chunk %d: records %d, output:\n%s", chunk, st.Records, out)
		}
	}
}

func TestLintEmptyInputs(t *testing.T) {
	out, st := lintData(t, LintConfig{Jobs: 2}, namedData{"a.jsonl", ""}, namedData{"b.jsonl", "\n"})
	if out != "" || st.Files != 2 || st.Records != 0 || st.BlankLines != 1 {
		t.Errorf("stats %+v, output %q", st, out)
	}
}

// TestLintLongLines checks the MaxLine limit at its edges with a small
// limit: a line of exactly MaxLine bytes is a record, one byte more is
// AL009, and the lines around it are still checked, whether the long line
// ends with LF, CRLF or the end of the file.
func TestLintLongLines(t *testing.T) {
	const limit = 300
	atLimit := worklogLine(4, 0)
	atLimit = worklogLine(4, limit-len(atLimit))
	if len(atLimit) != limit {
		t.Fatalf("bad fixture length %d", len(atLimit))
	}
	over := worklogLine(5, limit+1-len(worklogLine(5, 0)))
	bad := strings.Replace(worklogLine(6, 0), `"T-12"`, `"T12"`, 1)
	for _, chunk := range []int{32, 100, 299, 300, 301, 512, 4096} {
		cfg := LintConfig{Jobs: 3, ChunkSize: chunk, MaxLine: limit}
		data := worklogLine(1, 3) + "\n" + atLimit + "\n" + over + "\n" + bad + "\n" + atLimit + "\r\n" + over + "\r\n" + bad + "\n" + over
		out, st := lintData(t, cfg, namedData{"w.jsonl", data})
		want := "w.jsonl:3 allow=false SCHEMA_INVALID AL009@3:1\n" +
			"w.jsonl:4 allow=false SCHEMA_INVALID OP005@4:95\n" +
			"w.jsonl:5 allow=true OK AL007@5:301\n" +
			"w.jsonl:6 allow=false SCHEMA_INVALID AL009@6:1\n" +
			"w.jsonl:7 allow=false SCHEMA_INVALID OP005@7:95\n" +
			"w.jsonl:8 allow=false SCHEMA_INVALID AL009@8:1\n"
		if out != want {
			t.Errorf("chunk %d: output:\n%s\nwant:\n%s", chunk, out, want)
		}
		if st.Records != 5 {
			t.Errorf("chunk %d: %d records, want 5 (the too-long lines are not records)", chunk, st.Records)
		}
	}
}

// TestLintLineOver64MiB is the real limit: a 64 MiB + 1 byte line between
// two records.
func TestLintLineOver64MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 64 MiB line")
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"decision":"` + strings.Repeat("x", record.MaxLine+1-len(`{"decision":""}`)) + `"}`
	if len(long) != record.MaxLine+1 {
		t.Fatal("bad fixture")
	}
	for _, s := range []string{worklogLine(0, 0), "\n", long, "\n", strings.Replace(worklogLine(6, 0), `"T-12"`, `"T12"`, 1), "\n"} {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := lintWithTimeout(t, func(yield func(Input) bool) {
		yield(Input{Path: path, Kind: kind.Lookup("operator/worklog")})
	}, LintConfig{Jobs: 2, Render: render, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	want := path + ":2 allow=false SCHEMA_INVALID AL009@2:1\n" + path + ":3 allow=false SCHEMA_INVALID OP005@3:95\n"
	if out.String() != want || st.Records != 2 {
		t.Errorf("records %d, output:\n%s\nwant:\n%s", st.Records, out.String(), want)
	}
}

// randomLog returns a JSON Lines text of n lines mixing valid and invalid
// records, blank lines, CRLF endings, lines longer than the chunk sizes the
// tests use and out-of-order timestamps.
func randomLog(r *rand.Rand, n int) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("\ufeff")
	}
	for i := 0; i < n; i++ {
		switch k := r.IntN(20); {
		case k == 0:
			b.WriteString("  ")
		case k == 1:
			b.WriteString(`{"timestamp":"2026-02-14T19:00:00Z","run_id":`)
		case k == 2:
			b.WriteString(worklogLine(r.IntN(60), 200+r.IntN(600)))
		case k == 3:
			b.WriteString(strings.Replace(worklogLine(r.IntN(60), 3), `"task_id":"T-12"`, `"task_id":"T12"`, 1))
		default:
			b.WriteString(worklogLine(r.IntN(60), r.IntN(40)))
		}
		if r.IntN(10) == 0 {
			b.WriteString("\r")
		}
		if i < n-1 || r.IntN(2) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestLintChunkingInvariant: the output does not depend on the chunk size,
// the line limit (above the longest line) or the number of workers, and the
// Emit path prints the same envelopes as the Render path.
func TestLintChunkingInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var files []namedData
	for i := 0; i < 12; i++ {
		files = append(files, namedData{fmt.Sprintf("f%02d.jsonl", i), randomLog(r, r.IntN(300))})
	}
	ref, refStats := lintData(t, LintConfig{Jobs: 1, ChunkSize: 1 << 20}, files...)
	if !strings.Contains(ref, "OP080") || !strings.Contains(ref, "AL007") || !strings.Contains(ref, "AL001") {
		t.Fatalf("fixture too tame:\n%s", ref)
	}
	for _, jobs := range []int{1, 2, 7} {
		for _, chunk := range []int{64, 333, 1000, 4096} {
			got, st := lintData(t, LintConfig{Jobs: jobs, ChunkSize: chunk, MaxLine: 2000}, files...)
			if got != ref {
				t.Fatalf("jobs %d chunk %d: output differs from the reference:\n%s", jobs, chunk, firstDiff(got, ref))
			}
			if fmt.Sprint(st) != fmt.Sprint(refStats) {
				t.Fatalf("jobs %d chunk %d: stats %+v, want %+v", jobs, chunk, st, refStats)
			}
		}
	}
	var emitted []byte
	_, _ = lintData(t, LintConfig{Jobs: 3, ChunkSize: 500, Emit: func(e envelope.Envelope) error {
		emitted = render(emitted, e)
		return nil
	}}, files...)
	if string(emitted) != ref {
		t.Fatalf("Emit path differs from the Render path:\n%s", firstDiff(string(emitted), ref))
	}
	quiet, st := lintData(t, LintConfig{Jobs: 2, ChunkSize: 500, Quiet: true}, files...)
	if quiet != "" || fmt.Sprint(st) != fmt.Sprint(refStats) {
		t.Fatalf("quiet: output %q, stats %+v, want %+v", quiet, st, refStats)
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(g), len(w))
}

// TestLintStreamRuleMergesIntoRecord: OP080's finding joins the envelope of
// the record it concerns, next to that record's own warnings, and names the
// previous line; records the schema rejected are not compared.
func TestLintStreamRuleMergesIntoRecord(t *testing.T) {
	data := worklogLine(10, 0) + "\n" +
		strings.Replace(worklogLine(5, 0), "Z\"", "\"", 1) + "\n" + // rejected: no offset
		worklogLine(20, 0) + "\n" +
		worklogLine(15, 0) + "\r\n" + // backwards and CRLF
		worklogLine(16, 0) + "\n"
	var got []envelope.Envelope
	_, st := lintData(t, LintConfig{Jobs: 2, ChunkSize: 64, Emit: func(e envelope.Envelope) error {
		got = append(got, e)
		return nil
	}}, namedData{"w.jsonl", data})
	if len(got) != 2 {
		t.Fatalf("%d envelopes, want 2: %+v", len(got), got)
	}
	vs := got[1].Details["violations"].([]envelope.Violation)
	if got[1].Details["line"] != 4 || len(vs) != 2 || vs[0].Rule != "AL007" || vs[1].Rule != "OP080" {
		t.Fatalf("envelope of line 4: %+v", got[1])
	}
	op := vs[1]
	if op.Code != envelope.LedgerInconsistent || op.Severity != envelope.SeverityWarning || op.Line != 4 || op.Column != 14 ||
		op.Pointer != "/timestamp" || !strings.Contains(op.Reason, "on line 3") || op.Extra["previous_line"] != 3 {
		t.Errorf("OP080 violation: %+v", op)
	}
	if st.Warnings != 2 || st.ByRule["OP080"] != 1 || st.Denied != 1 {
		t.Errorf("stats: %+v", st)
	}

	// Severity from the config: OP080 as an error denies the record; off
	// does not run it.
	_, st = lintData(t, LintConfig{Jobs: 1, Options: record.Options{Severity: map[string]string{"OP080": "error"}}}, namedData{"w.jsonl", data})
	if st.Denied != 2 || st.Worst != envelope.SchemaInvalid {
		t.Errorf("OP080 as error: %+v", st)
	}
	out, _ := lintData(t, LintConfig{Jobs: 1, Options: record.Options{Severity: map[string]string{"OP080": "off"}}}, namedData{"w.jsonl", data})
	if strings.Contains(out, "OP080") {
		t.Errorf("OP080 off still reported:\n%s", out)
	}
}

// TestLintStateIsPerFile: timestamps are compared within a file only.
func TestLintStateIsPerFile(t *testing.T) {
	out, _ := lintData(t, LintConfig{Jobs: 2}, namedData{"a.jsonl", worklogLine(30, 0) + "\n"}, namedData{"b.jsonl", worklogLine(10, 0) + "\n"})
	if out != "" {
		t.Errorf("findings across files:\n%s", out)
	}
}

// The tree-rule hook, proven with a test rule: an x_test_id repeated across
// files (findings name both places). Only records with x_test_id are seen,
// so the other tests of the package do not notice the rule.
type testTreeRule struct{}

func (testTreeRule) Fields() []rules.Field {
	return []rules.Field{{Pointer: "/x_test_id", Type: rules.FieldString}, {Pointer: "/x_test/n", Type: rules.FieldNumber}}
}
func (testTreeRule) NewFile(file string, _ *rules.Options) rules.FileState {
	return &testTreeFile{ids: map[string]int{}}
}
func (testTreeRule) NewTree(*rules.Options) rules.TreeState {
	return &testTree{first: map[string]string{}}
}

type testTreeFile struct {
	ids   map[string]int
	order []string
	sum   float64
}

func (s *testTreeFile) Observe(rec *rules.StreamRecord, r *rules.StreamReporter) {
	if v := rec.Values[0]; v.Type == rules.ValueString {
		if _, ok := s.ids[string(v.Str)]; !ok {
			s.order = append(s.order, string(v.Str))
			s.ids[string(v.Str)] = rec.Line
		}
	}
	if v := rec.Values[1]; v.Type == rules.ValueNumber {
		s.sum += v.Num
	}
}

func (s *testTreeFile) Finish(r *rules.StreamReporter) {
	if s.sum > 100 {
		r.Report(rules.StreamFinding{Line: 1, Reason: fmt.Sprintf("x_test.n sums to %g", s.sum)})
	}
}

type testTree struct {
	first map[string]string
	found []rules.StreamFinding
}

func (t *testTree) AddFile(file string, st rules.FileState) {
	fs := st.(*testTreeFile)
	for _, id := range fs.order {
		if prev, ok := t.first[id]; ok {
			t.found = append(t.found, rules.StreamFinding{File: file, Line: fs.ids[id], Pointer: "/x_test_id", Reason: "x_test_id " + id + " also in " + prev})
			continue
		}
		t.first[id] = file
	}
}

func (t *testTree) Finish(r *rules.StreamReporter) {
	for _, f := range t.found {
		r.Report(f)
	}
}

func init() {
	rules.Register(&rules.Rule{ID: "ZZ901", Name: "test-tree-rule", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
		Kinds: []string{"operator/worklog"}, Summary: "test only: x_test_id repeated across files", Source: "lint/pipeline_test.go"})
	rules.RegisterStream("ZZ901", testTreeRule{})
}

func TestLintTreeRule(t *testing.T) {
	with := func(m int, id string, n int) string {
		return strings.Replace(worklogLine(m, 0), `"actor"`, fmt.Sprintf(`"x_test_id":%q,"x_test":{"n":%d},"actor"`, id, n), 1)
	}
	a := with(1, "A", 1) + "\n" + with(2, `B\"q`, 1) + "\n"
	b := worklogLine(0, 0) + "\n" + with(3, "A", 100) + "\n" + with(4, `B\"q`, 1) + "\n"
	out, st := lintData(t, LintConfig{Jobs: 2, StreamRules: []string{"ZZ901"}}, namedData{"a.jsonl", a}, namedData{"b.jsonl", b})
	want := "b.jsonl:1 allow=false LEDGER_INCONSISTENT ZZ901@1:0\n" + // Finish of b.jsonl
		"b.jsonl:2 allow=false LEDGER_INCONSISTENT ZZ901@2:0\n" + // tree, after every file
		"b.jsonl:3 allow=false LEDGER_INCONSISTENT ZZ901@3:0\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if st.Denied != 3 || st.Worst != envelope.LedgerInconsistent {
		t.Errorf("stats %+v", st)
	}
}

// failingWriter fails every write: the run stops and Lint returns the error.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestLintStopsOnWriteError(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var files []namedData
	for i := 0; i < 50; i++ {
		files = append(files, namedData{fmt.Sprintf("f%d.jsonl", i), randomLog(r, 200)})
	}
	_, err := lintWithTimeout(t, func(yield func(Input) bool) {
		for _, f := range files {
			if !yield(Input{Path: f.path, Reader: strings.NewReader(f.data), Kind: kind.Lookup("operator/worklog")}) {
				return
			}
		}
	}, LintConfig{Jobs: 2, ChunkSize: 256, Render: render, Out: failingWriter{}})
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("err = %v", err)
	}
}

func TestLintDocumentsAndDetection(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	locks := write("locks.json", `{"locks": [{"task_id": "T-1", "resource": "src", "active": "yes"}]}`)
	wl := write("worklogs/T-1.jsonl", worklogLine(1, 0)+"\n")
	notes := write("notes.txt", "hello")
	unknown := write("data.json", `{"hello": 1}`)
	var st *Stats
	for _, chunk := range []int{16, 64, DefaultChunkSize} { // documents larger and smaller than a chunk
		var out bytes.Buffer
		var err error
		st, err = lintWithTimeout(t, func(yield func(Input) bool) {
			for _, p := range []string{locks, wl, notes, unknown} {
				if !yield(Input{Path: p}) {
					return
				}
			}
			yield(Input{Path: filepath.Join(dir, "gone.jsonl"), Err: errors.New("dangling symbolic link")})
		}, LintConfig{Jobs: 2, Render: render, Out: &out, ChunkSize: chunk})
		if err != nil {
			t.Fatal(err)
		}
		want := locks + ":1 allow=false SCHEMA_INVALID AL003@1:60\n" + filepath.Join(dir, "gone.jsonl") + ":0 allow=false MISSING_REQUIRED_INPUT\n"
		if out.String() != want {
			t.Errorf("chunk %d: output:\n%s\nwant:\n%s", chunk, out.String(), want)
		}
		if st.Files != 2 || st.SkippedFiles != 2 || st.UnreadableFiles != 1 || st.Records != 2 {
			t.Errorf("chunk %d: stats %+v", chunk, st)
		}
	}
	sum := st.Summary()
	if sum.Allow || sum.Code != envelope.MissingRequiredInput || sum.Reason != "1 input unreadable, 1 record denied" {
		t.Errorf("summary %+v", sum)
	}
}

// TestPlaceFields: every stream rule of every kind reads its own fields
// from the plan (idx), the plans stay within the extractor's 64 fields,
// and the idle rules (IL013, IL100, IL101) read theirs where the worker
// wrote them (direct: no copy per record); placeFields reuses a block the
// plan holds, extends the block that ends it, or appends one, and past 64
// fields places each field once.
func TestPlaceFields(t *testing.T) {
	p := newPipeline(LintConfig{})
	for k, plan := range p.plans {
		if len(plan.fields) > 64 {
			t.Errorf("%s: %d fields", k.Name, len(plan.fields))
		}
		for _, run := range plan.rules {
			fields := run.rule.Fields()
			if kr, ok := run.rule.(rules.KindRule); ok {
				fields = kr.KindFields(k.Name)
			}
			for i, f := range fields {
				if plan.fields[run.idx[i]] != f {
					t.Errorf("%s %s: field %d is %v, reads %v", k.Name, run.id, i, f, plan.fields[run.idx[i]])
				}
			}
			if k.Name == "idle/event" && len(fields) > 0 && !run.direct {
				t.Errorf("idle/event %s: its values are copied for every record", run.id)
			}
		}
	}
	f := func(ps ...string) []rules.Field {
		var out []rules.Field
		for _, p := range ps {
			out = append(out, rules.Field{Pointer: p})
		}
		return out
	}
	plan, idx := placeFields(f("/a", "/b", "/c"), f("/b", "/c"))
	if len(plan) != 3 || fmt.Sprint(idx) != "[1 2]" {
		t.Errorf("a block of the plan: %v %v", plan, idx)
	}
	plan, idx = placeFields(f("/a", "/b"), f("/b", "/c"))
	if len(plan) != 3 || fmt.Sprint(idx) != "[1 2]" {
		t.Errorf("extending the end: %v %v", plan, idx)
	}
	plan, idx = placeFields(f("/a", "/b"), f("/a", "/c"))
	if len(plan) != 4 || fmt.Sprint(idx) != "[2 3]" {
		t.Errorf("a new block: %v %v", plan, idx)
	}
	var many []string
	for i := range 63 {
		many = append(many, fmt.Sprintf("/f%d", i))
	}
	plan, idx = placeFields(f(many...), f("/f3", "/x", "/f1"))
	if len(plan) != 64 || fmt.Sprint(idx) != "[3 63 1]" {
		t.Errorf("past 64: %d fields, %v", len(plan), idx)
	}
}
