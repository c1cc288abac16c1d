package lint

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// A recording stream rule (ZZ902): it keeps what Observe saw for files named
// observe-*.jsonl and never reports, so the other tests do not notice it.
type observeRule struct{}

func (observeRule) Fields() []rules.Field {
	return []rules.Field{{Pointer: "/task_id", Type: rules.FieldString}, {Pointer: "/timestamp", Type: rules.FieldTime}}
}

func (observeRule) NewFile(file string, _ *rules.Options) rules.FileState {
	return &observeFile{file: file}
}

type observeFile struct{ file string }

var (
	observedMu sync.Mutex
	observed   = map[string][]string{}
)

func (s *observeFile) Observe(rec *rules.StreamRecord, _ *rules.StreamReporter) {
	if !strings.HasPrefix(s.file, "observe-") {
		return
	}
	id, ts := rec.Values[0], rec.Values[1]
	observedMu.Lock()
	defer observedMu.Unlock()
	observed[s.file] = append(observed[s.file], fmt.Sprintf("%d valid=%v task_id=%d:%s timestamp=%d", rec.Line, rec.Valid, id.Type, id.Str, ts.Type))
}

func (s *observeFile) Finish(*rules.StreamReporter) {}

func init() {
	rules.Register(&rules.Rule{ID: "ZZ902", Name: "test-observe", Code: "LEDGER_INCONSISTENT", Severity: "warning",
		Kinds: []string{"operator/worklog"}, Summary: "test only: records what stream rules observe", Source: "lint/stream_invalid_test.go"})
	rules.RegisterStream("ZZ902", observeRule{})
}

// TestStreamObservesInvalidRecords: a record the schema rejected but that is
// a JSON object is observed with Valid false and the values found in it
// (here a task_id the schema rejects and a timestamp without offset, which
// stays a string); a line that is not well-formed JSON, or not an object,
// is not observed.
func TestStreamObservesInvalidRecords(t *testing.T) {
	data := worklogLine(1, 0) + "\n" +
		strings.Replace(worklogLine(2, 0), `"T-12"`, `"T12"`, 1) + "\n" + // OP005
		strings.Replace(worklogLine(3, 0), `:00Z"`, `:00"`, 1) + "\n" + // no offset
		`{"task_id":"T-9","timestamp":` + "\n" + // syntax error
		`["T-9"]` + "\n" + // not an object
		`{"task_id":7}` + "\n" // wrong type, required fields missing
	for _, chunk := range []int{64, DefaultChunkSize} {
		observedMu.Lock()
		delete(observed, "observe-a.jsonl")
		observedMu.Unlock()
		lintData(t, LintConfig{Jobs: 2, ChunkSize: chunk}, namedData{"observe-a.jsonl", data})
		want := []string{
			"1 valid=true task_id=1:T-12 timestamp=3",
			"2 valid=false task_id=1:T12 timestamp=3",
			"3 valid=false task_id=1:T-12 timestamp=1",
			"6 valid=false task_id=4: timestamp=0",
		}
		observedMu.Lock()
		got := observed["observe-a.jsonl"]
		observedMu.Unlock()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("chunk %d: observed:\n%s\nwant:\n%s", chunk, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestOP080IgnoresInvalidRecords: an invalid entry with an early timestamp
// is neither compared nor the previous entry of the next one.
func TestOP080IgnoresInvalidRecords(t *testing.T) {
	data := worklogLine(10, 0) + "\n" +
		strings.Replace(worklogLine(5, 0), `"T-12"`, `"T12"`, 1) + "\n" + // invalid, earlier
		worklogLine(11, 0) + "\n"
	out, _ := lintData(t, LintConfig{Jobs: 1}, namedData{"w.jsonl", data})
	if want := "w.jsonl:2 allow=false SCHEMA_INVALID OP005@2:95\n"; out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

// TestStreamValidPathAllocations: with stream rules on, a valid record costs
// no allocation more than with them off (the extraction reuses the chunk's
// buffers), and observing invalid records adds nothing to that path.
func TestStreamValidPathAllocations(t *testing.T) {
	line := []byte(worklogLine(3, 40))
	allocs := func(plan bool) float64 {
		p := newPipeline(LintConfig{Jobs: 1})
		f := &fileRun{path: "w.jsonl", kind: kind.Lookup("operator/worklog")}
		if plan {
			f.plan = p.plans[f.kind]
			if f.plan == nil {
				t.Fatal("no stream plan for operator/worklog")
			}
		}
		w := &worker{p: p, v: record.NewValidator(p.cfg.Options, nil), xs: map[*streamPlan]*record.Extractor{}}
		it := &item{file: f}
		w.line(it, line, 1, true) // warm up buffers
		return testing.AllocsPerRun(200, func() {
			it.res.reset()
			w.line(it, line, 1, true)
		})
	}
	off, on := allocs(false), allocs(true)
	if on > off {
		t.Errorf("a valid record allocates %v times with stream rules, %v without", on, off)
	}
}
