//go:build cueengine || devtools

package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// testCUE exercises every construct JSONSchema translates: enums, patterns
// with a format, code-point lengths, literal and sibling bounds, lists,
// x_ fields, an open struct, conditional fields on a discriminator and on
// an absent field, and a check.
const testCUE = `package t

import ("strings", "list")

#ID: =~"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" @desc("an id") @format("uuid")

#Rec: {
	@kind(t/rec)
	kind!:  "a" | "b"
	id!:    #ID @rule(T001)
	name?:  string & strings.MinRunes(1) & strings.MaxRunes(3) @rule(T002,empty=T003)
	lo!:    int & >=1
	hi!:    int & >lo
	p?:     number & >=0.0 & <=1.0
	tags?:  [...string] & list.MinItems(1) & list.MaxItems(2)
	meta?:  {...}
	mode?:  string
	if kind == "a" {
		extra!: bool @rule(T004)
	}
	if mode == _|_ {
		fallback?: null | string
	}
	if kind == "b" {
		_c: lo & >=5 @rule(T005)
	}
	[=~"^x_"]: _
}
`

func compileTest(t *testing.T, strict bool) *js.Schema {
	t.Helper()
	m, err := Compile(mapFS{"t.cue": testCUE})
	if err != nil {
		t.Fatal(err)
	}
	src, err := m.JSONSchema(m.Kind("t/rec"), JSONSchemaOptions{ID: "https://example.com/t.json", Title: "t", Strict: strict})
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("t.json", bytes.NewReader(src)); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	s, err := c.Compile("t.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return s
}

func TestJSONSchemaVerdicts(t *testing.T) {
	const id = `"id": "550e8400-e29b-41d4-a716-446655440000"`
	base := id + `, "lo": 5, "hi": 6`
	cases := []struct {
		doc            string
		valid, vStrict bool
	}{
		{`{"kind": "b", ` + base + `}`, true, true},
		{`{"kind": "a", ` + base + `, "extra": true}`, true, true},
		{`{"kind": "a", ` + base + `}`, false, false},                                                   // conditional required field
		{`{"kind": "b", ` + base + `, "extra": true}`, true, false},                                     // extra not declared for b
		{`{"kind": "b", ` + id + `, "lo": 4, "hi": 6}`, false, false},                                   // check when kind is b
		{`{"kind": "c", ` + base + `}`, false, false},                                                   // enum
		{`{"kind": "b", "id": "550E8400-E29B-41D4-A716-446655440000", "lo": 5, "hi": 6}`, false, false}, // pattern stricter than the uuid format
		{`{"kind": "b", ` + base + `, "name": "ééé"}`, true, true},                                      // code points
		{`{"kind": "b", ` + base + `, "name": "éééé"}`, false, false},                                   // maxLength
		{`{"kind": "b", ` + base + `, "name": ""}`, false, false},                                       // minLength
		{`{"kind": "b", ` + base + `, "p": 1.0000000000000001}`, false, false},                          // exact bound
		{`{"kind": "b", ` + base + `, "tags": []}`, false, false},                                       // minItems
		{`{"kind": "b", ` + base + `, "tags": ["a","b","c"]}`, false, false},
		{`{"kind": "b", ` + base + `, "x_note": 1, "meta": {"k": 1}}`, true, true},
		{`{"kind": "b", ` + base + `, "fallback": null}`, true, true},              // mode absent
		{`{"kind": "b", ` + base + `, "mode": "m", "fallback": "x"}`, true, false}, // mode present
		{`{"kind": "b", ` + id + `, "lo": 5, "hi": 3}`, true, true},                // sibling bound: not expressed
	}
	for _, strict := range []bool{false, true} {
		s := compileTest(t, strict)
		for _, c := range cases {
			d := json.NewDecoder(strings.NewReader(c.doc))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatalf("%s: %v", c.doc, err)
			}
			want := c.valid
			if strict {
				want = c.vStrict
			}
			if err := s.Validate(v); (err == nil) != want {
				t.Errorf("strict=%v %s: valid=%v, want %v (%v)", strict, c.doc, err == nil, want, err)
			}
		}
	}
}

func TestJSONSchemaText(t *testing.T) {
	m, err := Compile(mapFS{"t.cue": testCUE})
	if err != nil {
		t.Fatal(err)
	}
	src, err := m.JSONSchema(m.Kind("t/rec"), JSONSchemaOptions{RuleText: func(id string, long bool) string {
		if long {
			return id + " (long)"
		}
		return id
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"$schema": "https://json-schema.org/draft/2020-12/schema"`,
		`"description": "an id. Rule T001 (long). Required (absent or null: AL002)."`,
		`"format": "uuid"`,
		`"description": "Rule T002 (long). Empty: T003."`,
		`Must be > lo: checked by agentlint only`,
		`"maximum": 1.0`,
		`"enum": ["a", "b"]`,
		`"^x_": true`,
		`"if": {`,
		`"const": "a"`,
		`"not": {`,
		`"When kind is \"b\": rule T005 (long)."`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("schema lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", src)
	}
}

// TestJSONSchemaClosedStructTwice: the strict export fails loudly on a
// closed struct member declared both unconditionally and conditionally,
// which it cannot close correctly.
func TestJSONSchemaClosedStructTwice(t *testing.T) {
	m, err := Compile(mapFS{"t.cue": `package t
#R: {
	@kind(t/r)
	k!: "a" | "b"
	d!: {x?: int}
	if k == "a" {
		d!: {y?: int}
	}
}
`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.JSONSchema(m.Kind("t/r"), JSONSchemaOptions{}); err != nil {
		t.Errorf("not strict: %v", err)
	}
	_, err = m.JSONSchema(m.Kind("t/r"), JSONSchemaOptions{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "member d is a closed struct") {
		t.Errorf("strict: err = %v, want the closed struct named", err)
	}
}
