//go:build cueengine || devtools

// Package schema compiles the CUE definitions of cue/*.cue into a small model
// of JSON types: the input of the fast-path generator
// (lint/internal/devcmd/schemagen) and the map from CUE error paths to rules
// used by the CUE evaluator engine.
//
// The compiler accepts exactly the CUE subset the definitions use and fails
// loudly on anything else:
//
//   - top-level definitions `#Name: expr`; a struct definition that carries a
//     declaration attribute `@kind(family/record)` is the schema of that kind;
//   - struct literals whose fields are required (`f!:`) or optional (`f?:`),
//     with `[=~"^x_"]: _` (x_ extension fields), `[string]: _` or `...` (open);
//   - basic types string, int, number, bool, null and `_`; references to
//     definitions; string literals (enums) and `null | T`; `A & B`;
//   - `=~"re"`; `>=n`, `>n`, `<=n`, `<n`, where n is a number or a sibling field;
//   - strings.MinRunes(n), strings.MaxRunes(n), list.MinItems(n), list.MaxItems(n);
//   - lists `[...T]` and `[_, ...]` (one leading element: at least one item);
//   - `if f == "lit" { _h: f & T @rule(ID) }`: a hidden check of sibling f;
//     struct literals inside a check are regular-field, open structs (`...`);
//   - conditional fields: `if f == "lit" { g!: T @rule(ID); h?: U }` declares
//     g and h only when sibling f equals the literal; `if f != _|_ if f ==
//     "lit" { ... }` is the same condition guarded against an absent f (needed
//     when f is optional: CUE cannot compare an absent field), and
//     `if f == _|_ { ... }` holds when f is absent or invalid (CUE's bottom).
//     A field declared unconditionally and conditionally (or under several
//     conditions that hold together) has the unified constraints; two struct
//     literals unify as CUE does inside one definition: the fields of both,
//     open if either is open. The discriminator f is an unconditional scalar
//     field; the literal must satisfy its type.
//
// Field attributes: `@rule(ID)` names the registry rule of the field's value
// constraints; `@rule(ID,empty=ID2)` attributes an empty string or empty list
// to ID2 (README, Codes and precedence, MISSING_REQUIRED_INPUT for empty top-level
// strings and arrays); `@rule(ID,null=ID2)` attributes null in a required
// field to ID2 instead of AL002 (collector: the seed's JSON Schema makes null
// a wrong type, not an absent field); `@rule(ID,rest=ID2)` attributes to ID2
// the violations of a string that has the right type and matches the
// field's first pattern (a version whose major is known but whose rest is
// malformed, README, Codes and precedence UNKNOWN_SCHEMA_VERSION).
//
// Definition attributes: `@desc("...")` says what a one-pattern definition
// means (for reasons); `@format("date-time"|"uuid")` names the JSON Schema
// format the pattern refines (for the exported JSON Schema, JSONSchema).
package schema

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/agentlint/agentlint/lint/fast"
)

// Bound is a numeric bound: Op is one of ">=", ">", "<=", "<"; the limit is
// the literal Num or, when Ref is set, the value of sibling field Ref.
type Bound struct {
	Op  string
	Num float64
	Lit string
	Ref string
}

// Type is the model of one CUE value constraint over a JSON value.
// Unset limits are -1.
type Type struct {
	Kinds    fast.JSONType
	Enum     []string // allowed strings; nil: any string
	Patterns []string // regular expressions every string must match
	MinRunes int
	MaxRunes int
	Bounds   []Bound
	Obj      *Object // for fast.KObject; nil: any object
	Elem     *Type   // element type for fast.KArray; nil: any element
	MinItems int
	MaxItems int
}

// Object is a struct: its unconditional fields in declaration order,
// whether x_ fields or any field are allowed, and its conditions with their
// checks and conditional fields.
type Object struct {
	Fields []*Field
	AllowX bool
	Open   bool
	Conds  []*Cond
}

// Field is one declared field. Required is CUE's `!`; Regular marks the plain
// fields of check structs (absent: nothing to check). Rule, EmptyRule,
// NullRule and RestRule come from @rule (see the package doc).
type Field struct {
	Name      string
	Required  bool
	Regular   bool
	Type      *Type
	Rule      string
	EmptyRule string
	NullRule  string
	RestRule  string
}

// Cond is `if Field == Equals { checks and fields }`, or with Absent
// `if Field == _|_ { ... }`: it holds when Field is absent or its value is
// invalid (CUE's bottom), and otherwise not. Guarded marks the form
// `if Field != _|_ if Field == Equals`, which CUE evaluates when Field is
// absent; a literal condition holds exactly when Field is a string equal to
// Equals (the compiler checks that Equals satisfies Field's type).
type Cond struct {
	Field   string
	Equals  string
	Absent  bool
	Guarded bool
	Checks  []*Check
	Fields  []*Field
}

// same reports whether c and d always hold together (same field and value).
func (c *Cond) same(d *Cond) bool {
	return c.Field == d.Field && c.Absent == d.Absent && (c.Absent || c.Equals == d.Equals)
}

// String renders the condition for reasons: `status is "done"`, `event is absent`.
func (c *Cond) String() string {
	if c.Absent {
		return c.Field + " is absent"
	}
	return fmt.Sprintf("%s is %q", c.Field, c.Equals)
}

// Field returns the unconditional field named name, or nil.
func (o *Object) Field(name string) *Field {
	for _, f := range o.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Conditional reports whether o declares conditional fields.
func (o *Object) Conditional() bool {
	for _, cd := range o.Conds {
		if len(cd.Fields) > 0 {
			return true
		}
	}
	return false
}

// Names returns every member name o declares: the unconditional fields in
// declaration order, then the names declared only under conditions, in
// order of first declaration.
func (o *Object) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range o.Fields {
		seen[f.Name] = true
		out = append(out, f.Name)
	}
	for _, cd := range o.Conds {
		for _, f := range cd.Fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// CondDeclares reports whether some condition of o declares member name.
func (o *Object) CondDeclares(name string) bool {
	for _, cd := range o.Conds {
		for _, f := range cd.Fields {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

// FieldFor returns the declaration of member name that applies when the
// conditions i with holds[i] hold (holds may be shorter than o.Conds: the
// rest do not hold): the unconditional field unified with the declarations
// under every holding condition, in declaration order (a later @rule wins;
// required if any declaration is). It returns nil when name is not declared.
// Both engines use it, so they give a member the same type and rule.
func (o *Object) FieldFor(name string, holds []bool) (*Field, error) {
	f := o.Field(name)
	for i, cd := range o.Conds {
		if i >= len(holds) || !holds[i] {
			continue
		}
		for _, cf := range cd.Fields {
			if cf.Name == name {
				var err error
				if f, err = mergeField(f, cf); err != nil {
					return nil, fmt.Errorf("%s (when %s): %w", name, cd, err)
				}
			}
		}
	}
	return f, nil
}

// Variant is one way the conditions of an object can declare a member: On
// lists conditions that hold and Off conditions that do not, one
// representative per discriminator value (conditions on the same field and
// value hold together; two values of one field exclude each other, so a
// field with a holding value has no Off entries), Holds is the resulting truth value of every
// condition of the object as FieldFor takes it, and Field the member's
// declaration (nil: not declared, an unknown member).
type Variant struct {
	On, Off []int
	Holds   []bool
	Field   *Field
}

// MaxVariants bounds the variants of one conditional member.
const MaxVariants = 256

// Variants returns every variant of member name: for each discriminator
// whose conditions declare name, either one of its values holds or none
// does. The variant where none holds comes last. It fails when two
// declarations cannot be unified or there are more than MaxVariants.
func (o *Object) Variants(name string) ([]Variant, error) {
	// Representatives of the (field, value) pairs whose conditions declare
	// name, grouped by field in order of first appearance.
	var fields []string
	reps := map[string][]int{}
	for i, cd := range o.Conds {
		declares := false
		for _, f := range cd.Fields {
			if f.Name == name {
				declares = true
			}
		}
		if !declares {
			continue
		}
		dup := false
		for _, r := range reps[cd.Field] {
			if o.Conds[r].same(cd) {
				dup = true
			}
		}
		if dup {
			continue
		}
		if reps[cd.Field] == nil {
			fields = append(fields, cd.Field)
		}
		reps[cd.Field] = append(reps[cd.Field], i)
	}
	n := 1
	for _, f := range fields {
		n *= len(reps[f]) + 1
		if n > MaxVariants {
			return nil, fmt.Errorf("member %s has more than %d conditional variants", name, MaxVariants)
		}
	}
	out := make([]Variant, 0, n)
	// choice[j] is the index into reps[fields[j]] that holds, or len: none.
	choice := make([]int, len(fields))
	for k := 0; k < n; k++ {
		x := k
		for j := len(fields) - 1; j >= 0; j-- {
			m := len(reps[fields[j]]) + 1
			choice[j] = x % m
			x /= m
		}
		v := Variant{Holds: make([]bool, len(o.Conds))}
		for j, f := range fields {
			if choice[j] == len(reps[f]) {
				// No value of f holds.
				v.Off = append(v.Off, reps[f]...)
				continue
			}
			// The values of one field exclude each other: the holding
			// one decides.
			r := reps[f][choice[j]]
			v.On = append(v.On, r)
			for i, cd := range o.Conds {
				if cd.same(o.Conds[r]) {
					v.Holds[i] = true
				}
			}
		}
		var err error
		if v.Field, err = o.FieldFor(name, v.Holds); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	// Enumeration order puts "none holds" (every choice at its last value) last.
	return out, nil
}

// mergeField unifies two declarations of one member.
func mergeField(a, b *Field) (*Field, error) {
	if a == nil {
		return b, nil
	}
	f := *a
	f.Required = a.Required || b.Required
	if b.Rule != "" {
		f.Rule = b.Rule
	}
	if b.EmptyRule != "" {
		f.EmptyRule = b.EmptyRule
	}
	t, err := unifyTypes(a.Type, b.Type, true)
	if err != nil {
		return nil, err
	}
	f.Type = t
	return &f, nil
}

// mergeObject unifies two struct literals of one definition: CUE allows a
// member that either declares or either's pattern or `...` allows.
func mergeObject(a, b *Object) (*Object, error) {
	o := &Object{AllowX: a.AllowX || b.AllowX, Open: a.Open || b.Open}
	o.Conds = append(append([]*Cond(nil), a.Conds...), b.Conds...)
	for _, f := range a.Fields {
		if g := b.Field(f.Name); g != nil {
			m, err := mergeField(f, g)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			f = m
		}
		o.Fields = append(o.Fields, f)
	}
	for _, g := range b.Fields {
		if a.Field(g.Name) == nil {
			o.Fields = append(o.Fields, g)
		}
	}
	return o, nil
}

// Check is a hidden field `_Name: Ref & Type @rule(Rule)`: when its condition
// holds, the value of sibling Ref must satisfy Type; violations are reported
// at Ref's pointer under Rule.
type Check struct {
	Name string
	Ref  string
	Type *Type
	Rule string
}

// AcceptsScalar reports whether a scalar JSON value of kind k (one of
// KString, KInt, KFloat, KBool, KNull) with string content s, or number num
// whose JSON literal is s (compared exactly, see fast.CompareNumbers),
// satisfies t: kinds, enum, code-point lengths, patterns and literal bounds
// (sibling bounds are not checked). The CUE engine uses it to evaluate
// `f == _|_` on data; the fast path has the same check on raw JSON.
func (t *Type) AcceptsScalar(k fast.JSONType, s string, num float64) bool {
	if t.Kinds&k == 0 {
		return false
	}
	switch k {
	case fast.KString:
		return literalFits(t, s) == nil
	case fast.KInt, fast.KFloat:
		for _, b := range t.Bounds {
			fb := fast.Bound{Op: b.Op, Num: b.Num, Lit: b.Lit}
			if b.Ref == "" && !fb.Holds(num, []byte(s)) {
				return false
			}
		}
	}
	return true
}

// Kind is one record type: its name (family/record), its CUE definition and
// its compiled type.
type Kind struct {
	Name string
	Def  string
	Type *Type
}

// Model is the compiled package: every kind, sorted by name.
type Model struct {
	Kinds []*Kind
	// PatternDesc maps a regular expression to what it means, from the
	// `@desc("...")` attribute of the definition that consists of it
	// (`#DateTime: =~"..." @desc("an RFC 3339 date-time")`): reasons then
	// say `"x" is not an RFC 3339 date-time` instead of printing the regex.
	PatternDesc map[string]string
	// PatternFormat maps a regular expression to the JSON Schema format it
	// refines, from the `@format("...")` attribute of the definition that
	// consists of it (`#UUID: =~"..." @format("uuid")`): the exported JSON
	// Schema (JSONSchema) then says both, the format for editors and the
	// pattern where agentlint is stricter than the format.
	PatternFormat map[string]string
}

// Kind returns the kind named name, or nil.
func (m *Model) Kind(name string) *Kind {
	for _, k := range m.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

type compiler struct {
	condAt  map[*Cond]ast.Node // for error positions
	defs    map[string]ast.Expr
	busy    map[string]bool
	errs    []string
	curFile string
}

func (c *compiler) errorf(n ast.Node, format string, args ...any) {
	pos := ""
	if n != nil {
		p := n.Pos()
		pos = fmt.Sprintf("%s:%d:%d: ", c.curFile, p.Line(), p.Column())
	}
	c.errs = append(c.errs, pos+fmt.Sprintf(format, args...))
}

// Compile parses every .cue file of fsys (one package) and compiles the kinds.
// The error lists every unsupported construct with its position.
func Compile(fsys fs.FS) (*Model, error) {
	c := &compiler{defs: map[string]ast.Expr{}, busy: map[string]bool{}, condAt: map[*Cond]ast.Node{}}
	names, err := fs.Glob(fsys, "*.cue")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	type kdecl struct {
		kind, def, file string
	}
	var kinds []kdecl
	var descs [][2]string   // definition, @desc text
	var formats [][2]string // definition, @format name
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		c.curFile = name
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.Package, *ast.ImportDecl, *ast.CommentGroup:
			case *ast.Field:
				id, ok := d.Label.(*ast.Ident)
				if !ok || !strings.HasPrefix(id.Name, "#") {
					c.errorf(d, "only definitions are allowed at top level")
					continue
				}
				if _, dup := c.defs[id.Name]; dup {
					c.errorf(d, "definition %s declared twice", id.Name)
				}
				c.defs[id.Name] = d.Value
				for _, a := range d.Attrs {
					if k, v := a.Split(); k == "desc" {
						desc, err := literal.Unquote(strings.TrimSpace(v))
						if err != nil || desc == "" {
							c.errorf(a, "@desc needs one non-empty string literal")
						}
						descs = append(descs, [2]string{id.Name, desc})
					}
					if k, v := a.Split(); k == "format" {
						format, err := literal.Unquote(strings.TrimSpace(v))
						if err != nil || (format != "date-time" && format != "uuid") {
							c.errorf(a, `@format needs one string literal: "date-time" or "uuid"`)
						}
						formats = append(formats, [2]string{id.Name, format})
					}
				}
				if s, ok := d.Value.(*ast.StructLit); ok {
					for _, e := range s.Elts {
						if a, ok := e.(*ast.Attribute); ok {
							if k, v := a.Split(); k == "kind" {
								kinds = append(kinds, kdecl{strings.TrimSpace(v), id.Name, name})
							}
						}
					}
				}
			default:
				c.errorf(d, "unsupported top-level declaration %T", d)
			}
		}
	}
	m := &Model{PatternDesc: map[string]string{}, PatternFormat: map[string]string{}}
	for _, d := range formats {
		t := c.expr(c.defs[d[0]], false)
		if len(t.Patterns) != 1 {
			c.errorf(c.defs[d[0]], "@format is for a definition with exactly one regular expression; %s has %d", d[0], len(t.Patterns))
			continue
		}
		m.PatternFormat[t.Patterns[0]] = d[1]
	}
	for _, d := range descs {
		t := c.expr(c.defs[d[0]], false)
		if len(t.Patterns) != 1 {
			c.errorf(c.defs[d[0]], "@desc is for a definition with exactly one regular expression; %s has %d", d[0], len(t.Patterns))
			continue
		}
		m.PatternDesc[t.Patterns[0]] = d[1]
	}
	for _, k := range kinds {
		c.curFile = k.file
		t := c.expr(c.defs[k.def], false)
		m.Kinds = append(m.Kinds, &Kind{Name: k.kind, Def: k.def, Type: t})
	}
	sort.Slice(m.Kinds, func(i, j int) bool { return m.Kinds[i].Name < m.Kinds[j].Name })
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("unsupported CUE:\n  %s", strings.Join(c.errs, "\n  "))
	}
	return m, nil
}

func top() *Type {
	return &Type{Kinds: fast.KAny, MinRunes: -1, MaxRunes: -1, MinItems: -1, MaxItems: -1}
}

func kindOnly(k fast.JSONType) *Type { t := top(); t.Kinds = k; return t }

// unify returns a & b.
func (c *compiler) unify(n ast.Node, a, b *Type) *Type {
	t, err := unifyTypes(a, b, false)
	if err != nil {
		c.errorf(n, "%v", err)
		return a
	}
	return t
}

// unifyTypes returns a & b. Two struct literals unify only when structs is
// set (conditional declarations of one member, see mergeObject).
func unifyTypes(a, b *Type, structs bool) (*Type, error) {
	t := *a
	t.Kinds = a.Kinds & b.Kinds
	switch {
	case a.Enum == nil:
		t.Enum = b.Enum
	case b.Enum != nil:
		var e []string
		for _, x := range a.Enum {
			for _, y := range b.Enum {
				if x == y {
					e = append(e, x)
				}
			}
		}
		t.Enum = e
	}
	t.Patterns = append(append([]string(nil), a.Patterns...), b.Patterns...)
	t.Bounds = append(append([]Bound(nil), a.Bounds...), b.Bounds...)
	t.MinRunes = maxInt(a.MinRunes, b.MinRunes)
	t.MaxRunes = minLimit(a.MaxRunes, b.MaxRunes)
	t.MinItems = maxInt(a.MinItems, b.MinItems)
	t.MaxItems = minLimit(a.MaxItems, b.MaxItems)
	switch {
	case a.Obj == nil:
		t.Obj = b.Obj
	case b.Obj != nil && !structs:
		return nil, fmt.Errorf("unifying two struct literals is not supported")
	case b.Obj != nil:
		o, err := mergeObject(a.Obj, b.Obj)
		if err != nil {
			return nil, err
		}
		t.Obj = o
	}
	switch {
	case a.Elem == nil:
		t.Elem = b.Elem
	case b.Elem != nil:
		e, err := unifyTypes(a.Elem, b.Elem, structs)
		if err != nil {
			return nil, err
		}
		t.Elem = e
	}
	if t.Kinds == 0 {
		return nil, fmt.Errorf("conjunction has no possible value")
	}
	return &t, nil
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func minLimit(a, b int) int {
	if a < 0 {
		return b
	}
	if b < 0 || a < b {
		return a
	}
	return b
}

// expr compiles one expression. inCheck marks struct literals of checks.
func (c *compiler) expr(e ast.Expr, inCheck bool) *Type {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.expr(e.X, inCheck)
	case *ast.Ident:
		switch e.Name {
		case "_":
			return top()
		case "string":
			return kindOnly(fast.KString)
		case "int":
			return kindOnly(fast.KInt)
		case "number":
			return kindOnly(fast.KNumber)
		case "bool":
			return kindOnly(fast.KBool)
		case "null":
			return kindOnly(fast.KNull)
		}
		if strings.HasPrefix(e.Name, "#") {
			d, ok := c.defs[e.Name]
			if !ok {
				c.errorf(e, "undefined definition %s", e.Name)
				return top()
			}
			if c.busy[e.Name] {
				c.errorf(e, "recursive definition %s", e.Name)
				return top()
			}
			c.busy[e.Name] = true
			t := c.expr(d, inCheck)
			c.busy[e.Name] = false
			return t
		}
		c.errorf(e, "unsupported reference %s (sibling references are allowed only as bounds)", e.Name)
		return top()
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			s, err := literal.Unquote(e.Value)
			if err != nil {
				c.errorf(e, "bad string literal: %v", err)
			}
			t := kindOnly(fast.KString)
			t.Enum = []string{s}
			return t
		case token.NULL:
			return kindOnly(fast.KNull)
		}
		c.errorf(e, "unsupported literal %s", e.Value)
		return top()
	case *ast.BinaryExpr:
		switch e.Op {
		case token.AND:
			return c.unify(e, c.expr(e.X, inCheck), c.expr(e.Y, inCheck))
		case token.OR:
			return c.disjunction(e, inCheck)
		}
		c.errorf(e, "unsupported operator %s", e.Op)
		return top()
	case *ast.UnaryExpr:
		return c.unary(e)
	case *ast.CallExpr:
		return c.call(e)
	case *ast.ListLit:
		return c.list(e, inCheck)
	case *ast.StructLit:
		return c.structLit(e, inCheck)
	}
	c.errorf(e, "unsupported expression %T", e)
	return top()
}

func (c *compiler) disjunction(e *ast.BinaryExpr, inCheck bool) *Type {
	var branches []ast.Expr
	var flat func(x ast.Expr)
	flat = func(x ast.Expr) {
		if b, ok := x.(*ast.BinaryExpr); ok && b.Op == token.OR {
			flat(b.X)
			flat(b.Y)
			return
		}
		branches = append(branches, x)
	}
	flat(e)
	var enum []string
	null := false
	var other *Type
	for _, b := range branches {
		t := c.expr(b, inCheck)
		switch {
		case t.Kinds == fast.KNull:
			null = true
		case t.Kinds == fast.KString && len(t.Enum) == 1 && len(t.Patterns) == 0 && t.MinRunes < 0 && t.MaxRunes < 0:
			enum = append(enum, t.Enum[0])
		case other == nil:
			other = t
		default:
			c.errorf(b, "a disjunction may hold string literals, null and at most one other type")
		}
	}
	var t *Type
	switch {
	case other != nil && enum != nil:
		c.errorf(e, "a disjunction may not mix string literals with another type")
		t = other
	case other != nil:
		t = other
	case enum != nil:
		t = kindOnly(fast.KString)
		t.Enum = enum
	default:
		t = kindOnly(0)
	}
	if null {
		cp := *t
		cp.Kinds |= fast.KNull
		t = &cp
	}
	return t
}

func (c *compiler) unary(e *ast.UnaryExpr) *Type {
	switch e.Op {
	case token.MAT:
		lit, ok := e.X.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			c.errorf(e, "=~ needs a string literal")
			return top()
		}
		re, err := literal.Unquote(lit.Value)
		if err != nil {
			c.errorf(e, "bad regex literal: %v", err)
		}
		t := kindOnly(fast.KString)
		t.Patterns = []string{re}
		return t
	case token.GEQ, token.GTR, token.LEQ, token.LSS:
		t := kindOnly(fast.KNumber)
		b := Bound{Op: e.Op.String()}
		switch x := e.X.(type) {
		case *ast.BasicLit:
			if x.Kind != token.INT && x.Kind != token.FLOAT {
				c.errorf(e, "bound needs a number")
			}
			f, err := strconv.ParseFloat(x.Value, 64)
			if err != nil {
				c.errorf(e, "bad number %s", x.Value)
			}
			b.Num, b.Lit = f, x.Value
		case *ast.Ident:
			if strings.HasPrefix(x.Name, "#") || strings.HasPrefix(x.Name, "_") {
				c.errorf(e, "a bound may reference only a sibling field")
			}
			b.Ref = x.Name
		default:
			c.errorf(e, "unsupported bound operand %T", x)
		}
		t.Bounds = []Bound{b}
		return t
	}
	c.errorf(e, "unsupported unary operator %s", e.Op)
	return top()
}

func (c *compiler) call(e *ast.CallExpr) *Type {
	sel, ok := e.Fun.(*ast.SelectorExpr)
	if !ok {
		c.errorf(e, "unsupported call")
		return top()
	}
	pkg, _ := sel.X.(*ast.Ident)
	name, _ := sel.Sel.(*ast.Ident)
	if pkg == nil || name == nil || len(e.Args) != 1 {
		c.errorf(e, "unsupported call")
		return top()
	}
	lit, ok := e.Args[0].(*ast.BasicLit)
	var n int
	if ok && lit.Kind == token.INT {
		n, _ = strconv.Atoi(lit.Value)
	} else {
		c.errorf(e, "%s.%s needs an integer literal", pkg.Name, name.Name)
	}
	switch pkg.Name + "." + name.Name {
	case "strings.MinRunes":
		t := kindOnly(fast.KString)
		t.MinRunes = n
		return t
	case "strings.MaxRunes":
		t := kindOnly(fast.KString)
		t.MaxRunes = n
		return t
	case "list.MinItems":
		t := kindOnly(fast.KArray)
		t.MinItems = n
		return t
	case "list.MaxItems":
		t := kindOnly(fast.KArray)
		t.MaxItems = n
		return t
	}
	c.errorf(e, "unsupported builtin %s.%s", pkg.Name, name.Name)
	return top()
}

func (c *compiler) list(e *ast.ListLit, inCheck bool) *Type {
	t := kindOnly(fast.KArray)
	switch {
	case len(e.Elts) == 1:
		ell, ok := e.Elts[0].(*ast.Ellipsis)
		if !ok {
			c.errorf(e, "only [...T] and [_, ...] lists are supported")
			return t
		}
		if ell.Type != nil {
			t.Elem = c.expr(ell.Type, inCheck)
		}
	case len(e.Elts) == 2:
		first, ok1 := e.Elts[0].(*ast.Ident)
		ell, ok2 := e.Elts[1].(*ast.Ellipsis)
		if !ok1 || first.Name != "_" || !ok2 || ell.Type != nil {
			c.errorf(e, "only [...T] and [_, ...] lists are supported")
		}
		t.MinItems = 1
	default:
		c.errorf(e, "only [...T] and [_, ...] lists are supported")
	}
	return t
}

func (c *compiler) structLit(e *ast.StructLit, inCheck bool) *Type {
	t := kindOnly(fast.KObject)
	o := &Object{}
	t.Obj = o
	seen := map[string]bool{}
	for _, d := range e.Elts {
		switch d := d.(type) {
		case *ast.Attribute:
			if k, _ := d.Split(); k != "kind" {
				c.errorf(d, "unsupported declaration attribute @%s", k)
			}
		case *ast.CommentGroup:
		case *ast.Ellipsis:
			if d.Type != nil {
				c.errorf(d, "typed ... is not supported")
			}
			o.Open = true
		case *ast.Comprehension:
			if inCheck {
				c.errorf(d, "comprehensions inside checks are not supported")
				continue
			}
			if cd := c.cond(d); cd != nil {
				o.Conds = append(o.Conds, cd)
				c.condAt[cd] = d
			}
		case *ast.Field:
			switch l := d.Label.(type) {
			case *ast.ListLit:
				c.patternField(o, d, l)
				continue
			}
			name, _, err := ast.LabelName(d.Label)
			if err != nil || name == "" {
				c.errorf(d, "unsupported field label")
				continue
			}
			if strings.HasPrefix(name, "_") || strings.HasPrefix(name, "#") {
				c.errorf(d, "hidden fields and definitions are allowed only inside if-checks")
				continue
			}
			if seen[name] {
				c.errorf(d, "field %s declared twice", name)
			}
			seen[name] = true
			o.Fields = append(o.Fields, c.field(d, name, inCheck))
		default:
			c.errorf(d, "unsupported declaration %T", d)
		}
	}
	if inCheck && !o.Open {
		c.errorf(e, "struct literals inside checks must be open (...)")
	}
	// Sibling references in bounds must name fields of this struct.
	for _, f := range o.Fields {
		for _, b := range f.Type.Bounds {
			if b.Ref != "" && !seen[b.Ref] {
				c.errorf(e, "bound of %s references %s, which is not a field of the same struct", f.Name, b.Ref)
			}
		}
	}
	c.checkConds(e, o, seen)
	return t
}

func (c *compiler) patternField(o *Object, d *ast.Field, l *ast.ListLit) {
	if len(l.Elts) != 1 {
		c.errorf(d, "unsupported pattern constraint")
		return
	}
	if v, ok := d.Value.(*ast.Ident); !ok || v.Name != "_" {
		c.errorf(d, "pattern constraints must have value _")
	}
	switch p := l.Elts[0].(type) {
	case *ast.Ident:
		if p.Name == "string" {
			o.Open = true
			return
		}
	case *ast.UnaryExpr:
		if lit, ok := p.X.(*ast.BasicLit); ok && p.Op == token.MAT && lit.Value == `"^x_"` {
			o.AllowX = true
			return
		}
	}
	c.errorf(d, `only [=~"^x_"]: _ and [string]: _ pattern constraints are supported`)
}

func (c *compiler) fieldAttrs(f *Field, d *ast.Field) {
	for _, a := range d.Attrs {
		k, body := a.Split()
		if k != "rule" {
			c.errorf(a, "unsupported field attribute @%s", k)
			continue
		}
		for i, part := range strings.Split(body, ",") {
			part = strings.TrimSpace(part)
			switch {
			case i == 0 && !strings.Contains(part, "="):
				f.Rule = part
			case strings.HasPrefix(part, "empty="):
				f.EmptyRule = strings.TrimPrefix(part, "empty=")
			case strings.HasPrefix(part, "null="):
				f.NullRule = strings.TrimPrefix(part, "null=")
			case strings.HasPrefix(part, "rest="):
				f.RestRule = strings.TrimPrefix(part, "rest=")
			default:
				c.errorf(a, "unsupported @rule argument %q", part)
			}
		}
	}
}

func (c *compiler) cond(d *ast.Comprehension) *Cond {
	cd := &Cond{}
	var ifs []*ast.IfClause
	for _, cl := range d.Clauses {
		ifc, ok := cl.(*ast.IfClause)
		if !ok {
			c.errorf(d, "only if clauses are supported")
			return nil
		}
		ifs = append(ifs, ifc)
	}
	bad := func() *Cond {
		c.errorf(d, `only if f == "literal", if f == _|_ and if f != _|_ if f == "literal" conditions are supported`)
		return nil
	}
	switch len(ifs) {
	case 1:
		f, op, lit, ok := condParts(ifs[0].Condition)
		switch {
		case ok && op == token.EQL && lit == nil:
			cd.Field, cd.Absent = f, true
		case ok && op == token.EQL:
			cd.Field = f
			cd.Equals, _ = literal.Unquote(lit.Value)
		default:
			return bad()
		}
	case 2:
		f1, op1, lit1, ok1 := condParts(ifs[0].Condition)
		f2, op2, lit2, ok2 := condParts(ifs[1].Condition)
		if !ok1 || !ok2 || op1 != token.NEQ || lit1 != nil || op2 != token.EQL || lit2 == nil || f1 != f2 {
			return bad()
		}
		cd.Field, cd.Guarded = f2, true
		cd.Equals, _ = literal.Unquote(lit2.Value)
	default:
		return bad()
	}
	body, ok := d.Value.(*ast.StructLit)
	if !ok {
		c.errorf(d, "if body must be a struct")
		return cd
	}
	names := map[string]bool{}
	for _, e := range body.Elts {
		f, ok := e.(*ast.Field)
		if !ok {
			if _, ok := e.(*ast.CommentGroup); !ok {
				c.errorf(e, "if body may hold only fields and hidden check fields")
			}
			continue
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil || name == "" {
			c.errorf(f, "unsupported field label")
			continue
		}
		if !strings.HasPrefix(name, "_") {
			c.condField(cd, f, name, names)
			continue
		}
		// _name: ref & T & ...
		var conj []ast.Expr
		var flat func(x ast.Expr)
		flat = func(x ast.Expr) {
			if b, ok := x.(*ast.BinaryExpr); ok && b.Op == token.AND {
				flat(b.X)
				flat(b.Y)
				return
			}
			conj = append(conj, x)
		}
		flat(f.Value)
		ref, ok := conj[0].(*ast.Ident)
		if !ok || strings.HasPrefix(ref.Name, "#") || len(conj) < 2 {
			c.errorf(f, "a check must be `sibling & constraint`")
			continue
		}
		t := top()
		for _, x := range conj[1:] {
			t = c.unify(x, t, c.expr(x, true))
		}
		ck := &Check{Name: name, Ref: ref.Name, Type: t}
		tmp := &Field{}
		c.fieldAttrs(tmp, f)
		ck.Rule = tmp.Rule
		if ck.Rule == "" {
			c.errorf(f, "a check needs @rule(ID)")
		}
		cd.Checks = append(cd.Checks, ck)
	}
	return cd
}

// condParts splits `f == "lit"`, `f == _|_` or `f != _|_` (lit nil for _|_).
func condParts(e ast.Expr) (field string, op token.Token, lit *ast.BasicLit, ok bool) {
	be, isBin := e.(*ast.BinaryExpr)
	if !isBin || (be.Op != token.EQL && be.Op != token.NEQ) {
		return "", 0, nil, false
	}
	id, isID := be.X.(*ast.Ident)
	if !isID || strings.HasPrefix(id.Name, "#") || strings.HasPrefix(id.Name, "_") {
		return "", 0, nil, false
	}
	switch y := be.Y.(type) {
	case *ast.BottomLit:
		return id.Name, be.Op, nil, true
	case *ast.BasicLit:
		if y.Kind == token.STRING && be.Op == token.EQL {
			return id.Name, be.Op, y, true
		}
	}
	return "", 0, nil, false
}

// condField compiles one conditional field declaration of cd.
func (c *compiler) condField(cd *Cond, d *ast.Field, name string, names map[string]bool) {
	if strings.HasPrefix(name, "#") {
		c.errorf(d, "definitions are not allowed inside if bodies")
		return
	}
	if names[name] {
		c.errorf(d, "field %s declared twice in one if body", name)
	}
	names[name] = true
	f := c.field(d, name, false)
	for _, b := range f.Type.Bounds {
		if b.Ref != "" {
			c.errorf(d, "conditional field %s: sibling bounds are not supported in conditional fields", name)
		}
	}
	cd.Fields = append(cd.Fields, f)
}

// field compiles one field declaration d named name, of a struct literal or
// of an if body: its type, required (!) or optional (?) — plain fields only
// inside checks (inCheck), where they are Regular — and its @rule attribute,
// whose null= and rest= parts must fit the field.
func (c *compiler) field(d *ast.Field, name string, inCheck bool) *Field {
	f := &Field{Name: name, Type: c.expr(d.Value, inCheck)}
	switch d.Constraint {
	case token.NOT:
		f.Required = true
	case token.OPTION:
	default:
		if !inCheck {
			c.errorf(d, "field %s must be required (!) or optional (?)", name)
		}
		f.Regular = true
	}
	c.fieldAttrs(f, d)
	if f.NullRule != "" && !f.Required {
		c.errorf(d, "@rule(...,null=) needs a required (!) field: null in an optional field is a wrong type")
	}
	if f.RestRule != "" && (f.Type.Kinds&fast.KString == 0 || len(f.Type.Patterns) < 2) {
		c.errorf(d, "@rule(...,rest=) needs a string with at least two patterns (the first decides the rule)")
	}
	return f
}

// checkConds validates the conditions of a struct literal at e against its
// unconditional fields (seen).
func (c *compiler) checkConds(e ast.Node, o *Object, seen map[string]bool) {
	discr := map[string]bool{}
	for _, cd := range o.Conds {
		discr[cd.Field] = true
	}
	at := func(cd *Cond) ast.Node {
		if n := c.condAt[cd]; n != nil {
			return n
		}
		return e
	}
	for _, cd := range o.Conds {
		f := o.Field(cd.Field)
		if f == nil {
			c.errorf(at(cd), "condition on %s, which is not an unconditional field of the same struct", cd.Field)
			continue
		}
		t := f.Type
		if t.Obj != nil || t.Elem != nil || t.Kinds&(fast.KObject|fast.KArray) != 0 {
			c.errorf(at(cd), "condition on %s, which is not a scalar field", cd.Field)
		}
		for _, b := range t.Bounds {
			if b.Ref != "" {
				c.errorf(at(cd), "condition on %s, whose type has a sibling bound", cd.Field)
			}
		}
		if !cd.Absent {
			if err := literalFits(t, cd.Equals); err != nil {
				c.errorf(at(cd), "condition %s: the literal does not satisfy the type of %s: %v", cd, cd.Field, err)
			}
		}
		for _, ck := range cd.Checks {
			if !seen[ck.Ref] {
				c.errorf(at(cd), "check %s references %s, which is not an unconditional field of the same struct", ck.Name, ck.Ref)
			}
		}
		for _, cf := range cd.Fields {
			if discr[cf.Name] {
				c.errorf(at(cd), "conditional field %s is the discriminator of a condition", cf.Name)
			}
		}
	}
	// CUE cannot compare an absent field: a literal condition on a field
	// that may be absent needs the guard, or its struct is incomplete.
	for _, cd := range o.Conds {
		if cd.Absent || cd.Guarded {
			continue
		}
		f := o.Field(cd.Field)
		if f == nil {
			continue
		}
		hasAbsent := false
		for _, x := range o.Conds {
			if x.Field == cd.Field && x.Absent {
				hasAbsent = true
			}
		}
		if !f.Required || hasAbsent {
			c.errorf(at(cd), "condition %s on a field that may be absent must be guarded: if %s != _|_ if %s == %q", cd, cd.Field, cd.Field, cd.Equals)
		}
	}
	for _, f := range o.Fields {
		for _, b := range f.Type.Bounds {
			if b.Ref != "" && o.CondDeclares(b.Ref) {
				c.errorf(e, "bound of %s references %s, which is declared conditionally", f.Name, b.Ref)
			}
		}
	}
	for _, name := range o.Names() {
		if o.CondDeclares(name) {
			if _, err := o.Variants(name); err != nil {
				c.errorf(e, "%v", err)
			}
		}
	}
	if n := len(o.Names()); n > 64 {
		c.errorf(e, "struct with %d members: at most 64 are supported", n)
	}
}

// literalFits reports why string s is not a value of t (nil if it is).
func literalFits(t *Type, s string) error {
	if t.Kinds&fast.KString == 0 {
		return fmt.Errorf("not a string field")
	}
	if t.Enum != nil {
		found := false
		for _, e := range t.Enum {
			if e == s {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("not one of %q", t.Enum)
		}
	}
	n := utf8.RuneCountInString(s)
	if (t.MinRunes >= 0 && n < t.MinRunes) || (t.MaxRunes >= 0 && n > t.MaxRunes) {
		return fmt.Errorf("length %d out of bounds", n)
	}
	for _, p := range t.Patterns {
		re, err := compileRegex(p)
		if err != nil {
			return err
		}
		if !re.MatchString(s) {
			return fmt.Errorf("does not match %s", p)
		}
	}
	return nil
}

var regexCache sync.Map // source → *regexp.Regexp

func compileRegex(src string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(src); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	regexCache.Store(src, re)
	return re, nil
}

// Rules returns every rule ID the model references, sorted.
func (m *Model) Rules() []string {
	set := map[string]bool{}
	var walk func(t *Type)
	walk = func(t *Type) {
		if t == nil {
			return
		}
		walk(t.Elem)
		if t.Obj == nil {
			return
		}
		for _, f := range t.Obj.Fields {
			for _, r := range []string{f.Rule, f.EmptyRule, f.NullRule, f.RestRule} {
				if r != "" {
					set[r] = true
				}
			}
			walk(f.Type)
		}
		for _, cd := range t.Obj.Conds {
			for _, ck := range cd.Checks {
				set[ck.Rule] = true
				walk(ck.Type)
			}
			for _, f := range cd.Fields {
				for _, r := range []string{f.Rule, f.EmptyRule} {
					if r != "" {
						set[r] = true
					}
				}
				walk(f.Type)
			}
		}
	}
	for _, k := range m.Kinds {
		walk(k.Type)
	}
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Family returns the family of a kind name ("operator/result" → "operator").
func Family(kind string) string { return path.Dir(kind) }
