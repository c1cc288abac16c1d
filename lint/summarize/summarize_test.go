package summarize_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/lint/summarize"
)

// update rewrites the golden files testdata/summarize/*.md and
// *.denied.jsonl from the actual output:
//
//	go test ./lint/summarize -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the golden files of testdata/summarize")

const dir = "../../testdata/summarize"

// run summarizes the ledgers and returns the summaries as `agentlint
// summarize` prints them and the denied lines' envelopes as JSON Lines.
func run(t *testing.T, opts summarize.Options, files ...string) (md, denied string, s *summarize.Summarizer) {
	t.Helper()
	var errs bytes.Buffer
	p := &output.JSON{W: &errs}
	opts.Denied = p.Record
	s = summarize.New(opts)
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Read(filepath.Base(f), r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := summarize.Write(&out, s.Sessions()); err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), s
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGolden: the seed's four complete example entries (seed 003,
// "Complete Ledger Entry Examples", copied verbatim), a session with failed
// tasks, errors and denied lines, and several agents' sessions in one
// ledger give the summaries (and denied envelopes) of the golden files.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name     string
		sessions []string
		denied   int
	}{
		{"seed", []string{"2025-11-16_cls_001"}, 0},
		{"failures", []string{"2025-11-17_andy_002"}, 3},
		{"agents", []string{"2025-11-16_andy_001", "2025-11-16_cls_001", "2025-11-16_cls_002", "2025-11-16_hybrid_001"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			md, denied, s := run(t, summarize.Options{}, filepath.Join(dir, c.name+".jsonl"))
			var ids []string
			for _, ss := range s.Sessions() {
				ids = append(ids, ss.ID)
			}
			if strings.Join(ids, " ") != strings.Join(c.sessions, " ") {
				t.Errorf("sessions %v, want %v", ids, c.sessions)
			}
			if s.Denied() != c.denied {
				t.Errorf("%d denied lines, want %d:\n%s", s.Denied(), c.denied, denied)
			}
			golden(t, filepath.Join(dir, c.name+".md"), md)
			if c.denied > 0 {
				golden(t, filepath.Join(dir, c.name+".denied.jsonl"), denied)
			}
		})
	}
}

// TestSeedLayout: entries that say what seed 003's "Summary Structure"
// example shows give that example byte for byte (testdata/summarize/
// seed-layout.md is the seed's block), except its "Total Events: 5": the
// example lists two events in its timeline.
func TestSeedLayout(t *testing.T) {
	ledger := `{"ts":"2025-11-16T02:10:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"task_start","task_id":"wo-123","source":"gg_orchestrator","summary":"Starting task","data":{}}
{"ts":"2025-11-16T02:12:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"task_result","task_id":"wo-123","source":"gg_orchestrator","summary":"Task completed","data":{"status":"success","duration_sec":120}}
`
	s := summarize.New(summarize.Options{})
	if err := s.Read("ledger.jsonl", strings.NewReader(ledger)); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "seed-layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	ss := s.Sessions()
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	got := strings.Replace(string(ss[0].Markdown()), "**Total Events:** 2\n", "**Total Events:** 5\n", 1)
	if got != string(want) {
		t.Errorf("summary is not in the seed's layout:\n--- got\n%s\n--- seed\n%s", got, want)
	}
	if ss[0].FileName() != "2025-11-16_cls_001.md" {
		t.Errorf("file name %q", ss[0].FileName())
	}
}

// TestSessionFilter: Options.Session keeps one session; every entry is
// still validated, so a denied line of another session is still reported.
func TestSessionFilter(t *testing.T) {
	md, denied, s := run(t, summarize.Options{Session: "2025-11-16_cls_002"}, filepath.Join(dir, "agents.jsonl"), filepath.Join(dir, "failures.jsonl"))
	if n := strings.Count(md, "Session Summary:"); n != 1 || !strings.HasPrefix(md, "# CLS Session Summary: 2025-11-16_cls_002\n") {
		t.Errorf("want only 2025-11-16_cls_002, got:\n%s", md)
	}
	if s.Denied() != 3 || strings.Count(denied, "\n") != 3 {
		t.Errorf("denied %d:\n%s", s.Denied(), denied)
	}
	if s.Entries() != 6+6 {
		t.Errorf("%d valid entries read, want 12", s.Entries())
	}
}

// TestLines: the JSON Lines handling of `agentlint lint`: a byte-order mark
// and CRLF are warnings (the entry is kept), blank lines are skipped (denied
// with --strict), a final line without a newline is an entry.
func TestLines(t *testing.T) {
	e := func(ts string) string {
		return `{"ts":"2025-11-16T02:1` + ts + `:00Z","agent":"cls","session_id":"2025-11-16_cls_001","event":"info","task_id":"t","source":"s","summary":"at ` + ts + `","data":{}}`
	}
	in := "\ufeff" + e("0") + "\r\n\n  \n" + e("1") + "\n" + e("2")
	for _, strict := range []bool{false, true} {
		var envs []envelope.Envelope
		s := summarize.New(summarize.Options{
			Validator: record.NewValidator(record.Options{Strict: strict}, nil),
			Denied:    func(e envelope.Envelope) error { envs = append(envs, e); return nil },
		})
		if err := s.Read("x.jsonl", strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		ss := s.Sessions()
		if len(ss) != 1 || len(ss[0].Timeline) != 3 {
			t.Fatalf("strict=%v: want one session of 3 entries, got %+v", strict, ss)
		}
		for i, ev := range ss[0].Timeline {
			if want := "at " + string(rune('0'+i)); ev.Summary != want {
				t.Errorf("entry %d: summary %q, want %q", i, ev.Summary, want)
			}
		}
		var lines []int
		for _, env := range envs {
			lines = append(lines, env.Details["line"].(int))
			if env.Details["rule"] != "AL008" {
				t.Errorf("denied %+v, want AL008", env)
			}
		}
		if got, want := fmt.Sprint(lines), map[bool]string{false: "[]", true: "[2 3]"}[strict]; got != want {
			t.Errorf("strict=%v: denied lines %s, want %s", strict, got, want)
		}
	}
}

// TestMarkdownText: free text stays on its line and task ids that hold
// backticks are still one code span (CommonMark).
func TestMarkdownText(t *testing.T) {
	ledger := "{\"ts\":\"2025-11-16T02:10:00Z\",\"agent\":\"cls\",\"session_id\":\"2025-11-16_cls_001\",\"event\":\"error\",\"task_id\":\"`wo``1`\",\"source\":\"s\",\"summary\":\"two\\nlines\\r\\nthree\",\"data\":{\"error\":\"a\\nb\"}}\n"
	s := summarize.New(summarize.Options{})
	if err := s.Read("x.jsonl", strings.NewReader(ledger)); err != nil {
		t.Fatal(err)
	}
	md := string(s.Sessions()[0].Markdown())
	for _, want := range []string{
		"- **2025-11-16T02:10:00Z** [error] two lines three\n  - Task: ``` `wo``1` ```\n",
		"  - Error: a b\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}
