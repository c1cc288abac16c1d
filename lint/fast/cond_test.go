package fast_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/internal/fasttest"
)

func runCond(kind, doc string, strict bool) []string {
	d := fast.NewDec()
	d.Strict = strict
	d.Reset([]byte(doc), 1)
	d.Validate(fasttest.Validators[kind])
	var out []string
	for _, v := range d.Out {
		out = append(out, v.Rule+"@"+v.Pointer)
	}
	sort.Strings(out)
	return out
}

// TestConditionalFields pins what the generated validators of the test
// schemas (lint/internal/fasttest/cond.cue) report: conditional members apply
// only when their condition holds, wherever the discriminator is in the
// object; strict mode counts them as declared only then; an absent or
// invalid discriminator turns on `if f == _|_` conditions.
func TestConditionalFields(t *testing.T) {
	cases := []struct {
		name, kind, doc string
		strict          bool
		want            string // rule@pointer, sorted, space separated
	}{
		{"typed data valid", "test/event", `{"type":"a.created","data":{"id":"wo-1","title":"t"}}`, true, ""},
		{"discriminator after data", "test/event", `{"data":{"id":"x","title":""},"type":"a.created"}`, false,
			"OP001@/data/id OP002@/data/title"},
		{"other type: data untyped", "test/event", `{"data":{"id":"x","title":""},"type":"a.other"}`, true, ""},
		{"escaped discriminator", "test/event", `{"type":"a.cr\u0065ated","data":{}}`, false,
			"AL002@/data/id AL002@/data/title"},
		{"escaped member name", "test/event", `{"typ\u0065":"a.created","data":{}}`, false,
			"AL002@/data/id AL002@/data/title"},
		{"conditional member off, strict", "test/event", `{"type":"b.x","data":{},"closed_at":"2026"}`, true, "AL004@/closed_at"},
		{"conditional member off, lax", "test/event", `{"type":"b.x","data":{},"closed_at":"2026"}`, false, ""},
		{"conditional member on", "test/event", `{"type":"a.closed","data":{"id":"wo-1","reason":"r"},"closed_at":"x"}`, true, "AL003@/closed_at"},
		{"two blocks, one condition", "test/event", `{"type":"a.closed","data":{"id":"wo-1","reason":""}}`, false, "AL003@/data/reason"},
		{"second discriminator", "test/event", `{"type":"b.x","level":"x","data":{}}`, false, "AL002@/data/lx AL002@/extra"},
		{"both discriminators unify", "test/event", `{"level":"x","extra":1,"type":"a.created","data":{"id":"wo-1","title":"t","lx":false,"n":11}}`, false,
			"AL003@/data/n"},
		{"invalid discriminator", "test/event", `{"type":5,"data":{},"extra":1}`, true, "AL003@/type AL004@/extra"},
		{"check on a conditional member", "test/event", `{"type":"a.checked","data":{"ok":"no"}}`, false, "OP020@/data/ok"},
		{"quotes and braces before the discriminator", "test/event", `{"at":"}\"{,\\","x_a":[{"type":"a.created"}],"type":"a.created","data":{"id":"wo-1","title":"t"}}`, true, ""},
		{"syntax error after the discriminator", "test/event", `{"type":"a.created","data":{"id":`, false, "AL001@"},
		{"anchor: absent discriminator", "test/anchor", `{"schema":0}`, false, "AL002@/goal AL002@/iteration AL002@/mode"},
		{"anchor: invalid discriminator counts as absent", "test/anchor", `{"schema":0,"event":"NOPE","goal":"g","mode":"loop","iteration":"1/2"}`, true,
			"AL003@/event"},
		{"anchor: null discriminator counts as absent", "test/anchor", `{"schema":0,"event":null}`, false,
			"AL002@/goal AL002@/iteration AL002@/mode AL003@/event"},
		{"anchor: absent-condition members off, strict", "test/anchor", `{"schema":0,"event":"STATE","state":{"kind":"loop","iter":1},"goal":"g"}`, true,
			"AL004@/goal"},
		{"condition inside a conditional member", "test/anchor", `{"schema":0,"event":"STATE","state":{"kind":"issue","iter":1}}`, false,
			"AL002@/state/issue_id"},
		{"member declared both ways: on", "test/anchor", `{"schema":0,"event":"DONE","note":""}`, false, "OP002@/note"},
		{"member declared both ways: off", "test/anchor", `{"schema":0,"event":"ABORT","note":""}`, true, ""},
		{"member declared both ways: required", "test/anchor", `{"schema":0,"event":"DONE"}`, false, "AL002@/note"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(runCond(c.kind, c.doc, c.strict), " ")
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestConditionalPosition: a conditional member's violation is reported at
// its value, like any member's.
func TestConditionalPosition(t *testing.T) {
	d := fast.NewDec()
	d.Reset([]byte("{\"data\": {\n  \"id\": 7, \"title\": \"t\"},\n \"type\": \"a.created\"}"), 5)
	d.Validate(fasttest.Validators["test/event"])
	if len(d.Out) != 1 || d.Out[0].Pointer != "/data/id" || d.Out[0].Line != 6 || d.Out[0].Column != 9 {
		t.Fatalf("got %+v", d.Out)
	}
}

// condRecord is a 550-byte record whose discriminator comes last, after a
// large typed member: the pre-scan's worst case.
var condRecord = []byte(`{"data":{"id":"wo-abc123","title":"Fix","n":3,"free":{"text":"` + strings.Repeat("lorem ipsum ", 34) +
	`","list":[1,2,3,{"k":"v"}]}},"at":"2026-01-06T12:00:00.000Z","x_trace":"abc","type":"a.created"}`)

// BenchmarkConditional validates condRecord; BenchmarkConditionalIsValid
// is jsontext.Value.IsValid on the same bytes, the floor of any validator;
// BenchmarkCondsPreScan is the pre-scan alone.
func BenchmarkConditional(b *testing.B) {
	d := fast.NewDec()
	fn := fasttest.Validators["test/event"]
	b.SetBytes(int64(len(condRecord)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Reset(condRecord, 1)
		d.Validate(fn)
		if len(d.Out) != 0 {
			b.Fatal(d.Out)
		}
	}
}

func BenchmarkConditionalIsValid(b *testing.B) {
	b.SetBytes(int64(len(condRecord)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !jsontext.Value(condRecord).IsValid() {
			b.Fatal("invalid")
		}
	}
}

var condSet = fast.CondSet{
	Fields: []fast.CondField{{Name: "type", Leaf: &fast.Leaf{Kinds: fast.KString, MinRunes: -1, MaxRunes: -1, MinItems: -1, MaxItems: -1}}},
	Conds:  []fast.CondSpec{{Field: 0, Equals: "a.created"}, {Field: 0, Equals: "a.closed"}, {Field: 0, Absent: true}},
}

func BenchmarkCondsPreScan(b *testing.B) {
	d := fast.NewDec()
	b.SetBytes(int64(len(condRecord)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Reset(condRecord, 1)
		if m := d.Conds(0, &condSet); m != 1 {
			b.Fatalf("mask %b", m)
		}
	}
}

// TestCondsMask: the pre-scan's mask has the bit of every condition that
// holds, whatever the order of the conditions: literals of two
// discriminators, a literal tested twice, Absent conditions between them
// (an absent, invalid or non-string discriminator), escaped strings.
func TestCondsMask(t *testing.T) {
	str := &fast.Leaf{Kinds: fast.KString, MinRunes: -1, MaxRunes: -1, MinItems: -1, MaxItems: -1}
	cs := &fast.CondSet{
		Fields: []fast.CondField{{Name: "type", Leaf: str}, {Name: "level", Leaf: str}},
		Conds: []fast.CondSpec{
			{Field: 0, Equals: "a.created"}, {Field: 1, Absent: true}, {Field: 0, Equals: "a.closed"},
			{Field: 1, Equals: "x"}, {Field: 0, Absent: true}, {Field: 0, Equals: "a.created"}, {Field: 1, Equals: "y"},
		},
	}
	for _, c := range []struct {
		doc  string
		want uint64
	}{
		{`{"type":"a.created","level":"x"}`, 1<<0 | 1<<3 | 1<<5},
		{`{"level":"y","data":{"type":"a.closed"},"type":"a.closed"}`, 1<<2 | 1<<6},
		{`{"type":"a.cr\u0065ated"}`, 1<<0 | 1<<1 | 1<<5},
		{`{"type":5,"level":"x"}`, 1<<3 | 1<<4},
		{`{"level":7}`, 1<<1 | 1<<4},
		{`{}`, 1<<1 | 1<<4},
		{`{"type":"a.other","level":"\u0079"}`, 1 << 6},
	} {
		d := fast.NewDec()
		d.Reset([]byte(c.doc), 1)
		if m := d.Conds(0, cs); m != c.want {
			t.Errorf("%s: mask %07b, want %07b", c.doc, m, c.want)
		}
	}
}
