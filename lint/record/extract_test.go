package record

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/rules"
)

func TestExtract(t *testing.T) {
	fields := []rules.Field{
		{Pointer: "/timestamp", Type: rules.FieldTime},
		{Pointer: "/correlation/trace_id", Type: rules.FieldString},
		{Pointer: "/progress", Type: rules.FieldNumber},
		{Pointer: "/a~1b", Type: rules.FieldString},
		{Pointer: "/deep/x/y", Type: rules.FieldNumber},
	}
	ts := time.Date(2026, 2, 14, 19, 0, 0, 0, time.UTC)
	cases := []struct {
		line string
		want string
	}{
		{`{"timestamp":"2026-02-14T20:00:00+01:00","correlation":{"span_id":"s","trace_id":"t\u00e9"},"progress":0.5,"a/b":"x","deep":{"x":{"y":-2e3}}}`,
			fmt.Sprintf("time %d @14 | str té @82 | num 0.5 @104 | str x @114 | num -2000 @135", ts.UnixNano())},
		// Escaped member names, white space, nested values skipped, wrong
		// types; /deep/x/y does not exist when x is an array.
		{` { "a\/b" : "y" , "skip" : [ {"timestamp":"no"} , "}" ] , "timestamp" : "not a time" , "progress" : "1" , "correlation" : 3 , "deep":{"x":[1]}}`,
			"str not a time @73 | absent | other @101 | str y @13 | absent"},
		{`{}`, "absent | absent | absent | absent | absent"},
		{`[1,2]`, "absent | absent | absent | absent | absent"},
	}
	x := NewExtractor("", fields)
	for _, c := range cases {
		out := make([]rules.Value, len(fields))
		x.extract([]byte(c.line), out)
		if got := describe(out); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.line, got, c.want)
		}
	}
}

func describe(vs []rules.Value) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += " | "
		}
		switch v.Type {
		case rules.ValueAbsent:
			s += "absent"
		case rules.ValueString:
			s += fmt.Sprintf("str %s @%d", v.Str, v.Column)
		case rules.ValueNumber:
			s += fmt.Sprintf("num %g @%d", v.Num, v.Column)
		case rules.ValueTime:
			s += fmt.Sprintf("time %d @%d", v.Time, v.Column)
		case rules.ValueOther:
			s += fmt.Sprintf("other @%d", v.Column)
		}
	}
	return s
}

// TestExtractMalformed: every prefix of a record (malformed JSON, as when
// the syntax rule is switched off) is scanned without a panic.
func TestExtractMalformed(t *testing.T) {
	line := `{"x":{"a":"b\"}","c":[1,{"d":"]"}]},"timestamp":"2026-02-14T19:00:00Z","n":12.5e1}`
	x := NewExtractor("", []rules.Field{{Pointer: "/timestamp", Type: rules.FieldTime}, {Pointer: "/n", Type: rules.FieldNumber}, {Pointer: "/x/c", Type: rules.FieldString}})
	out := make([]rules.Value, 3)
	for i := 0; i <= len(line); i++ {
		x.extract([]byte(line[:i]), out)
	}
	x.extract([]byte(line), out)
	if out[0].Type != rules.ValueTime || out[1].Num != 125 || out[2].Type != rules.ValueOther {
		t.Errorf("full line: %s", describe(out))
	}
}

func BenchmarkExtract(b *testing.B) {
	line := []byte(`{"timestamp":"2026-02-14T19:05:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"edit","files_touched":[],"decision":"` + strings.Repeat("d", 300) + `","result":"ok","next_step":"report"}`)
	x := NewExtractor("", []rules.Field{{Pointer: "/timestamp", Type: rules.FieldTime}, {Pointer: "/next_step", Type: rules.FieldString}})
	out := make([]rules.Value, 2)
	b.ReportAllocs()
	for b.Loop() {
		x.extract(line, out)
	}
}

// TestExtractReusesDigest: the stack of an idle STATE is scanned once per
// record: the digest its document rules made (Validator.Digests) is the
// one the extraction of IL101's values copies, equal to the digest made
// anew; a record whose rules made none (DONE, ANCHOR) gets its own, and so
// does the next record read into the same buffer.
func TestExtractReusesDigest(t *testing.T) {
	fields := rules.Stream("IL101").Fields()
	k := slices.IndexFunc(fields, func(f rules.Field) bool { return f.Type.Digest() != nil })
	if k < 0 {
		t.Fatal("IL101 declares no digest")
	}
	dg := fields[k].Type.Digest()
	v := NewValidator(Options{Now: time.Date(2026, 2, 14, 2, 0, 0, 0, time.UTC)}, nil)
	x := NewExtractor("idle/event", fields)
	done := `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`
	buf := make([]byte, len(inPlaceState))
	for _, line := range []string{inPlaceState, inPlaceAnchor, done, strings.Replace(inPlaceState, `"iter":2`, `"iter":3`, 1), inPlaceState} {
		raw := buf[:len(line)]
		copy(raw, line)
		v.RecordLine("idle/event", "f.jsonl", raw, 1)
		var stack []byte
		if i := strings.Index(line, `"stack":`); i >= 0 {
			stack = raw[i+len(`"stack":`) : len(raw)-1]
		}
		_, _, found := v.Digests().Lookup(dg, stack)
		if want := strings.Contains(line, `"STATE"`); found != want {
			t.Errorf("%s: the rules' digest found %v, want %v", line, found, want)
		}
		out := make([]rules.Value, len(fields))
		x.Arena, x.Digests = nil, v.Digests()
		x.Values(raw, v.Captured(), out)
		if stack == nil {
			if out[k].Type != rules.ValueAbsent {
				t.Errorf("%s: stack %v, want absent", line, out[k].Type)
			}
			continue
		}
		want, _ := dg.Make(nil, stack)
		if out[k].Type != rules.ValueDigest || string(out[k].Str) != string(want) {
			t.Errorf("%s: stack %v %q, want the digest %q", line, out[k].Type, out[k].Str, want)
		}
	}
}

// TestIdleDigestFromAcceptor: the digest of an idle STATE's stack that the
// document rules make from what the acceptor recorded of its frames
// (fast.Acc.Elems) is the one the digest makes by scanning the stack, for
// STATEs of generated logs with their frames' members in random orders,
// with escapes in ids, white space, extra and nested members, several
// frames and none.
func TestIdleDigestFromAcceptor(t *testing.T) {
	fields := rules.Stream("IL101").Fields()
	k := slices.IndexFunc(fields, func(f rules.Field) bool { return f.Type.Digest() != nil })
	dg := fields[k].Type.Digest()
	frames := []string{
		`{"id":"grind-1771059600-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api"}`,
		`{"id":"issue-auth-7-0","mode":"issue","iter":7,"max":5,"prompt_file":"/tmp/p","issue_id":"a","worktree_path":"/w","branch":"b","base_ref":"m"}`,
		`{"mode":"loop","max":3,"iter":3,"id":"loop-1-2","prompt_file":"/p","x":{"id":"no","iter":0},"y":[{"mode":"issue"}]}`,
		`{"id":"a\"b","mode":"loop","iter":2,"max":9,"prompt_file":"/p"}`,
		`{"id":"\u00e9","mode":"loop","iter":2,"max":9,"prompt_file":"/p"}`,
		` { "id" : "sp" , "mode" : "loop" , "iter" : 4 , "max" : 4 , "prompt_file" : "/p" } `,
		`{"id":"","mode":"loop","iter":12345678901234567,"max":99999999999999999999,"prompt_file":"/p"}`,
	}
	v := NewValidator(Options{Now: time.Date(2026, 2, 14, 2, 0, 0, 0, time.UTC)}, nil)
	rnd := rand.New(rand.NewPCG(9, 10))
	fromElems, scanned := 0, 0
	for range 3000 {
		var fs []string
		for range rnd.IntN(4) {
			fs = append(fs, frames[rnd.IntN(len(frames))])
		}
		mode := "loop"
		if len(fs) > 0 && strings.Contains(fs[0], `"grind"`) {
			mode = "grind"
		} else if len(fs) > 0 && strings.Contains(fs[0], `"issue"`) {
			mode = "issue"
		}
		stack := "[" + strings.Join(fs, ",") + "]"
		line := `{"schema":0,"event":"STATE","run_id":"` + mode + `-1-2","updated_at":"2026-02-14T01:00:00Z","stack":` + stack + `}`
		if rnd.IntN(2) == 0 {
			line = `{"stack":` + stack + `,"run_id":"` + mode + `-1-2","event":"STATE","schema":0,"updated_at":"2026-02-14T01:00:00Z"}`
		}
		raw := []byte(line)
		v.RecordLine("idle/event", "f.jsonl", raw, 1)
		if !v.accepted {
			continue
		}
		i := bytes.Index(raw, []byte(stack))
		sraw := raw[i : i+len(stack)]
		got, gok, found := v.Digests().Lookup(dg, sraw)
		if !found {
			t.Fatalf("no digest of the stack kept: %s", line)
		}
		want, wok := dg.Make(nil, sraw)
		if gok != wok || string(got) != string(want) {
			t.Fatalf("%s:\n from the acceptor %v %q\n scanned           %v %q", line, gok, got, wok, want)
		}
		for _, f := range v.ldoc.Flat {
			if f.Pointer == "/stack" && f.Elems != nil {
				fromElems++
			}
		}
		scanned++
	}
	if scanned < 1000 || fromElems < scanned {
		t.Errorf("%d stacks accepted, %d read from the acceptor's records", scanned, fromElems)
	}
}
