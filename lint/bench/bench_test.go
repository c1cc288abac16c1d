package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	lintrecord "github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// benchLines is the size of the in-memory logs of the benchmarks.
const benchLines = 20000

var (
	logsMu sync.Mutex
	logs   = map[string][]byte{}
)

// benchLog returns a generated log of kind, made once per process.
func benchLog(b *testing.B, kind string) []byte {
	b.Helper()
	logsMu.Lock()
	defer logsMu.Unlock()
	if data, ok := logs[kind]; ok {
		return data
	}
	var buf bytes.Buffer
	if _, err := Generate(&buf, Config{Kind: kind, Lines: benchLines, Seed: 4}); err != nil {
		b.Fatal(err)
	}
	logs[kind] = buf.Bytes()
	return buf.Bytes()
}

// lintBytes lints data as one file of kind with jobs workers, rendering
// envelopes as JSON into w.
func lintBytes(data []byte, kindName string, jobs int, w io.Writer) (*lint.Stats, error) {
	p := &output.JSON{}
	return lint.Lint(func(yield func(lint.Input) bool) {
		yield(lint.Input{Path: "bench.jsonl", Reader: bytes.NewReader(data), Kind: kind.Lookup(kindName)})
	}, lint.LintConfig{Jobs: jobs, Render: p.AppendRecord, Out: w})
}

// BenchmarkLint measures the whole engine (reader, workers, emitter, stream
// rules, JSON rendering) on a generated log, per kind and worker count.
func BenchmarkLint(b *testing.B) {
	for _, kind := range []string{KindWorklog, KindCollector} {
		for _, jobs := range []int{1, runtime.NumCPU()} {
			b.Run(fmt.Sprintf("%s/j%d", kind, jobs), func(b *testing.B) {
				data := benchLog(b, kind)
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := lintBytes(data, kind, jobs, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			})
		}
	}
}

// BenchmarkIsValidFloor is the floor the engine is compared with: reading
// the same log line by line and checking each line with
// jsontext.Value.IsValid, on one goroutine.
func BenchmarkIsValidFloor(b *testing.B) {
	for _, kind := range []string{KindWorklog, KindCollector} {
		b.Run(kind, func(b *testing.B) {
			data := benchLog(b, kind)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if n, _, err := IsValidLines(bytes.NewReader(data)); err != nil || n == 0 {
					b.Fatal("no valid line")
				}
			}
			b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkRender measures rendering one envelope with the hand-written JSON
// encoder (the encoding/json variant is the baseline).
func BenchmarkRender(b *testing.B) {
	e := envelope.Verdict([]envelope.Violation{{Code: envelope.SchemaInvalid, Rule: "AL003", Pointer: "/progress", Line: 7, Column: 40,
		Reason: "1.5 is out of bound <=1", Severity: envelope.SeverityError}}, "ok", map[string]any{"kind": KindCollector, "file": "events-2026-02-14.jsonl", "line": 7})
	b.Run("append", func(b *testing.B) {
		var p output.JSON
		var dst []byte
		b.ReportAllocs()
		for b.Loop() {
			dst = p.AppendRecord(dst[:0], e)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		w := bufio.NewWriter(io.Discard)
		b.ReportAllocs()
		for b.Loop() {
			if err := writeEncodingJSON(w, e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func writeEncodingJSON(w io.Writer, e envelope.Envelope) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(e)
}

// benchWorklogs runs Lint on the worklog log with every document rule
// switched off (records are not decoded for them), per worker count, with
// the schema engine newEngine makes (nil: the fast path).
func benchWorklogs(b *testing.B, newEngine func() lintrecord.SchemaEngine) {
	off := map[string]string{}
	for _, r := range rules.ForKind(KindWorklog) {
		off[r.ID] = "off"
	}
	data := benchLog(b, KindWorklog)
	for _, jobs := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("j%d", jobs), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := lint.Lint(func(yield func(lint.Input) bool) {
					yield(lint.Input{Path: "bench.jsonl", Reader: bytes.NewReader(data), Kind: kind.Lookup(KindWorklog)})
				}, lint.LintConfig{Jobs: jobs, Out: io.Discard, Render: (&output.JSON{}).AppendRecord, Options: lintrecord.Options{Severity: off}, NewEngine: newEngine})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkEngineOnly measures the pipeline and the schema engine without
// the document rules: the engine's own share of BenchmarkLint.
func BenchmarkEngineOnly(b *testing.B) { benchWorklogs(b, nil) }

// nopEngine accepts every record.
type nopEngine struct{}

func (nopEngine) Schema(string, []byte, int, bool) []envelope.Violation { return nil }

// BenchmarkPipelineOnly measures what the pipeline itself costs (reading,
// cutting lines, the workers' loop, stream values for OP080, the ordered
// emitter) next to the IsValid floor: the schema engine accepts everything.
func BenchmarkPipelineOnly(b *testing.B) {
	benchWorklogs(b, func() lintrecord.SchemaEngine { return nopEngine{} })
}
