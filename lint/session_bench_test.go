package lint_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkSessionAssignment: the cost of one operator/assignment packet
// (testdata/demo/packets/t12-assignment.json, compacted to one line)
// through a Session, as `validate --stream --kind operator/assignment`.
func BenchmarkSessionAssignment(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "demo", "packets", "t12-assignment.json"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		b.Fatal(err)
	}
	line := append(buf.Bytes(), '\n')
	s, err := lint.NewSession("operator/assignment", lint.SessionConfig{})
	if err != nil {
		b.Fatal(err)
	}
	if e := s.Record(line); !e.Allow {
		b.Fatalf("the packet is denied: %s", e.Reason)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Record(line)
	}
}
