package summarize_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/agentlint/agentlint/lint/summarize"
)

// BenchmarkSummarize reads a 10,000-entry ledger of ten sessions (one in
// five entries a task_result, one in ten an error) and renders every
// summary; bytes/s is ledger throughput.
//
//	go test -run '^$' -bench Summarize -benchmem ./lint/summarize
func BenchmarkSummarize(b *testing.B) {
	var ledger bytes.Buffer
	events := []string{"task_start", "info", "heartbeat", "info", "task_result", "task_start", "info", "heartbeat", "error", "task_result"}
	for i := range 10000 {
		ev := events[i%len(events)]
		fmt.Fprintf(&ledger, `{"ts":"2025-11-16T%02d:%02d:%02d+07:00","agent":"cls","session_id":"2025-11-16_cls_%03d","event":"%s","task_id":"wo-%d","source":"gg_orchestrator","summary":"entry %d of the benchmark ledger","data":{"status":"success","duration_sec":%d,"error":"timeout"}}`+"\n",
			i/3600%24, i/60%60, i%60, 1+i%10, ev, i/5, i, i%300)
	}
	data := ledger.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := summarize.New(summarize.Options{})
		if err := s.Read("bench.jsonl", bytes.NewReader(data)); err != nil || s.Denied() > 0 {
			b.Fatalf("%v, %d denied", err, s.Denied())
		}
		var out bytes.Buffer
		if err := summarize.Write(&out, s.Sessions()); err != nil {
			b.Fatal(err)
		}
	}
}
