package output

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// TestMarkdownSummary: the job summary lists the first MarkdownFindings
// findings and says how many more there are; table metacharacters in a
// reason are escaped so that each finding stays one row of five cells;
// without the GitHub environment locations are plain text.
func TestMarkdownSummary(t *testing.T) {
	var b bytes.Buffer
	p := &Markdown{W: &b, Run: &RunInfo{Command: "lint", Root: "/repo"}}
	for i := 1; i <= MarkdownFindings+7; i++ {
		v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "OP005", Line: i, Column: 1, Pointer: "/a|b",
			Reason: fmt.Sprintf("bad | value <script> `x`\nnext %d", i), Severity: envelope.SeverityError}
		e := envelope.Verdict([]envelope.Violation{v}, "", map[string]any{"file": "logs/a|b.jsonl"})
		if err := p.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Summary(envelope.Envelope{Allow: false, Code: envelope.SchemaInvalid, Reason: "57 records denied",
		Details: map[string]any{"files": 1, "records": 60, "denied": 57, "warnings": 0}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "## agentlint lint: ❌ 57 records denied\n\nprimary code: SCHEMA_INVALID\n") {
		t.Fatalf("heading:\n%s", out)
	}
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| logs") {
			rows++
			if cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); cells != 6 {
				t.Fatalf("row with %d cell separators: %s", cells, l)
			}
			if strings.Contains(l, "<script>") || strings.Contains(l, "](") {
				t.Fatalf("unescaped or linked row: %s", l)
			}
		}
	}
	if rows != MarkdownFindings || !strings.Contains(out, "… and 7 more") {
		t.Fatalf("%d rows:\n%s", rows, out)
	}
	if !strings.Contains(out, "| OP005 | 57 | 0 |") {
		t.Fatalf("counts by rule:\n%s", out)
	}
}
