package lint

import (
	"fmt"
	"maps"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// TestPartialStatsMerge: a chunk's counts kept by code and rule
// (addPartial, countFound of a partial Stats), beyond the short list's room too, add up in
// Merge to what Add counts in the maps.
func TestPartialStatsMerge(t *testing.T) {
	var verdicts [][]envelope.Violation
	for i := 0; i < 200; i++ {
		var vs []envelope.Violation
		for j := 0; j <= i%3; j++ {
			sev := envelope.SeverityWarning
			if (i+j)%5 == 0 {
				sev = envelope.SeverityError
			}
			code := envelope.ScopeViolation
			if j == 1 {
				code = envelope.LedgerInconsistent
			}
			vs = append(vs, envelope.Violation{Rule: fmt.Sprintf("R%03d", (i*7+j)%(2*foundMax+5)), Code: code, Severity: sev})
		}
		verdicts = append(verdicts, vs)
	}
	var want, part, run Stats
	for _, vs := range verdicts {
		want.Add(vs)
		part.addPartial(vs)
	}
	run.Merge(&part)
	if !maps.Equal(run.ByCode, want.ByCode) || !maps.Equal(run.ByRule, want.ByRule) ||
		run.Denied != want.Denied || run.Warnings != want.Warnings || run.Worst != want.Worst {
		t.Fatalf("merged %+v\nwant %+v", run, want)
	}
	// A batch of stream findings (countFound, partial), merged into a run that
	// counted before.
	var batch Stats
	for _, vs := range verdicts {
		countFound(&want, vs, false, false)
		countFound(&batch, vs, false, true)
	}
	run.Merge(&batch)
	if !maps.Equal(run.ByCode, want.ByCode) || !maps.Equal(run.ByRule, want.ByRule) ||
		run.Denied != want.Denied || run.Warnings != want.Warnings || run.Worst != want.Worst {
		t.Fatalf("merged %+v\nwant %+v", run, want)
	}
	part.reset()
	if len(part.found) != 0 || len(part.ByCode) != 0 {
		t.Fatalf("reset left %v %v", part.found, part.ByCode)
	}
}
