package record

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gojson "github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules"
)

func TestShallowValue(t *testing.T) {
	p := newShallowPlan([]string{"/tool/tool_name", "/status", "/a~1b", "/tool", "/n", "/missing", "/msg/x", "/deep/x/y", "/flag", "/nil", "/status"})
	raw := []byte(`{"status":"t\u00e9\"st","n":1.5e2,"tool":{"tool_name":"Bash","duration_ms":12},"a/b":[1,{"c":null}],"msg":"text","deep":{"x":{"y":"z","w":1},"v":2},"flag":false,"nil":null,"other":{"big":"ignored"}}`)
	got, err := p.shallowValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"status": "té\"st", "n": 150.0, "tool": map[string]any{"tool_name": "Bash", "duration_ms": 12.0},
		"a/b": []any{1.0, map[string]any{"c": nil}}, "deep": map[string]any{"x": map[string]any{"y": "z"}}, "flag": false, "nil": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	// Scalars decode as json.Unmarshal into any does.
	for _, s := range []string{`"plain"`, `"esc\n\u00e9\ud83d\ude00"`, `-0.5e-3`, `12`, `true`, `null`, `{"a":[1,"b"]}`} {
		x, err := decodeRaw([]byte(s))
		var y any
		if err2 := gojson.Unmarshal([]byte(s), &y); err != nil || err2 != nil || !reflect.DeepEqual(x, y) {
			t.Errorf("%s: decodeRaw %#v (%v), Unmarshal %#v (%v)", s, x, err, y, err2)
		}
	}
}

// shallowFindings runs rule r on one JSON record decoded whole and decoded
// through the declared Fields only, and returns both findings. The
// declared values are given once decoded (Doc.Value) and once in place
// (Doc.Flat, what the engine gives a record its acceptor read): declared
// is the first when they differ.
func shallowFindings(t *testing.T, r *rules.Rule, line string) (whole, declared string, ok bool) {
	t.Helper()
	var full any
	if gojson.Unmarshal([]byte(line), &full) != nil {
		return "", "", false
	}
	plan := newShallowPlan(r.Fields)
	shallow, err := plan.shallowValue([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", r.ID, err)
	}
	var flat []rules.Flat
	for i, v := range plan.vals {
		if v.Type == rules.ValueRaw {
			flat = append(flat, rules.Flat{Pointer: plan.ptrs[i], Raw: v.Str})
		}
	}
	opts := &rules.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC), Strict: slices.Contains(r.Options, "--strict")}
	kind := r.ExampleKind
	if kind == "" {
		kind = r.Kinds[0]
	}
	run := func(v any, flat []rules.Flat) string {
		return fmt.Sprint(rules.Run(&rules.Doc{Kind: kind, Raw: []byte(line), Value: v, Flat: flat, Options: opts}, func(id string) bool { return id == r.ID }))
	}
	whole, declared = run(full, nil), run(shallow, nil)
	if inPlace := run(nil, flat); inPlace != declared {
		return whole, "in place: " + inPlace, true
	}
	return whole, declared, true
}

// TestShallowDecodeAgrees: every rule that declares Fields finds the same
// on its examples (each line of a JSON Lines example) whether the record is
// decoded whole or only the declared values, so a rule that reads a value
// it did not declare fails here (ZZ904 shows that it would).
func TestShallowDecodeAgrees(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.Fields == nil || r.Check == nil || r.ID == "ZZ904" {
			continue
		}
		n++
		for _, payload := range []string{r.Example, r.Fixed} {
			for _, line := range strings.Split(payload, "\n") {
				if a, b, ok := shallowFindings(t, r, line); ok && a != b {
					t.Errorf("%s on %s:\n whole record:    %s\n declared fields: %s", r.ID, line, a, b)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no rule declares Fields")
	}
	if a, b, _ := shallowFindings(t, rules.Lookup("ZZ904"), `{"locks":[],"x_zz":{"a":"ok","b":"bad"}}`); a == b {
		t.Errorf("ZZ904 reads an undeclared value, yet both decodes find %s", a)
	}
}

// Test rules of operator/locks documents that carry x_zz: ZZ903 reads the
// value it declares, ZZ904 also one it does not.
func init() {
	zz := func(member string) func(d *rules.Doc, r *rules.Reporter) {
		return func(d *rules.Doc, r *rules.Reporter) {
			if rules.Str(rules.Obj(d.Root()["x_zz"]), member) == "bad" {
				r.Report(rules.Ptr("x_zz", member), "x_zz."+member+" is bad", nil)
			}
		}
	}
	rules.Register(
		&rules.Rule{ID: "ZZ903", Name: "test-declared-fields", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds: []string{"operator/locks"}, Summary: "test only", Source: "lint/shallow_test.go", Fields: []string{"/x_zz/a"}, Check: zz("a"),
			ExampleKind: "operator/locks", Example: `{"locks":[],"x_zz":{"a":"bad"}}`, Fixed: `{"locks":[],"x_zz":{"a":"ok","b":"bad"}}`},
		&rules.Rule{ID: "ZZ904", Name: "test-undeclared-field", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds: []string{"operator/locks"}, Summary: "test only", Source: "lint/shallow_test.go", Fields: []string{"/x_zz/a"}, Check: zz("b")},
	)
}

// TestValidatorShallowPlan: the Validator decodes shallowly only when every
// enabled document rule of the kind declares Fields, and the rules then see
// their values.
func TestValidatorShallowPlan(t *testing.T) {
	off := map[string]string{"ZZ904": "off"}
	for _, r := range rules.ForKind("operator/locks") {
		if r.Fields == nil {
			off[r.ID] = "off"
		}
	}
	v := NewValidator(Options{Severity: off}, nil)
	if p := v.plan("operator/locks"); !p.shallow {
		t.Fatal("not shallow with only ZZ903 enabled")
	}
	vs, _ := v.Document("operator/locks", "l.json", []byte(`{"locks":[{"task_id":"T-1","resource":"src","active":true}],"x_zz":{"a":"bad"}}`))
	if len(vs) != 1 || vs[0].Rule != "ZZ903" || vs[0].Pointer != "/x_zz/a" || vs[0].Column != 73 {
		t.Errorf("violations %+v", vs)
	}
	// The watchdog rules OP060-OP062 read whole documents.
	if p := NewValidator(Options{}, nil).plan("operator/watchdog"); p.shallow || !p.rules {
		t.Error("shallow although rules without Fields are enabled")
	}
}

// TestMemberAt: flat reads a declared member of an undeclared one (a
// worklog entry's task.acceptance_criteria) from that member's span as
// decoding it would, and declines an escaped member name.
func TestMemberAt(t *testing.T) {
	for _, c := range []struct {
		v    string
		toks []string
		want string // "-": absent; "!": declined
	}{
		{`{"a":1,"b":[2]}`, []string{"b"}, `[2]`},
		{` { "a" : { "b" : "x" } } `, []string{"a", "b"}, `"x"`},
		{`{"a":{"c":1}}`, []string{"a", "b"}, "-"},
		{`{"a":"b"}`, []string{"a", "b"}, "-"},
		{`[1]`, []string{"a"}, "-"},
		{`{}`, []string{"a"}, "-"},
		{``, []string{"a"}, "-"},
		{`{"\u0061":1}`, []string{"a"}, "!"},
		{`{"b":1,"a\"":2,"a":3}`, []string{"a"}, "!"},
	} {
		v, ok := memberAt([]byte(c.v), c.toks)
		got := string(v)
		switch {
		case !ok:
			got = "!"
		case v == nil:
			got = "-"
		}
		if got != c.want {
			t.Errorf("memberAt(%s, %v) = %s, want %s", c.v, c.toks, got, c.want)
		}
	}
}
