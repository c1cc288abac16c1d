package record

import (
	"fmt"
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
