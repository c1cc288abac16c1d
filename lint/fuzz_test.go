package lint

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// Fuzz targets of the readers of untrusted bytes in package lint. Each checks invariants against a naive
// reference, not only the absence of a panic. Seed corpora are in
// testdata/fuzz/FuzzX/ (run by `go test`); `make fuzz` runs each target.

var fuzzNow = time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)

// naiveLine is one line of a naive JSON Lines split: its text without the
// LF, its number, and whether an LF ended it.
type naiveLine struct {
	text       []byte
	n          int
	terminated bool
}

// naiveSplit cuts data at every LF; a final line without LF is a line, an
// empty remainder after the last LF is not.
func naiveSplit(data []byte) []naiveLine {
	var out []naiveLine
	parts := bytes.Split(data, []byte{'\n'})
	for i, p := range parts {
		last := i == len(parts)-1
		if last && len(p) == 0 {
			break
		}
		out = append(out, naiveLine{p, i + 1, !last})
	}
	return out
}

// naiveLint is what Lint must print for one JSON Lines file of kind, with no
// stream rule: every line checked on its own (render format of
// pipeline_test.go), and the records and blank lines counted.
func naiveLint(kind, file string, data []byte, maxLine int, strict bool) (string, int, int) {
	v := record.NewValidator(record.Options{Now: fuzzNow, Strict: strict}, nil)
	var out []byte
	records, blank := 0, 0
	for _, l := range naiveSplit(data) {
		text := l.text
		var pre []envelope.Violation
		emit := func(vs []envelope.Violation) {
			if len(vs) > 0 {
				env := envelope.Verdict(slices.Clone(vs), "ok", map[string]any{"file": file, "line": l.n})
				out = render(out, env)
			}
		}
		if len(text) > maxLine && !(len(text) == maxLine+1 && l.terminated && text[len(text)-1] == '\r') {
			emit(v.Fill([]envelope.Violation{{Rule: "AL009", Line: l.n, Column: 1}}))
			continue
		}
		if l.n == 1 && bytes.HasPrefix(text, []byte("\ufeff")) {
			text = text[3:]
			pre = append(pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1})
		}
		if l.terminated && len(text) > 0 && text[len(text)-1] == '\r' {
			text = text[:len(text)-1]
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: l.n, Column: len(text) + 1})
		}
		if len(bytes.TrimSpace(text)) == 0 {
			blank++
			if strict {
				pre = append(pre, envelope.Violation{Rule: "AL008", Line: l.n, Column: 1})
			}
			emit(v.Fill(pre))
			continue
		}
		records++
		vs, _ := v.Record(kind, file, text, l.n)
		emit(append(slices.Clone(vs), v.Fill(pre)...))
	}
	return string(out), records, blank
}

// FuzzChunkReader: the pipeline's chunk reader (reader.go, pipeline.go) with
// small chunks and a small line limit (LintConfig.ChunkSize, MaxLine) gives
// exactly the envelopes and counts of a naive line split: line numbers, a
// byte-order mark on line 1, CRLF, blank lines, lines over the limit (a
// CRLF line one byte over it is not), a final line without a newline.
func FuzzChunkReader(f *testing.F) {
	good := worklogLine(0, 10)
	for _, s := range []string{
		"", "\n", good + "\n" + good, "\ufeff" + good + "\r\n\n  \n" + good + "\r", good + "\n{\"timestamp\":",
		strings.Repeat("x", 40) + "\r\n" + good, "\r\n\r\n", "\ufeff\n\ufeff",
	} {
		f.Add([]byte(s), uint8(10), uint8(30), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk, limit uint8, strict bool) {
		maxLine := 1 + int(limit)
		cs := 1 + int(chunk)
		want, records, blank := naiveLint("operator/worklog", "w.jsonl", data, maxLine, strict)
		var out bytes.Buffer
		st, err := lintWithTimeout(t, func(yield func(Input) bool) {
			yield(Input{Path: "w.jsonl", Reader: bytes.NewReader(data), Kind: kind.Lookup("operator/worklog")})
		}, LintConfig{Options: record.Options{Now: fuzzNow, Strict: strict}, Jobs: 2, ChunkSize: cs, MaxLine: maxLine,
			StreamRules: []string{}, Render: render, Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("chunk %d, limit %d: output\n%s\nnaive split:\n%s", cs, maxLine, out.String(), want)
		}
		if st.Records != records || st.BlankLines != blank {
			t.Fatalf("chunk %d, limit %d: records %d blank %d, naive split %d %d", cs, maxLine, st.Records, st.BlankLines, records, blank)
		}
	})
}

// FuzzLineReader: LineReader (the sequential reader of replay and
// summarize) returns the lines of a naive split, numbered from 1, without
// LF, with CRLF removed and reported only when an LF ends the line.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\nb", "a\r\nb\r", "\r\n\r\n", "a\n\n", strings.Repeat("y", 300<<10) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := record.NewLineReader(bytes.NewReader(data))
		for _, l := range naiveSplit(data) {
			text, n, crlf, tooLong, err := lr.Next()
			if err != nil || tooLong {
				t.Fatalf("line %d: err %v, tooLong %v", l.n, err, tooLong)
			}
			want, wantCRLF := l.text, false
			if l.terminated && bytes.HasSuffix(want, []byte{'\r'}) {
				want, wantCRLF = want[:len(want)-1], true
			}
			if n != l.n || crlf != wantCRLF || !bytes.Equal(text, want) {
				t.Fatalf("got line %d %q crlf=%v, want line %d %q crlf=%v", n, text, crlf, l.n, want, wantCRLF)
			}
		}
		if _, _, _, _, err := lr.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %v, want io.EOF", err)
		}
	})
}

// checkViolations holds the invariants of any validation result: every
// rule registered with its code and severity, sorted, positions inside the
// input, and a verdict that denies exactly when an error is present.
func checkViolations(t *testing.T, what string, raw []byte, vs []envelope.Violation) {
	t.Helper()
	lines := bytes.Count(raw, []byte{'\n'}) + 1
	for _, v := range vs {
		r := rules.Lookup(v.Rule)
		if r == nil || v.Code != r.Code || !envelope.Valid(v.Code) {
			t.Fatalf("%s: violation of rule %q with code %q (registry: %+v)", what, v.Rule, v.Code, r)
		}
		if v.Severity != envelope.SeverityError && v.Severity != envelope.SeverityWarning {
			t.Fatalf("%s: severity %q", what, v.Severity)
		}
		if v.Line < 0 || v.Line > lines || v.Column < 0 {
			t.Fatalf("%s: %s at %d:%d, input has %d lines", what, v.Rule, v.Line, v.Column, lines)
		}
		if strings.TrimSpace(v.Reason) == "" || !utf8.ValidString(v.Reason) {
			t.Fatalf("%s: %s has reason %q", what, v.Rule, v.Reason)
		}
	}
	sorted := slices.Clone(vs)
	envelope.Sort(sorted)
	if !slices.EqualFunc(vs, sorted, func(a, b envelope.Violation) bool {
		return a.Rule == b.Rule && a.Line == b.Line && a.Column == b.Column && a.Pointer == b.Pointer
	}) {
		t.Fatalf("%s: violations not sorted", what)
	}
	env := envelope.Verdict(slices.Clone(vs), "ok", nil)
	if env.Allow == envelope.HasErrors(vs) || env.Allow != (env.Code == envelope.OK) {
		t.Fatalf("%s: verdict %+v for %+v", what, env, vs)
	}
}

// FuzzRecord: any bytes, as a record and as a document of every kind, give
// violations that hold checkViolations' invariants; never a panic (a
// timeout of the fuzzer is a hang). The cross-engine verdicts are
// FuzzAgreement's (lint/cueeval) and FuzzCollectorSchema's
// (lint/jsonschema).
func FuzzRecord(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"a":2}`, "\ufeff{}", `{"packet_type":"assignment"}`, worklogLine(0, 3),
		`{"ts":"2025-11-16T02:10:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"info","task_id":"t","source":"s","summary":"x","data":{}}`,
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", `{"version":"1.0.0","event_type":"x","agent_id":1e999}`} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, strict bool) {
		v := record.NewValidator(record.Options{Now: fuzzNow, Strict: strict}, nil)
		for _, k := range kind.All {
			if k.Format == kind.FormatJSONL || k.Format == kind.FormatJSON {
				vs, doc := v.Record(k.Name, "x", raw, 1)
				checkViolations(t, "record "+k.Name, raw, vs)
				if doc != nil && envelope.HasErrors(vs) && !slices.ContainsFunc(vs, func(x envelope.Violation) bool { return rules.Lookup(x.Rule).Check != nil }) {
					t.Fatalf("%s: a document decoded although the schema denied it", k.Name)
				}
			}
			vs, _ := v.Document(k.Name, "x", raw)
			checkViolations(t, "document "+k.Name, raw, vs)
		}
	})
}

// FuzzTemplate: a VerMAS TOML template (seed 000 "Template Schema") is
// denied with VM030 exactly when the TOML does not parse; the violations
// hold checkViolations' invariants and point into the .toml.
func FuzzTemplate(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", "vermas", ".work", "templates", "worker-execute.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, s := range []string{"", "a = 1", "[template]\nname = \"x\"\nversion = 1.0\n", "[[steps]]\nid = \"a\"\nneeds = [\"a\"]\n", "x = nan\ny = 1979-05-27T07:32:00Z\n", "= ="} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := record.NewValidator(record.Options{Now: fuzzNow}, nil)
		vs, doc := v.Document("vermas/template", "t.toml", raw)
		checkViolations(t, "template", raw, vs)
		body := bytes.TrimPrefix(raw, []byte("\ufeff"))
		if len(bytes.TrimSpace(body)) == 0 {
			return // AL005
		}
		js := record.JSONForm(kind.Lookup("vermas/template"), body)
		parses := js != nil
		hasSyntax := slices.ContainsFunc(vs, func(x envelope.Violation) bool { return x.Rule == rules.RuleVermasTemplateSyntax })
		if parses == hasSyntax {
			t.Fatalf("TOML parses: %v, VM030 reported: %v (%+v)", parses, hasSyntax, vs)
		}
		if parses && !jsonValid(js) {
			t.Fatalf("converted template is not JSON: %s", js)
		}
		if doc != nil && envelope.HasErrors(vs) {
			t.Fatal("a denied template has a document")
		}
	})
}

func jsonValid(b []byte) bool { return jsontext.Value(b).IsValid() }

// FuzzAssignment: a VerMAS assignment file (seed 000 "Assignment Schema":
// one line {type}:{reference_id}) is a VM020 format error exactly when,
// after a byte-order mark and one final LF or CRLF, it is not one UTF-8
// line without CR holding a ':'; otherwise its type and reference are the
// text around the first ':'.
func FuzzAssignment(f *testing.F) {
	for _, s := range []string{"work_order:wo-abc123", "mail:msg-xyz789\n", "process:proc-verify-def\r\n", "x", "a:b\nc:d", "a:\rb", ":", "\ufeffmail:m", "mail:msg-1:2", "\xff:x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := record.NewValidator(record.Options{Now: fuzzNow}, nil)
		vs, doc := v.Document("vermas/assignment", ".assignment-x", raw)
		checkViolations(t, "assignment", raw, vs)
		body := bytes.TrimPrefix(raw, []byte("\ufeff"))
		if len(bytes.TrimSpace(body)) == 0 {
			return // AL005
		}
		text := bytes.TrimSuffix(bytes.TrimSuffix(body, []byte("\n")), []byte("\r"))
		if !bytes.HasSuffix(body, []byte("\n")) {
			text = body
		}
		wellFormed := utf8.Valid(text) && !bytes.ContainsAny(text, "\r\n") && bytes.IndexByte(text, ':') >= 0
		hasFormat := slices.ContainsFunc(vs, func(x envelope.Violation) bool { return x.Rule == rules.RuleVermasAssignmentFormat })
		if wellFormed == hasFormat {
			t.Fatalf("%q: well formed %v, VM020 reported %v (%+v)", raw, wellFormed, hasFormat, vs)
		}
		if doc != nil {
			typ, ref, _ := strings.Cut(string(text), ":")
			m, _ := doc.Value.(map[string]any)
			if m["type"] != typ || m["reference_id"] != ref {
				t.Fatalf("%q: decoded %v, want type %q reference %q", raw, doc.Value, typ, ref)
			}
		}
	})
}

// FuzzConfig: any .agentlint.toml loads into a config whose kinds and rules
// exist and whose severities are off, warning or error, or fails with an
// error naming the file; a loaded config applies and matches paths without
// a panic.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{"", "strict = true\nexclude = [\"vendor/**\"]\n[kinds]\n\"packets/*.json\" = \"operator/assignment\"\n[rules.OP004]\nseverity = \"off\"\n",
		"[rules.NOPE]\nseverity = \"off\"", "[kinds]\n\"[\" = \"operator/assignment\"", "exclude = [\"{a,\"]", "unknown = 1", "[rules.OP004]\nseverity = \"loud\""} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, raw []byte) {
		path := filepath.Join(dir, ConfigName)
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path)
		if err != nil {
			if c != nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v does not name %s (config %+v)", err, path, c)
			}
			return
		}
		for g, k := range c.Kinds {
			if kind.Lookup(k) == nil {
				t.Fatalf("[kinds] %q = unknown kind %q accepted", g, k)
			}
		}
		for id, rc := range c.Rules {
			if rules.Lookup(id) == nil || (rc.Severity != "off" && rc.Severity != "warning" && rc.Severity != "error") {
				t.Fatalf("[rules.%s] %+v accepted", id, rc)
			}
		}
		var o record.Options
		c.Apply(&o)
		if o.Strict != c.Strict || len(o.Severity) != len(c.Rules) {
			t.Fatalf("Apply: %+v from %+v", o, c)
		}
		for _, p := range []string{filepath.Join(dir, "packets", "a.json"), filepath.Join(dir, "vendor", "x", "y.jsonl"), "-"} {
			_ = c.KindFor(p)
			_ = c.Excluded(p)
		}
	})
}
