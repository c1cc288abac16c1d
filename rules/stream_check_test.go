package rules

import (
	"strings"
	"testing"
)

// TestFileCheck: a FileCheck reads its values by FieldRef in declaration
// order, keeps one state per file, and Finish sees what Observe noted.
func TestFileCheck(t *testing.T) {
	var fl FieldList
	id := fl.String("/id")
	n := fl.Number("/n")
	if got := fl.Fields(); len(got) != 2 || got[id].Pointer != "/id" || got[n].Type != FieldNumber {
		t.Fatalf("Fields = %+v", got)
	}
	type state struct {
		file string
		sum  float64
		ids  []string
	}
	var finished []state
	c := &FileCheck[state]{
		Reads: fl.Fields(),
		New:   func(file string, _ *Options) *state { return &state{file: file} },
		Observe: func(s *state, rec *StreamRecord, _ *StreamReporter) {
			s.ids = append(s.ids, strings.Clone(rec.Get(id).Text()))
			s.sum += rec.Get(n).Num
		},
		Finish: func(s *state, _ *StreamReporter) { finished = append(finished, *s) },
	}
	rec := func(i string, num float64) *StreamRecord {
		return &StreamRecord{Valid: true, Values: []Value{{Type: ValueString, Str: []byte(i)}, {Type: ValueNumber, Num: num}}}
	}
	a, b := c.NewFile("a.jsonl", nil), c.NewFile("b.jsonl", nil)
	a.Observe(rec("x", 1), nil)
	b.Observe(rec("y", 10), nil)
	a.Observe(rec("z", 2), nil)
	a.Finish(nil)
	b.Finish(nil)
	if len(finished) != 2 || finished[0].file != "a.jsonl" || finished[0].sum != 3 || len(finished[0].ids) != 2 || finished[0].ids[1] != "z" || finished[1].sum != 10 {
		t.Fatalf("states = %+v", finished)
	}
	if (&Value{Type: ValueNumber, Num: 1}).Text() != "" {
		t.Error("Text of a number is not empty")
	}
}
