package jsonschema_test

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/fast"
)

// collectorRecord has every field of seed 004's schema
// (testdata/agreement/collector/events-2025-12-13.jsonl).
const collectorRecord = `{"version":"1.2.3","event_type":"hook.post_tool_use","timestamp":"2025-12-13T20:10:02.500+01:00","agent_id":"@backend-engineer","event_id":"550e8400-e29b-41d4-a716-446655440000","session_id":"sess-abc123","source":"hook","status":"progress","message":"Grep completed","progress":0.75,"tool":{"tool_name":"Grep","tool_input":{"pattern":"async def"},"tool_result":"success","duration_ms":2500},"hook":{"hook_type":"PostToolUse","raw_payload":{"session":"abc"}},"correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-001","root_agent_id":"@orchestrator"},"metadata":{"custom_key":"value","x":[1,2]}}`

// BenchmarkCollector compares, on the same record in the same run, the JSON
// Schema engine (santhosh-tekuri/jsonschema/v5, decoding included), the
// fast path and jsontext.Value.IsValid (syntax only).
//
//	go test ./lint/jsonschema -run '^$' -bench Collector -benchmem
func BenchmarkCollector(b *testing.B) {
	buf := []byte(collectorRecord)
	b.Run("jsonschema-v5", func(b *testing.B) {
		e := engine(b)
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if vs := e.Validate("collector/event", buf); len(vs) != 0 {
				b.Fatal(vs)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		d := fast.NewDec()
		fn := fast.Validators["collector/event"]
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			d.Reset(buf, 1)
			d.Validate(fn)
			if len(d.Out) != 0 {
				b.Fatal(d.Out)
			}
		}
	})
	b.Run("jsontext-IsValid", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if !jsontext.Value(buf).IsValid() {
				b.Fatal("invalid")
			}
		}
	})
}
