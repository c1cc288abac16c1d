package record

import "testing"

// BenchmarkFindingCost: what a finding that is never printed costs. The same
// collector event with a known event type (no finding) and with an event
// type outside seed 004's table (the CL010 warning, near half of a real
// producer's records), validated as `agentlint lint` validates a line, in a
// printed run and in a quiet one (Options.CountOnly). The bar: in a quiet
// run the finding adds at most 10 % to the record's validation.
func BenchmarkFindingCost(b *testing.B) {
	const (
		known   = `{"version":"1.0.0","event_type":"lifecycle.started","timestamp":"2025-12-13T20:45:00.123Z","agent_id":"@backend-engineer","event_id":"550e8400-e29b-41d4-a716-446655440000","correlation":{"trace_id":"t-1","span_id":"s-2","parent_span_id":"s-1"}}`
		unknown = `{"version":"1.0.0","event_type":"activity.retried","timestamp":"2025-12-13T20:45:00.123Z","agent_id":"@backend-engineer","event_id":"550e8400-e29b-41d4-a716-446655440000","correlation":{"trace_id":"t-1","span_id":"s-2","parent_span_id":"s-1"}}`
	)
	for _, mode := range []struct {
		name  string
		count bool
	}{{"printed", false}, {"quiet", true}} {
		for _, c := range []struct{ name, line string }{{"clean", known}, {"finding", unknown}} {
			b.Run(mode.name+"/"+c.name, func(b *testing.B) {
				v := NewValidator(Options{CountOnly: mode.count}, nil)
				raw := []byte(c.line)
				want := 0
				if c.name == "finding" {
					want = 1
				}
				if got := len(v.RecordLine("collector/event", "events-x.jsonl", raw, 1)); got != want {
					b.Fatalf("%d violations, want %d", got, want)
				}
				b.ReportAllocs()
				for b.Loop() {
					v.RecordLine("collector/event", "events-x.jsonl", raw, 1)
				}
			})
		}
	}
}
