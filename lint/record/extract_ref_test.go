package record

import (
	"encoding/json"
	"testing"

	"github.com/agentlint/agentlint/rules"
)

// extractReference is what the extractor must find at pointer in a valid
// JSON record: decoded with encoding/json and walked through object members
// (the extractor does not descend into arrays).
func extractReference(t *testing.T, record, pointer string, typ rules.FieldType) rules.Value {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(record), &v); err != nil {
		t.Fatalf("bad test record %s: %v", record, err)
	}
	toks, _ := rules.PointerTokens(pointer)
	for _, tok := range toks {
		m, ok := v.(map[string]any)
		if !ok {
			return rules.Value{}
		}
		if v, ok = m[tok]; !ok {
			return rules.Value{}
		}
	}
	switch x := v.(type) {
	case string:
		if typ != rules.FieldNumber {
			return rules.Value{Type: rules.ValueString, Str: []byte(x)}
		}
	case float64:
		if typ == rules.FieldNumber {
			return rules.Value{Type: rules.ValueNumber, Num: x}
		}
	}
	return rules.Value{Type: rules.ValueOther}
}

// TestExtractMatchesDecoder: the values the stream rules get equal what a
// decoder finds, for nested members, escapes, white space, arrays that are
// skipped and values of other types; each column starts its value.
func TestExtractMatchesDecoder(t *testing.T) {
	records := []string{
		`{"correlation":{"trace_id":"t","span_id":"s","parent_span_id":"p"},"event_id":"e","timestamp":"2026-02-14T09:00:00Z"}`,
		`{ "correlation" : { "span_id" : "s2" } , "event_id" : "a\"b\u00e9" , "n" : -3.5e1 }`,
		`{"stack":[{"correlation":{"trace_id":"in an array"}}],"correlation":[1,2],"event_id":7}`,
		`{"c\u006frrelation":{"trace_id":"escaped name"},"n":"not a number","event_id":null}`,
		`{"correlation":{"trace_id":{"deep":"x"}},"n":12}`,
		`{}`,
	}
	fields := []rules.Field{
		{Pointer: "/correlation/trace_id", Type: rules.FieldString},
		{Pointer: "/correlation/span_id", Type: rules.FieldString},
		{Pointer: "/correlation/parent_span_id", Type: rules.FieldString},
		{Pointer: "/event_id", Type: rules.FieldString},
		{Pointer: "/n", Type: rules.FieldNumber},
	}
	x := NewExtractor("", fields)
	out := make([]rules.Value, len(fields))
	for _, rec := range records {
		x.extract([]byte(rec), out)
		for i, f := range fields {
			want := extractReference(t, rec, f.Pointer, f.Type)
			got := out[i]
			if got.Type != want.Type || string(got.Str) != string(want.Str) || got.Num != want.Num {
				t.Errorf("%s in %s: got kind %d %q %v, want kind %d %q %v", f.Pointer, rec, got.Type, got.Str, got.Num, want.Type, want.Str, want.Num)
			}
			if got.Type != rules.ValueAbsent {
				if c := got.Column; c < 1 || c > len(rec) || rec[c-1] == ' ' || rec[c-1] == ',' || rec[c-1] == ':' {
					t.Errorf("%s in %s: column %d does not start a value", f.Pointer, rec, c)
				}
			}
		}
	}
}
