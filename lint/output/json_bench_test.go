package output

import (
	"fmt"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// recordCases are record envelopes as `agentlint lint --kind collector/event`
// renders them: an allowed record without findings, one with CL010's
// warning (a reason shared by every record of its event type) and one with
// CL101's (a reason of its own: cl101Reason).
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
			Severity: envelope.SeverityWarning}}
	}},
}

// cl101Reason returns the i-th of 4096 CL101 reasons (each its own, as
// CL101's are) and details.
func cl101Reason(i int) (string, map[string]any) {
	i %= len(cl101Reasons)
	if cl101Reasons[i] == "" {
		trace := fmt.Sprintf("b101a1f1c4cf1a744278a45174%06x", i)
		cl101Reasons[i] = fmt.Sprintf(`parent_span_id "c0e04bc80a%06x" names no span_id of trace_id %q in the 1 collector log of this run (lint every log of the run together: per-agent and daily logs share traces)`, i, trace)
		cl101Extras[i] = map[string]any{"trace_id": trace}
	}
	return cl101Reasons[i], cl101Extras[i]
}

var (
	cl101Reasons [4096]string
	cl101Extras  [4096]map[string]any
)

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
			for i := range cl101Reasons {
				cl101Reason(i)
			}
			for line := 1; b.Loop(); line++ {
				if c.name == "CL101" {
					vs[0].Reason, vs[0].Extra = cl101Reason(line)
				}
				if len(vs) > 0 {
					vs[0].Line = line // a finding on its record's line, as CL010's and CL101's are
				}
				dst = p.AppendRecordVerdict(dst[:0], "/tmp/w/collector-event-1000000.jsonl", "collector/event", "collector event valid", line, vs)
			}
			b.SetBytes(int64(len(dst)))
		})
	}
}
