package output

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

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

// TestAppendStringPlainRuns: appendString's eight-byte runs of plain text
// escape exactly what the byte-at-a-time loop escapes: every byte value at
// every position of strings of every length up to 40 (sixteen-byte runs,
// an eight-byte word, the last word overlapping, short strings as two
// overlapping halves).
func TestAppendStringPlainRuns(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				buf := []byte(strings.Repeat("a", n))
				buf[pos] = byte(c)
				s := string(buf)
				if got, want := string(appendString(nil, s)), quoteRef(t, s); got != want {
					t.Fatalf("%q: got %s, want %s", s, got, want)
				}
			}
		}
	}
}

// TestAppendStringPairs: two bytes that need an escape, or parts of a
// multi-byte character, anywhere in strings of up to 20 bytes: the byte
// after the first flagged one may be flagged only through a borrow or a
// carry (escMask), and appendString must still escape exactly as
// encoding/json does.
func TestAppendStringPairs(t *testing.T) {
	special := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '\\', ']', 0x7e, 0x7f, 0x80, 0x9f, 0xa0, 0xc2, 0xc3, 0xe2, 0xa8, 0xff}
	for n := 2; n <= 20; n++ {
		for p1 := 0; p1 < n; p1++ {
			for p2 := p1 + 1; p2 < n; p2++ {
				for _, c1 := range special {
					for _, c2 := range special {
						buf := []byte(strings.Repeat("a", n))
						buf[p1], buf[p2] = c1, c2
						s := string(buf)
						if got, want := string(appendString(nil, s)), quoteRef(t, s); got != want {
							t.Fatalf("%q: got %s, want %s", s, got, want)
						}
					}
				}
			}
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	s := `parent_span_id "555b3ce7f8085272" names no span_id of trace_id "60fd0536d8e7947af329e77d3734a237" in the 1 collector log of this run (lint every log of the run together: per-agent and daily logs share traces)`
	b.SetBytes(int64(len(s)))
	var dst []byte
	for b.Loop() {
		dst = appendString(dst[:0], s)
	}
}

// TestAppendRecordVerdictMatchesEnvelope: AppendRecordVerdict writes what
// AppendRecord writes of the envelope envelope.Verdict makes, for records
// and documents (line 0), allowed and denied, first violations with and
// without a line, and texts that need escapes.
func TestAppendRecordVerdictMatchesEnvelope(t *testing.T) {
	texts := []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline", "\x00\x1f\x7f \u0085", "é 日本", "bad \xff utf8", "/a/b~1c"}
	sevs := []envelope.Severity{envelope.SeverityError, envelope.SeverityWarning}
	r := rand.New(rand.NewPCG(3, 4))
	pick := func() string { return texts[r.IntN(len(texts))] }
	var p JSON
	var lastFile, lastKind, lastOK string
	for i := 0; i < 2000; i++ {
		var vs []envelope.Violation
		for j := r.IntN(4); j >= 0; j-- {
			v := envelope.Violation{Code: envelope.Codes[r.IntN(len(envelope.Codes))], Rule: "CL0" + strconv.Itoa(r.IntN(20)), Pointer: pick(),
				Line: r.IntN(3), Column: r.IntN(40), Reason: pick(), Severity: sevs[r.IntN(2)]}
			switch r.IntN(3) {
			case 0:
				v.Extra = map[string]any{"namespace": pick()}
			case 1:
				v.Extra = map[string]any{"b": r.IntN(9), "a": pick(), "c": []string{pick()}}
			}
			vs = append(vs, v)
		}
		file, kind, ok, line := pick(), pick(), pick(), r.IntN(3)
		if i > 0 && r.IntN(2) == 0 { // the file of the last case (AppendRecordVerdict keeps its beginning)
			file, kind, ok = lastFile, lastKind, lastOK
		}
		lastFile, lastKind, lastOK = file, kind, ok
		other := slices.Clone(vs)
		d := map[string]any{"kind": kind, "file": file}
		if line > 0 {
			d["line"] = line
		}
		want := string(p.AppendRecord(nil, envelope.Verdict(other, ok, d)))
		if got := string(p.AppendRecordVerdict(nil, file, kind, ok, line, vs)); got != want {
			t.Fatalf("case %d:\n got  %s\n want %s", i, got, want)
		}
		if !slices.EqualFunc(vs, other, func(a, b envelope.Violation) bool {
			return a.Rule == b.Rule && a.Line == b.Line && a.Reason == b.Reason
		}) {
			t.Fatalf("case %d: violations not sorted as Verdict sorts them", i)
		}
	}
}

// TestAppendRecordVerdictKept: records of one finding whose reason the
// memo keeps with the end of the envelope (findingMemo.record) read as
// AppendRecord writes their envelope: files and kinds in turn (paths that
// need escapes, invalid UTF-8), findings on their record's line or not,
// with and without a column, other codes, rules, pointers, severities and
// details with the same reason, the same reason text at another address,
// and a reason whose bytes change in place (a buffer used again).
func TestAppendRecordVerdictKept(t *testing.T) {
	long := func(s string) string {
		return s + ` "decision.escalated" in namespace "decision" (seed 004 lists 26 event types); a project declares its own`
	}
	reasons := []string{long("unknown event type"), long("unknown event type é"), long("bad \xff byte"), long("tab\there")}
	buf := []byte(long("reused buffer"))
	files := []string{"/tmp/w/collector-event-1000000.jsonl", `C:\logs\a "b".jsonl`, "bad\xffname.jsonl", "-"}
	kinds := []string{"collector/event", "vermas/event"}
	details := []map[string]any{nil, {"namespace": "decision"}, {"namespace": "system"}, {"trace_id": "decision"},
		{"namespace": 7}, {"namespace": "decision", "other": "x"}}
	r := rand.New(rand.NewPCG(9, 10))
	var p JSON
	for i := range 20000 {
		line := 1 + r.IntN(2000000)
		v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "CL010", Pointer: "/event_type", Line: line, Column: 33,
			Reason: reasons[r.IntN(len(reasons))], Severity: envelope.SeverityWarning, Extra: details[1]}
		switch r.IntN(12) {
		case 0:
			v.Line = r.IntN(3)
		case 1:
			v.Column = r.IntN(2)
		case 2:
			v.Code, v.Rule, v.Pointer = envelope.LedgerInconsistent, "CL101", "/correlation/parent_span_id"
		case 3:
			v.Pointer = "/event_typ\"e"
		case 4:
			v.Severity = envelope.Severity([]string{"info", "warning"}[r.IntN(2)])
		case 5:
			v.Extra = details[r.IntN(len(details))]
		case 6:
			v.Reason = strings.Clone(v.Reason)
		case 7:
			buf[r.IntN(len(buf))] = "ab\"\\\n\xff"[r.IntN(6)]
			fallthrough
		case 8:
			v.Reason = unsafe.String(&buf[0], len(buf))
		}
		file, kind := files[0], kinds[0]
		if r.IntN(10) == 0 {
			file, kind = files[r.IntN(len(files))], kinds[r.IntN(len(kinds))]
		}
		vs := []envelope.Violation{v}
		d := map[string]any{"kind": kind, "file": file, "line": line}
		want := string(p.AppendRecord(nil, envelope.Verdict(slices.Clone(vs), "collector event valid", d)))
		if got := string(p.AppendRecordVerdict([]byte("x")[:0], file, kind, "collector event valid", line, vs)); got != want {
			t.Fatalf("case %d:\n got  %s\n want %s", i, got, want)
		}
	}
	var kept int
	for i := range p.memo.slots {
		if e := p.memo.slots[i].Load(); e != nil && e.vhead != nil {
			kept++
		}
	}
	if kept == 0 {
		t.Errorf("no record's end was kept")
	}
}
