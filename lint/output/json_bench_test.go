package output

import (
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// recordCases are record envelopes as `agentlint lint --kind collector/event`
// renders them: an allowed record without findings, one with CL010's
// warning (a reason shared by every record of its event type) and one with
// CL101's (a reason of its own).
var recordCases = []struct {
	name string
	vs   func() []envelope.Violation
}{
	{"plain", func() []envelope.Violation { return nil }},
	{"CL010", func() []envelope.Violation {
		return []envelope.Violation{{Code: envelope.SchemaInvalid, Rule: "CL010", Pointer: "/event_type", Line: 6, Column: 33,
			Reason:   cl010Reason,
			Severity: envelope.SeverityWarning, Extra: cl010Extra}}
	}},
	{"CL101", func() []envelope.Violation {
		return []envelope.Violation{{Code: envelope.LedgerInconsistent, Rule: "CL101", Pointer: "/correlation/parent_span_id", Line: 1, Column: 634,
			Reason:   `parent_span_id "c0e04bc80abb8631" names no span_id of trace_id "b101a1f1c4cf1a744278a451742fdde5" in the 1 collector log of this run (lint every log of the run together: per-agent and daily logs share traces)`,
			Severity: envelope.SeverityWarning, Extra: map[string]any{"trace_id": "b101a1f1c4cf1a744278a451742fdde5"}}}
	}},
}

var (
	cl010Reason = `unknown event type "decision.escalated" in namespace "decision" (seed 004 lists 26 event types); a project declares its own in .agentlint.toml: [collector] event_types = [...] or namespaces = [...]`
	cl010Extra  = map[string]any{"namespace": "decision"}
)

func BenchmarkAppendRecordVerdict(b *testing.B) {
	for _, c := range recordCases {
		b.Run(c.name, func(b *testing.B) {
			var p JSON
			vs := c.vs()
			var dst []byte
			for line := 1; b.Loop(); line++ {
				dst = p.AppendRecordVerdict(dst[:0], "/tmp/w/collector-event-1000000.jsonl", "collector/event", "collector event valid", line, vs)
			}
			b.SetBytes(int64(len(dst)))
		})
	}
}
