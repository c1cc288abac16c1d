package lint

import (
	"encoding/json"
	"testing"

	"github.com/agentlint/agentlint/rules"
)

// reference is what the extractor must find at pointer in a valid JSON
// record: decoded with encoding/json and walked token by token (member names
// in objects, RFC 6901 indices in arrays).
func reference(t *testing.T, record, pointer string, typ rules.FieldType) rules.Value {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(record), &v); err != nil {
		t.Fatalf("bad test record %s: %v", record, err)
	}
	toks, _ := rules.PointerTokens(pointer)
	for _, tok := range toks {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return rules.Value{}
			}
		case []any:
			i := arrayIndex(tok)
			if i < 0 || i >= len(c) {
				return rules.Value{}
			}
			v = c[i]
		default:
			return rules.Value{}
		}
	}
	switch x := v.(type) {
	case string:
		if typ != rules.FieldNumber {
			return rules.Value{Kind: rules.ValueString, Str: []byte(x)}
		}
	case float64:
		if typ == rules.FieldNumber {
			return rules.Value{Kind: rules.ValueNumber, Num: x}
		}
	}
	return rules.Value{Kind: rules.ValueOther}
}

func TestExtractPointers(t *testing.T) {
	records := []string{
		`{"stack":[{"id":"a","iter":1},{"id":"b","iter":2}],"run_id":"r"}`,
		`{"stack":[],"run_id":"r"}`,
		`{"stack":{"0":{"id":"member named 0","iter":7}}}`,
		`{"stack":[[1,2],{"id":"x"},"s",{"id":"c\"d","iter":-3.5e1}]}`,
		`{ "a" : [ 1 , [ "x" , { "b" : "deep" } ] ] , "stack" : [ { "id" : "sp" } ] }`,
		`{"a":[1,2,3,4,5,6,7,8,9,10,11,"eleven"]}`,
		`{"a":{"b":[{"c":[{"d":"four levels"}]}]}}`,
		`{"stack":null,"a":"not an array"}`,
	}
	fields := []rules.Field{
		{Pointer: "/stack/0/id", Type: rules.FieldString},
		{Pointer: "/stack/0/iter", Type: rules.FieldNumber},
		{Pointer: "/stack/1/id", Type: rules.FieldString},
		{Pointer: "/stack/1/iter", Type: rules.FieldNumber},
		{Pointer: "/stack/3/id", Type: rules.FieldString},
		{Pointer: "/stack/3/iter", Type: rules.FieldNumber},
		{Pointer: "/stack/01/id", Type: rules.FieldString}, // not an index
		{Pointer: "/a/1/1/b", Type: rules.FieldString},
		{Pointer: "/a/11", Type: rules.FieldString},
		{Pointer: "/a/10", Type: rules.FieldNumber},
		{Pointer: "/a/b/0/c/0/d", Type: rules.FieldString},
		{Pointer: "/a", Type: rules.FieldString},
		{Pointer: "/run_id", Type: rules.FieldString},
	}
	x := newExtractor(fields)
	out := make([]rules.Value, len(fields))
	for _, rec := range records {
		x.extract([]byte(rec), out)
		for i, f := range fields {
			want := reference(t, rec, f.Pointer, f.Type)
			got := out[i]
			if got.Kind != want.Kind || string(got.Str) != string(want.Str) || got.Num != want.Num {
				t.Errorf("%s in %s: got kind %d %q %v, want kind %d %q %v", f.Pointer, rec, got.Kind, got.Str, got.Num, want.Kind, want.Str, want.Num)
			}
			if got.Kind != rules.ValueAbsent {
				if c := got.Column; c < 1 || c > len(rec) || rec[c-1] == ' ' || rec[c-1] == ',' {
					t.Errorf("%s in %s: column %d does not start a value", f.Pointer, rec, c)
				}
			}
		}
	}
}

// TestExtractMalformed: arrays that end early or hold garbage never panic
// and keep what was found before the malformed spot.
func TestExtractMalformed(t *testing.T) {
	x := newExtractor([]rules.Field{{Pointer: "/run_id", Type: rules.FieldString}, {Pointer: "/stack/1/iter", Type: rules.FieldNumber}})
	out := make([]rules.Value, 2)
	for _, rec := range []string{
		`{"run_id":"r","stack":[1,`,
		`{"run_id":"r","stack":[1 2]}`,
		`{"run_id":"r","stack":[{"iter":1},{"iter":`,
		`{"run_id":"r","stack":[`,
		`{"run_id":"r","stack":[}`,
	} {
		x.extract([]byte(rec), out)
		if out[0].Kind != rules.ValueString || out[1].Kind == rules.ValueNumber {
			t.Errorf("%s: got %+v", rec, out)
		}
	}
}

func TestArrayIndex(t *testing.T) {
	for tok, want := range map[string]int{"0": 0, "7": 7, "10": 10, "01": -1, "": -1, "-1": -1, "a": -1, "1e3": -1, "9999999999": -1} {
		if got := arrayIndex(tok); got != want {
			t.Errorf("arrayIndex(%q) = %d, want %d", tok, got, want)
		}
	}
}
