package output

import (
	"bytes"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// TestGitHubAnnotations: one workflow command per violation, warnings as
// ::warning, positions as properties, and the characters GitHub's syntax
// reserves escaped (a reason with a newline or a file name with a comma
// stays one annotation).
func TestGitHubAnnotations(t *testing.T) {
	e := envelope.Envelope{Allow: false, Code: envelope.SchemaInvalid, Details: map[string]any{
		"file": "logs/a,b:c.jsonl",
		"violations": []envelope.Violation{
			{Code: envelope.SchemaInvalid, Rule: "AL003", Line: 3, Column: 7, Pointer: "/x", Reason: "50% wrong\nsecond line", Severity: envelope.SeverityError},
			{Code: envelope.LedgerInconsistent, Rule: "CL102", Line: 4, Column: 1, Reason: "earlier", Severity: envelope.SeverityWarning},
		},
	}}
	var out bytes.Buffer
	if err := (&GitHub{W: &out}).Record(e); err != nil {
		t.Fatal(err)
	}
	want := "::error file=logs/a%2Cb%3Ac.jsonl,line=3,col=7,title=AL003 SCHEMA_INVALID::50%25 wrong%0Asecond line [/x]\n" +
		"::warning file=logs/a%2Cb%3Ac.jsonl,line=4,col=1,title=CL102 LEDGER_INCONSISTENT::earlier\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	ok := envelope.Envelope{Allow: true, Code: envelope.OK, Reason: "valid", Details: map[string]any{"file": "-"}}
	if err := (&GitHub{W: &out}).Record(ok); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "::notice title=agentlint OK::valid\n" {
		t.Errorf("allowing envelope: %q", got)
	}
}
