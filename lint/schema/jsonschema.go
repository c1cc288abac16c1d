//go:build cueengine || devtools

package schema

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/fast"
)

// JSONSchemaDraft is the `$schema` of every exported JSON Schema: draft
// 2020-12, whose unevaluatedProperties sees the members that conditional
// fields (if/then) declare, so that the --strict export can close an object
// that has conditional fields; draft-07's additionalProperties cannot.
const JSONSchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// JSONSchemaOptions are the parts of an exported JSON Schema that do not
// come from the CUE model: `$id`, `title`, the top `description`, the mode,
// and the text that names a rule in a field's description.
type JSONSchemaOptions struct {
	ID, Title, Description string
	// Strict closes every object the CUE definition closes
	// (`unevaluatedProperties: false`; x_ members stay allowed where the
	// definition allows them), as --strict does (rule AL004). Otherwise
	// undeclared members are allowed (`additionalProperties: true`).
	Strict bool
	// RuleText returns how a field's description names rule id: with long,
	// e.g. "OP005 (SCHEMA_INVALID): task ids must match …", else
	// "AL002 (MISSING_REQUIRED_INPUT)". nil: the bare ID.
	RuleText func(id string, long bool) string
}

// JSONSchema returns the JSON Schema (draft 2020-12, JSONSchemaDraft) of
// kind k, generated from the same model as the fast path: types, enums
// (`const` for one value), patterns with the format they refine
// (Model.PatternFormat), code-point lengths (minLength/maxLength count code
// points in JSON Schema too), literal bounds, item counts, required
// members, the x_ extension policy (`patternProperties` "^x_"), conditional
// fields and checks (`allOf` of `if`/`then` on the discriminator; `if f ==
// _|_` becomes `not required`), and per field a description naming its rule
// (inherited from the nearest enclosing field with @rule, else AL003; an
// absent required field is AL002; EmptyRule and NullRule are named too).
//
// Not expressed: a bound on a sibling field (`<timeout_seconds`, named in
// the field's description instead) and integers written with a fraction
// or exponent (JSON Schema's "integer" accepts 1200.0). The output is
// indented with two spaces, members in declaration order, and ends with a
// newline; it is deterministic.
func (m *Model) JSONSchema(k *Kind, o JSONSchemaOptions) ([]byte, error) {
	if k == nil || k.Type == nil || k.Type.Obj == nil {
		return nil, fmt.Errorf("jsonschema: kind %v is not an object definition", k)
	}
	x := &jsExporter{m: m, o: o}
	root := &jobj{}
	root.set("$schema", JSONSchemaDraft)
	if o.ID != "" {
		root.set("$id", o.ID)
	}
	if o.Title != "" {
		root.set("title", o.Title)
	}
	if o.Description != "" {
		root.set("description", o.Description)
	}
	x.typeInto(root, k.Type, DefaultRule)
	if x.err != nil {
		return nil, fmt.Errorf("jsonschema: %s: %w", k.Name, x.err)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, root, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

type jsExporter struct {
	m   *Model
	o   JSONSchemaOptions
	err error
}

func (x *jsExporter) ruleText(id string) string { return x.rule(id, true) }

func (x *jsExporter) rule(id string, long bool) string {
	if x.o.RuleText == nil {
		return id
	}
	return x.o.RuleText(id, long)
}

// field returns the schema of one member. rule is the rule inherited from
// the enclosing field.
func (x *jsExporter) field(f *Field, rule string) *jobj {
	if f.Rule != "" {
		rule = f.Rule
	}
	s := &jobj{}
	var desc []string
	for _, p := range f.Type.Patterns {
		if d := x.m.PatternDesc[p]; d != "" {
			desc = append(desc, d+".")
			break
		}
	}
	desc = append(desc, "Rule "+x.ruleText(rule)+".")
	if f.Required {
		nullRule := "AL002"
		if f.NullRule != "" {
			nullRule = f.NullRule
		}
		if nullRule == "AL002" {
			desc = append(desc, "Required (absent or null: "+x.rule("AL002", false)+").")
		} else {
			desc = append(desc, "Required (absent: "+x.rule("AL002", false)+"; null: "+x.rule(nullRule, false)+").")
		}
	}
	if f.EmptyRule != "" {
		desc = append(desc, "Empty: "+x.rule(f.EmptyRule, false)+".")
	}
	if f.RestRule != "" {
		desc = append(desc, "Major 1 but otherwise malformed: "+x.rule(f.RestRule, false)+".")
	}
	for _, b := range f.Type.Bounds {
		if b.Ref != "" {
			desc = append(desc, fmt.Sprintf("Must be %s %s: checked by agentlint only (JSON Schema cannot compare two fields).", b.Op, b.Ref))
		}
	}
	s.set("description", strings.Join(desc, " "))
	x.typeInto(s, f.Type, rule)
	return s
}

// typeInto adds the keywords of t to s.
func (x *jsExporter) typeInto(s *jobj, t *Type, rule string) {
	var allOf []any
	if t.Kinds != fast.KAny {
		var types []any
		for _, p := range []struct {
			k fast.JSONType
			n string
		}{{fast.KString, "string"}, {fast.KNumber, "number"}, {fast.KInt, "integer"}, {fast.KFloat, "number"}, {fast.KBool, "boolean"}, {fast.KNull, "null"}, {fast.KObject, "object"}, {fast.KArray, "array"}} {
			if t.Kinds&p.k == p.k && (p.k != fast.KInt && p.k != fast.KFloat || t.Kinds&fast.KNumber != fast.KNumber) {
				types = append(types, p.n)
			}
		}
		if len(types) == 1 {
			s.set("type", types[0])
		} else {
			s.set("type", types)
		}
	}
	if t.Enum != nil && t.Kinds&fast.KString != 0 {
		vals := make([]any, 0, len(t.Enum)+1)
		for _, e := range t.Enum {
			vals = append(vals, e)
		}
		if t.Kinds&fast.KNull != 0 {
			vals = append(vals, nil)
		}
		if len(vals) == 1 {
			s.set("const", vals[0])
		} else {
			s.set("enum", vals)
		}
	}
	if t.MinRunes > 0 {
		s.set("minLength", t.MinRunes)
	}
	if t.MaxRunes >= 0 {
		s.set("maxLength", t.MaxRunes)
	}
	for _, p := range t.Patterns {
		if f := x.m.PatternFormat[p]; f != "" {
			s.set("format", f)
			break
		}
	}
	for i, p := range t.Patterns {
		if i == 0 {
			s.set("pattern", p)
			continue
		}
		ps := &jobj{}
		ps.set("pattern", p)
		allOf = append(allOf, ps)
	}
	ops := map[string]string{">=": "minimum", ">": "exclusiveMinimum", "<=": "maximum", "<": "exclusiveMaximum"}
	for _, b := range t.Bounds {
		if b.Ref != "" {
			continue
		}
		kw := ops[b.Op]
		if s.has(kw) {
			bs := &jobj{}
			bs.set(kw, jnum(b.Lit))
			allOf = append(allOf, bs)
			continue
		}
		s.set(kw, jnum(b.Lit))
	}
	if t.Elem != nil {
		it := &jobj{}
		x.typeInto(it, t.Elem, rule)
		s.set("items", it)
	}
	if t.MinItems > 0 {
		s.set("minItems", t.MinItems)
	}
	if t.MaxItems >= 0 {
		s.set("maxItems", t.MaxItems)
	}
	if o := t.Obj; o != nil {
		allOf = append(allOf, x.object(s, o, rule)...)
	}
	if len(allOf) > 0 {
		s.set("allOf", allOf)
	}
}

// object adds the keywords of o to s and returns its conditions as if/then
// schemas for allOf.
func (x *jsExporter) object(s *jobj, o *Object, rule string) []any {
	props, required := x.members(o.Fields, rule)
	if len(props.keys) > 0 {
		s.set("properties", props)
	}
	if len(required) > 0 {
		s.set("required", required)
	}
	if o.AllowX {
		pp := &jobj{}
		pp.set("^x_", true)
		s.set("patternProperties", pp)
	}
	var conds []any
	for _, cd := range o.Conds {
		ifs := &jobj{}
		if cd.Absent {
			nr := &jobj{}
			nr.set("required", []any{cd.Field})
			ifs.set("not", nr)
		} else {
			c := &jobj{}
			c.set("const", cd.Equals)
			p := &jobj{}
			p.set(cd.Field, c)
			ifs.set("properties", p)
			ifs.set("required", []any{cd.Field})
		}
		for _, cf := range cd.Fields {
			// A struct member declared both unconditionally and under a
			// condition: in the strict export the unconditional schema's
			// unevaluatedProperties would not see the members the then
			// branch adds (they are in another schema object).
			if u := o.Field(cf.Name); x.o.Strict && u != nil && cf.Type.Obj != nil && u.Type.Obj != nil &&
				!(u.Type.Obj.Open && cf.Type.Obj.Open) && x.err == nil {
				x.err = fmt.Errorf("member %s is a closed struct declared both unconditionally and when %s: not expressible in the strict export", cf.Name, cd)
			}
		}
		then := &jobj{}
		tp, treq := x.members(cd.Fields, rule)
		for _, ck := range cd.Checks {
			cs := &jobj{}
			cs.set("description", fmt.Sprintf("When %s: rule %s.", cd, x.ruleText(ck.Rule)))
			x.typeInto(cs, ck.Type, ck.Rule)
			if prev, ok := tp.get(ck.Ref); ok {
				both := &jobj{}
				both.set("allOf", []any{prev, cs})
				cs = both
			}
			tp.set(ck.Ref, cs)
		}
		if len(tp.keys) > 0 {
			then.set("properties", tp)
		}
		if len(treq) > 0 {
			then.set("required", treq)
		}
		c := &jobj{}
		c.set("if", ifs)
		c.set("then", then)
		conds = append(conds, c)
	}
	switch {
	case x.o.Strict && !o.Open:
		s.set("unevaluatedProperties", false)
	default:
		s.set("additionalProperties", true)
	}
	return conds
}

func (x *jsExporter) members(fs []*Field, rule string) (*jobj, []any) {
	props := &jobj{}
	var required []any
	for _, f := range fs {
		props.set(f.Name, x.field(f, rule))
		if f.Required {
			required = append(required, f.Name)
		}
	}
	return props, required
}

// jobj is a JSON object that keeps its members in insertion order.
type jobj struct {
	keys []string
	vals map[string]any
}

func (o *jobj) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jobj) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *jobj) has(k string) bool { _, ok := o.vals[k]; return ok }

// jnum is a JSON number written as its literal.
type jnum string

// writeJSON writes v indented; arrays of scalars stay on one line.
func writeJSON(b *bytes.Buffer, v any, ind string) error {
	switch v := v.(type) {
	case *jobj:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(ind + "  ")
			q, err := jsontext.AppendQuote(nil, k)
			if err != nil {
				return err
			}
			b.Write(q)
			b.WriteString(": ")
			if err := writeJSON(b, v.vals[k], ind+"  "); err != nil {
				return err
			}
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(ind + "}")
	case []any:
		scalars := true
		for _, e := range v {
			if _, ok := e.(*jobj); ok {
				scalars = false
			}
		}
		if scalars {
			b.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := writeJSON(b, e, ind); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			return nil
		}
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(ind + "  ")
			if err := writeJSON(b, e, ind+"  "); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(ind + "]")
	case string:
		q, err := jsontext.AppendQuote(nil, v)
		if err != nil {
			return err
		}
		b.Write(q)
	case jnum:
		b.WriteString(string(v))
	case int:
		fmt.Fprintf(b, "%d", v)
	case bool:
		fmt.Fprintf(b, "%t", v)
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("jsonschema: cannot write %T", v)
	}
	return nil
}
