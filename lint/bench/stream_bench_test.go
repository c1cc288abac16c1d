package bench

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	lintrecord "github.com/agentlint/agentlint/lint/record"
)

// streamLines is the length of the logs of BenchmarkStreamRules.
const streamLines = 100000

// coherentLog returns a log of kind whose records pass every stream rule,
// so that the benchmark measures the rules, not the rendering of findings:
//
//   - collector/event: one distinct event_id (UUID) per line, traces of 50
//     spans each (every parent_span_id names the previous span), time
//     increasing (CL100, CL101, CL102 and the trace count of the summary);
//   - ledger/entry and idle/event: Generate's logs (LedgerLine, IdleLine).
func coherentLog(kind string, n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		// Every record 50 ms after the previous one, from 00:00.
		ms := i * 50
		hour, min, sec, frac := ms/3600000, ms/60000%60, ms/1000%60, ms%1000
		switch kind {
		case KindCollector:
			span := i % 50
			parent := ""
			if span > 0 {
				parent = fmt.Sprintf(`,"parent_span_id":"span-%03d"`, span-1)
			}
			fmt.Fprintf(&b, `{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T%02d:%02d:%02d.%03dZ","agent_id":"@backend-engineer",`+
				`"event_id":"6f1c2a3e-0b4d-4c8e-9a71-%012x","session_id":"pipeline-014","progress":0.4,"message":"Token bucket in place; wiring the 429 response",`+
				`"correlation":{"trace_id":"trace-%06d","span_id":"span-%03d"%s,"root_agent_id":"@pm-agent"}}`+"\n", hour, min, sec, frac, i, i/50, span, parent)
		case KindLedger:
			b.Write(LedgerLine(nil, i, n))
		case KindIdle:
			b.Write(IdleLine(nil, i, n))
		}
	}
	return b.Bytes()
}

// BenchmarkStreamRules measures the cost of the stream rules of the
// collector, ledger and idle families: the same log linted with every rule
// ("stream") and with the stream rules switched off (StreamRules empty,
// "records": per-record validation and document rules only), in the same
// run, on one worker and on all. The ratio stream/records is the relative
// cost of the stream rules.
func BenchmarkStreamRules(b *testing.B) {
	for _, kindName := range []string{KindCollector, KindLedger, KindIdle} {
		data := coherentLog(kindName, streamLines)
		for _, jobs := range []int{1, runtime.NumCPU()} {
			for _, mode := range []string{"records", "stream"} {
				b.Run(fmt.Sprintf("%s/j%d/%s", kindName, jobs, mode), func(b *testing.B) {
					cfg := lint.LintConfig{Jobs: jobs, Out: io.Discard, Render: (&output.JSON{}).AppendRecord,
						Options: lintrecord.Options{Now: time.Date(2026, 2, 14, 1, 30, 0, 0, time.UTC)}}
					if mode == "records" {
						cfg.StreamRules = []string{}
					}
					b.SetBytes(int64(len(data)))
					b.ReportAllocs()
					for b.Loop() {
						st, err := lint.Lint(func(yield func(lint.Input) bool) {
							yield(lint.Input{Path: "bench.jsonl", Reader: bytes.NewReader(data), Kind: kind.Lookup(kindName)})
						}, cfg)
						if err != nil {
							b.Fatal(err)
						}
						if st.Denied != 0 || st.Warnings != 0 {
							b.Fatalf("the coherent log has findings: %+v", st)
						}
					}
					b.ReportMetric(float64(streamLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
				})
			}
		}
	}
}
