package output

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

func encodingJSON(t *testing.T, e envelope.Envelope) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestAppendMatchesEncodingJSON: the hand-written encoder prints exactly
// what encoding/json prints (agentlint's JSON output predates it), but
// for DEL and the C1 controls, which it escapes as \u007f-\u009f (the same
// strings to a JSON reader; no control character reaches a terminal).
func TestAppendMatchesEncodingJSON(t *testing.T) {
	tricky := []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f\x7f", "c1 \u0085 \u009b end",
		"<html> & 'single'", "é 日本 🎉", "\u2028 and \u2029", "bad utf8 \xff\xfe end", "\xed\xa0\x80 surrogate",
		strings.Repeat("long ", 50),
	}
	r := rand.New(rand.NewPCG(7, 8))
	pick := func() string { return tricky[r.IntN(len(tricky))] }
	var envs []envelope.Envelope
	for i := 0; i < 300; i++ {
		var vs []envelope.Violation
		for j := r.IntN(4); j > 0; j-- {
			v := envelope.Violation{Code: envelope.Codes[r.IntN(len(envelope.Codes))], Rule: "AL00" + pick(), Pointer: "/" + pick(),
				Line: r.IntN(3), Column: r.IntN(3), Reason: pick(), Severity: envelope.SeverityWarning}
			if r.IntN(2) == 0 {
				v.Extra = map[string]any{"field": pick(), "index": r.IntN(5) - 2, "flag": r.IntN(2) == 0, "none": nil,
					"list": []any{pick(), 3, map[string]any{"b": 1, "a": pick()}}, "strs": []string{pick(), pick()},
					"f": float64(r.IntN(100)) / 8, "big": 1e22, "tiny": 1e-9, "int64": int64(-5), pick(): pick()}
			}
			vs = append(vs, v)
		}
		d := map[string]any{"kind": pick(), "file": pick(), "line": r.IntN(100)}
		if r.IntN(5) == 0 {
			d = nil
		}
		e := envelope.Verdict(vs, pick(), d)
		if r.IntN(7) == 0 {
			e.Details = map[string]any{"by_code": map[string]int{pick(): 2, "Z": 1}, "by_rule": map[string]int{}, "files": 3, "nilmap": map[string]int(nil),
				"nilviolations": []envelope.Violation(nil), "code": envelope.OK}
		}
		envs = append(envs, e)
	}
	var p JSON
	for i, e := range envs {
		got := string(p.AppendRecord(nil, e))
		if want := string(escapeJSONControls([]byte(encodingJSON(t, e)))); got != want {
			t.Fatalf("envelope %d:\n got  %s\n want %s", i, got, want)
		}
	}
}

func TestTextAppendMatchesRecord(t *testing.T) {
	e := envelope.Verdict([]envelope.Violation{
		{Code: envelope.SchemaInvalid, Rule: "AL003", Pointer: "/a", Line: 2, Column: 5, Reason: "bad", Severity: envelope.SeverityError},
		{Code: envelope.SchemaInvalid, Rule: "AL007", Line: 2, Column: 9, Reason: "CRLF", Severity: envelope.SeverityWarning},
	}, "ok", map[string]any{"file": "w.jsonl"})
	var b bytes.Buffer
	p := &Text{W: &b}
	if err := p.Record(e); err != nil {
		t.Fatal(err)
	}
	want := "w.jsonl:2:5: SCHEMA_INVALID AL003: bad [/a]\nw.jsonl:2:9: SCHEMA_INVALID (warning) AL007: CRLF\n"
	if b.String() != want || string(p.AppendRecord(nil, e)) != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	denied := envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput, Reason: "cannot read x", Details: map[string]any{"file": "x"}}
	if got := string(p.AppendRecord(nil, denied)); got != "x: MISSING_REQUIRED_INPUT cannot read x\n" {
		t.Errorf("got %q", got)
	}
}
