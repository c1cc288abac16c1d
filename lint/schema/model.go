// Package schema compiles the CUE definitions of cue/*.cue into a small model
// of JSON types: the input of the fast-path generator (lint/schema/gen) and
// the map from CUE error paths to rules used by the CUE evaluator engine.
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
//     struct literals inside a check are regular-field, open structs (`...`).
//
// Field attributes: `@rule(ID)` names the registry rule of the field's value
// constraints; `@rule(ID,empty=ID2)` attributes an empty string or empty list
// to ID2 (CONTRACT.md section 3, MISSING_REQUIRED_INPUT for empty top-level
// strings and arrays); `@rule(ID,null=ID2)` attributes null in a required
// field to ID2 instead of AL002 (collector: the seed's JSON Schema makes null
// a wrong type, not an absent field); `@rule(ID,rest=ID2)` attributes to ID2
// the violations of a string that has the right type and matches the
// field's first pattern (a version whose major is known but whose rest is
// malformed, CONTRACT.md section 3 UNKNOWN_SCHEMA_VERSION).
package schema

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// JSONKind is a bit set of JSON value kinds. Int is a number written without
// fraction or exponent (CONTRACT.md section 4: 1200.0 is not an integer).
type JSONKind uint8

// The JSON kinds.
const (
	KString JSONKind = 1 << iota
	KInt
	KFloat
	KBool
	KNull
	KObject
	KArray

	KNumber = KInt | KFloat
	KAny    = KString | KNumber | KBool | KNull | KObject | KArray
)

// String names the kinds in k, e.g. "string|null".
func (k JSONKind) String() string {
	if k == KAny {
		return "any"
	}
	var parts []string
	for _, p := range []struct {
		k JSONKind
		n string
	}{{KString, "string"}, {KNumber, "number"}, {KInt, "integer"}, {KFloat, "float"}, {KBool, "boolean"}, {KNull, "null"}, {KObject, "object"}, {KArray, "array"}} {
		if k&p.k == p.k {
			parts = append(parts, p.n)
			k &^= p.k
		}
	}
	return strings.Join(parts, "|")
}

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
	Kinds    JSONKind
	Enum     []string // allowed strings; nil: any string
	Patterns []string // regular expressions every string must match
	MinRunes int
	MaxRunes int
	Bounds   []Bound
	Obj      *Object // for KObject; nil: any object
	Elem     *Type   // element type for KArray; nil: any element
	MinItems int
	MaxItems int
}

// Object is a struct: its fields in declaration order, whether x_ fields or
// any field are allowed, and the conditional checks.
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

// Cond is `if Field == Equals { checks }`.
type Cond struct {
	Field  string
	Equals string
	Checks []*Check
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
	c := &compiler{defs: map[string]ast.Expr{}, busy: map[string]bool{}}
	names, err := fs.Glob(fsys, "*.cue")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	type kdecl struct {
		kind, def, file string
	}
	var kinds []kdecl
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
	m := &Model{}
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

func top() *Type { return &Type{Kinds: KAny, MinRunes: -1, MaxRunes: -1, MinItems: -1, MaxItems: -1} }

func kindOnly(k JSONKind) *Type { t := top(); t.Kinds = k; return t }

// unify returns a & b.
func (c *compiler) unify(n ast.Node, a, b *Type) *Type {
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
	case b.Obj != nil:
		c.errorf(n, "unifying two struct literals is not supported")
	}
	switch {
	case a.Elem == nil:
		t.Elem = b.Elem
	case b.Elem != nil:
		t.Elem = c.unify(n, a.Elem, b.Elem)
	}
	if t.Kinds == 0 {
		c.errorf(n, "conjunction has no possible value")
	}
	return &t
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
			return kindOnly(KString)
		case "int":
			return kindOnly(KInt)
		case "number":
			return kindOnly(KNumber)
		case "bool":
			return kindOnly(KBool)
		case "null":
			return kindOnly(KNull)
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
			t := kindOnly(KString)
			t.Enum = []string{s}
			return t
		case token.NULL:
			return kindOnly(KNull)
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
		case t.Kinds == KNull:
			null = true
		case t.Kinds == KString && len(t.Enum) == 1 && len(t.Patterns) == 0 && t.MinRunes < 0 && t.MaxRunes < 0:
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
		t = kindOnly(KString)
		t.Enum = enum
	default:
		t = kindOnly(0)
	}
	if null {
		cp := *t
		cp.Kinds |= KNull
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
		t := kindOnly(KString)
		t.Patterns = []string{re}
		return t
	case token.GEQ, token.GTR, token.LEQ, token.LSS:
		t := kindOnly(KNumber)
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
		t := kindOnly(KString)
		t.MinRunes = n
		return t
	case "strings.MaxRunes":
		t := kindOnly(KString)
		t.MaxRunes = n
		return t
	case "list.MinItems":
		t := kindOnly(KArray)
		t.MinItems = n
		return t
	case "list.MaxItems":
		t := kindOnly(KArray)
		t.MaxItems = n
		return t
	}
	c.errorf(e, "unsupported builtin %s.%s", pkg.Name, name.Name)
	return top()
}

func (c *compiler) list(e *ast.ListLit, inCheck bool) *Type {
	t := kindOnly(KArray)
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
	t := kindOnly(KObject)
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
			o.Conds = append(o.Conds, c.cond(d))
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
			if f.RestRule != "" && (f.Type.Kinds&KString == 0 || len(f.Type.Patterns) < 2) {
				c.errorf(d, "@rule(...,rest=) needs a string with at least two patterns (the first decides the rule)")
			}
			o.Fields = append(o.Fields, f)
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
	for _, cd := range o.Conds {
		if !seen[cd.Field] {
			c.errorf(e, "condition on %s, which is not a field of the same struct", cd.Field)
		}
		for _, ck := range cd.Checks {
			if !seen[ck.Ref] {
				c.errorf(e, "check %s references %s, which is not a field of the same struct", ck.Name, ck.Ref)
			}
		}
	}
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
	if len(d.Clauses) != 1 {
		c.errorf(d, "only a single if clause is supported")
		return cd
	}
	ifc, ok := d.Clauses[0].(*ast.IfClause)
	if !ok {
		c.errorf(d, "only if clauses are supported")
		return cd
	}
	be, ok := ifc.Condition.(*ast.BinaryExpr)
	var id *ast.Ident
	var lit *ast.BasicLit
	if ok && be.Op == token.EQL {
		id, _ = be.X.(*ast.Ident)
		lit, _ = be.Y.(*ast.BasicLit)
	}
	if id == nil || lit == nil || lit.Kind != token.STRING {
		c.errorf(d, `only if f == "literal" conditions are supported`)
		return cd
	}
	cd.Field = id.Name
	cd.Equals, _ = literal.Unquote(lit.Value)
	body, ok := d.Value.(*ast.StructLit)
	if !ok {
		c.errorf(d, "if body must be a struct")
		return cd
	}
	for _, e := range body.Elts {
		f, ok := e.(*ast.Field)
		if !ok {
			c.errorf(e, "if body may hold only hidden check fields")
			continue
		}
		name, _, _ := ast.LabelName(f.Label)
		if !strings.HasPrefix(name, "_") {
			c.errorf(f, "if body may hold only hidden check fields (_name)")
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
