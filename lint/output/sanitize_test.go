package output

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentlint/agentlint/lint/envelope"
)

// controlAt returns the offset of the first control character of out that
// is not the format's own line feed or tab (a C0 control, DEL, a C1
// control, or a byte that is not UTF-8), or -1.
func controlAt(out []byte) int {
	for i := 0; i < len(out); {
		r, w := utf8.DecodeRune(out[i:])
		if r != '\n' && r != '\t' && isControl(r, w) {
			return i
		}
		i += w
	}
	return -1
}

// renderAll prints a record envelope (file and value in every string it
// holds) and a summary in every format and returns each output.
func renderAll(t *testing.T, file, value string) map[string][]byte {
	t.Helper()
	v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "AL003" + value, Pointer: "/" + value, Line: 2, Column: 3,
		Reason: "bad " + value, Severity: envelope.SeverityError,
		Extra: map[string]any{"file": file, "value": value, "list": []any{value}, value: 1}}
	w := v
	w.Severity = envelope.SeverityWarning
	rec := envelope.Verdict([]envelope.Violation{v, w}, "ok", map[string]any{"file": file, "kind": "operator/worklog", "line": 2, value: value})
	doc := envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput, Reason: file + ": cannot read " + value, Details: map[string]any{"file": file}}
	sum := envelope.Envelope{Allow: false, Code: envelope.SchemaInvalid, Reason: "1 record denied " + value,
		Details: map[string]any{"files": 1, "records": 1, "denied": 1, "by_rule": map[string]int{"AL003" + value: 1}}}
	outs := map[string][]byte{}
	for _, format := range Formats {
		var b bytes.Buffer
		p, err := New(format, &b, false, &RunInfo{Command: "lint", Version: "1.0.0", Root: "/work"})
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := p.(FileObserver); ok {
			o.File(FileInfo{Path: file, Kind: "operator/worklog", Document: true, Records: 1})
		}
		for _, e := range []envelope.Envelope{rec, doc} {
			if err := p.Record(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Summary(sum); err != nil {
			t.Fatal(err)
		}
		if c, ok := p.(Closer); ok {
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		outs[format] = b.Bytes()
	}
	return outs
}

// TestNoControlCharacters: an ESC, BEL, CR, DEL, C1 CSI or stray byte in a
// file name or a value reaches no format's output raw; the text-like
// formats show it as visible escapes.
func TestNoControlCharacters(t *testing.T) {
	file, value := "logs/\x1b[31mred\a.jsonl", "x\r\n\x7f\u009b2J\xff\x00"
	outs := renderAll(t, file, value)
	for format, out := range outs {
		if i := controlAt(out); i >= 0 {
			t.Errorf("%s: control character at %d: %q", format, i, out[max(0, i-20):min(len(out), i+20)])
		}
	}
	if !bytes.Contains(outs["text"], []byte(`logs/\x1b[31mred\x07.jsonl:2:3: SCHEMA_INVALID AL003x\x0d\x0a\x7f\u009b2J\xff\x00: bad x\x0d\x0a`)) {
		t.Errorf("text:\n%s", outs["text"])
	}
	if !bytes.Contains(outs["github"], []byte(`::error file=logs/\x1b[31mred\x07.jsonl,line=2,col=3,title=AL003x%0D%0A\x7f\u009b2J\xff\x00 SCHEMA_INVALID::bad x%0D%0A`)) {
		t.Errorf("github:\n%s", outs["github"])
	}
	if !bytes.Contains(outs["json"], []byte(`"file":"logs/\u001b[31mred\u0007.jsonl"`)) || !bytes.Contains(outs["json"], []byte(`\u007f\u009b2J\ufffd\u0000`)) {
		t.Errorf("json:\n%s", outs["json"])
	}
	if !strings.Contains(string(outs["sarif"]), `\u007f\u009b2J`) {
		t.Errorf("sarif:\n%s", outs["sarif"])
	}
}

// FuzzOutputSanitize: whatever bytes a file name and a value hold, no
// format's output holds a control character but its own line feeds and
// tabs, nor a byte that is not UTF-8.
func FuzzOutputSanitize(f *testing.F) {
	f.Add("a.jsonl", "plain")
	f.Add("logs/\x1b]0;title\a.jsonl", "\x1b[2J\x9b\u009b\x7f\r\n\t%:,")
	f.Add("\xff\xfe", "\u2028\u0085")
	f.Fuzz(func(t *testing.T, file, value string) {
		for format, out := range renderAll(t, file, value) {
			if i := controlAt(out); i >= 0 {
				t.Fatalf("%s: control character at %d: %q", format, i, out[max(0, i-20):min(len(out), i+20)])
			}
		}
	})
}
