package lint_test

import (
	"fmt"
	"testing"

	"github.com/agentlint/agentlint/lint"
)

// BenchmarkSessionRecord: the cost of one collector event through a
// Session (validation and every cross-record rule), distinct ids.
func BenchmarkSessionRecord(b *testing.B) {
	lines := make([][]byte, 4096)
	for i := range lines {
		lines[i] = []byte(fmt.Sprintf(`{"version":"1.0.0","event_id":"%08x-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"activity.progress",`+
			`"timestamp":"2025-12-13T00:01:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"t-1","span_id":"s-%d"}}`+"\n", i, i))
	}
	s, err := lint.NewSession("collector/event", lint.SessionConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%len(lines) == 0 {
			b.StopTimer()
			s.Close()
			s, _ = lint.NewSession("collector/event", lint.SessionConfig{})
			b.StartTimer()
		}
		s.Record(lines[i%len(lines)])
	}
}
