//go:build cueengine || devtools

// Package cueeval is the reference engine behind `--engine cue`: it validates
// a JSON payload by unifying it with the kind's CUE definition (cue/*.cue)
// in the CUE evaluator, and maps CUE's errors to the same violations the
// generated fast path (lint/fast) reports: rule, RFC 6901 pointer, reason and
// best-effort line and column. Codes and severities are left to the caller,
// which fills them from the rule registry.
//
// The fast path is generated from the same definitions, so the two engines
// must agree on every payload: same set of error pointers and same primary
// code. agreement_test.go checks that on every test payload, the conformance
// inputs, a systematic mutation corpus and a fuzz target.
//
// Two properties of the CUE evaluator shape the engine:
//
//   - CUE suppresses some errors when the same value has another error: a
//     conflict hides "field is required but not present" and "field not
//     allowed" of the same struct; a list validator (list.MaxItems) stops at
//     the first bad element; an absent check condition (`if status ==
//     "done"` without status) marks the whole struct incomplete and hides
//     everything in it. The engine therefore validates repeatedly: after each
//     pass it records the errors, then changes the data so that they cannot
//     mask anything: a member with an error is deleted, a list element is
//     replaced by top `_` (indices and lengths stay), and a check condition
//     (absent, invalid, or guarding a failed check) gets a neutral value
//     that turns its checks off (status: "blocked"). It validates again
//     until a pass changes nothing. Errors that merely result from these
//     changes (at or under a changed path, incomplete values of references
//     to a deleted member) are ignored.
//   - Conditional fields (`if event_type == "mail.sent" { data!: {...} }`)
//     are reported by CUE at their own path; the engine gives them the
//     declaration that applies to the data (schema.Object.FieldFor with the
//     conditions evaluated on the current data, as the fast path's variants
//     do). A discriminator with an error is deleted when its conditions are
//     guarded (`if f != _|_ if f == "lit"`) or on absence (`if f == _|_`,
//     which then holds, as CUE's bottom includes errors); the discriminator
//     of an unguarded condition gets a neutral value instead (an enum value
//     or a string no condition names), since deleting it would mark its
//     struct incomplete.
//   - Hidden check fields (`if status == "done" { _acceptance: acceptance_check
//     & ... @rule(OP020) }`) are reported by CUE at the hidden field; the
//     engine reports them at the referenced sibling under the check's rule.
//
// The model compiled by lint/schema from the same files maps an error path
// to its rule (the field's @rule, AL003 by default, inherited by list
// elements; the check's rule inside a check), exactly as the fast-path
// generator does: required and absent or null is AL002, an unknown member in
// strict mode AL004, an empty string or list of a field with
// @rule(ID,empty=ID2) is ID2.
package cueeval

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/schema"
)

// MaxPasses bounds the validate-and-remove iterations of one payload. Every
// pass removes at least one member or element, and each removal can unmask
// errors only inside the struct or list that held it, so real payloads need
// a handful of passes; the bound only protects against a runaway loop.
const MaxPasses = 64

// CUE's messages for the two error classes the engine maps to generic rules.
const (
	msgRequired   = "field is required but not present"
	msgNotAllowed = "field not allowed"
	msgRefMissing = "required field missing: %s"
)

// Engine is the CUE evaluator engine. It is safe for concurrent use: every
// goroutine borrows its own CUE context (CUE values built in one context must
// not be unified concurrently), compiled once per worker from the embedded
// definitions.
type Engine struct {
	model      *schema.Model
	kinds      map[string]*schema.Kind
	validators map[string]func(*fast.Dec)
	files      []srcFile
	pool       sync.Pool
}

type srcFile struct {
	name string
	src  []byte
}

// worker is one CUE context with the compiled definitions and a fast-path
// decoder used for the JSON syntax check.
type worker struct {
	ctx  *cue.Context
	defs map[string]cue.Value
	dec  *fast.Dec
}

// New compiles the embedded CUE package (cue/*.cue, package agentlint) into a
// CUE context, and the same files into the schema model used to map CUE's
// error paths to rules. It fails if either compilation fails or a kind of the
// model has no CUE definition.
func New() (*Engine, error) { return NewFrom(cuedefs.Files, fast.Validators) }

// NewFrom is New for the CUE package (package agentlint) in the *.cue files
// of fsys, whose fast-path validators (for the JSON syntax check and Has)
// are validators: the test schemas of lint/internal/fasttest use it.
func NewFrom(fsys fs.FS, validators map[string]func(*fast.Dec)) (*Engine, error) {
	m, err := schema.Compile(fsys)
	if err != nil {
		return nil, fmt.Errorf("cueeval: %w", err)
	}
	e := &Engine{model: m, kinds: map[string]*schema.Kind{}, validators: validators}
	for _, k := range m.Kinds {
		e.kinds[k.Name] = k
	}
	names, err := fs.Glob(fsys, "*.cue")
	if err != nil {
		return nil, fmt.Errorf("cueeval: %w", err)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("cueeval: %w", err)
		}
		e.files = append(e.files, srcFile{n, b})
	}
	w, err := e.newWorker()
	if err != nil {
		return nil, err
	}
	e.pool.Put(w)
	return e, nil
}

// Kinds returns the names of the kinds the engine validates, sorted.
func (e *Engine) Kinds() []string {
	out := make([]string, 0, len(e.model.Kinds))
	for _, k := range e.model.Kinds {
		out = append(out, k.Name)
	}
	return out
}

// Has reports whether the engine knows kind.
func (e *Engine) Has(kind string) bool { return e.kinds[kind] != nil && e.validators[kind] != nil }

// newWorker builds one CUE context holding the package. The files of one
// package are merged into a single file (one package clause, the union of
// the imports) and built with BuildFile; this needs neither a module nor
// cue/load. Each worker parses the sources itself: the compiler annotates the
// AST, so ASTs are never shared between contexts.
func (e *Engine) newWorker() (*worker, error) {
	merged := &ast.File{Filename: "agentlint.cue"}
	imports := &ast.ImportDecl{}
	seen := map[string]bool{}
	var decls []ast.Decl
	for _, f := range e.files {
		af, err := parser.ParseFile(f.name, f.src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("cueeval: %w", err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.Package:
			case *ast.ImportDecl:
				for _, s := range d.Specs {
					if !seen[s.Path.Value] {
						seen[s.Path.Value] = true
						imports.Specs = append(imports.Specs, s)
					}
				}
			default:
				decls = append(decls, d)
			}
		}
	}
	merged.Decls = append([]ast.Decl{&ast.Package{Name: ast.NewIdent("agentlint")}, imports}, decls...)
	ctx := cuecontext.New()
	v := ctx.BuildFile(merged)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("cueeval: compiling cue/*.cue: %w", err)
	}
	w := &worker{ctx: ctx, defs: map[string]cue.Value{}, dec: fast.NewDec()}
	for _, k := range e.model.Kinds {
		d := v.LookupPath(cue.ParsePath(k.Def))
		if !d.Exists() {
			return nil, fmt.Errorf("cueeval: kind %s: definition %s not found", k.Name, k.Def)
		}
		// A definition is incomplete on its own (a check's condition refers
		// to a required field); only real errors count.
		if err := d.Err(); err != nil && !cue.IsIncomplete(err) {
			return nil, fmt.Errorf("cueeval: kind %s: %w", k.Name, err)
		}
		w.defs[k.Name] = d
	}
	return w, nil
}

func (e *Engine) get() *worker {
	if w, ok := e.pool.Get().(*worker); ok {
		return w
	}
	w, err := e.newWorker()
	if err != nil {
		// New compiled the same sources successfully.
		panic(err)
	}
	return w
}

// Validate validates one JSON text raw of kind and returns its violations
// with Rule, Pointer, Reason, Line and Column (0 when unknown) set; Parse is
// set for a JSON syntax error, which is then the only violation. Code and
// Severity are not set. strict reports unknown members that are not x_
// extensions (AL004). Validate panics if the engine does not know kind (see
// Has), like the fast path.
func (e *Engine) Validate(kind string, raw []byte, strict bool) []envelope.Violation {
	return e.Schema(kind, raw, 1, strict)
}

// Schema is Validate for a JSON text whose first byte is on line line1 (a
// JSON Lines record); it has the signature of record.SchemaEngine.
func (e *Engine) Schema(kind string, raw []byte, line1 int, strict bool) []envelope.Violation {
	k := e.kinds[kind]
	fn := e.validators[kind]
	if k == nil || fn == nil {
		panic("cueeval: unknown kind " + strconv.Quote(kind))
	}
	w := e.get()
	defer e.pool.Put(w)

	// 1. JSON syntax: the fast path's reader decides, so both engines accept
	// and reject exactly the same texts (duplicate keys, invalid UTF-8, ...).
	w.dec.Strict = strict
	w.dec.Reset(raw, line1)
	w.dec.Validate(fn)
	var parse []envelope.Violation
	for _, v := range w.dec.Out {
		if v.Parse {
			parse = append(parse, v)
		}
	}
	if len(parse) > 0 {
		return parse
	}
	if vs := tooLarge(raw, line1); vs != nil {
		return vs
	}
	expr, err := cuejson.Extract("payload.json", raw)
	if err != nil {
		return []envelope.Violation{{Rule: fast.RuleSyntax, Parse: true, Line: line1, Column: 1,
			Reason: "invalid JSON: " + fast.DecodeError(err)}}
	}
	// 2. A payload that is not a JSON object (every kind is one): the fast
	// path's finding at the root ("must be object, not an array"). CUE's own
	// error for it names one of the definition's fields, garbles the value
	// ("%!v(PANIC=String method ...)" for an array) and, with --strict, adds
	// "field not allowed" for the array's elements (FuzzAgreement crasher
	// 18c7cb24).
	if _, isObject := expr.(*ast.StructLit); !isObject {
		return append([]envelope.Violation(nil), w.dec.Out...)
	}
	r := &run{kind: k, def: w.defs[kind], ctx: w.ctx, root: expr, strict: strict, line1: line1,
		found: map[findingKey]*finding{}}
	return r.validate()
}

// seg is one step of a data path: a member name, or an element index when
// idx >= 0.
type seg struct {
	name string
	idx  int
}

type path []seg

func (p path) pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
			continue
		}
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s.name))
	}
	return b.String()
}

// dotted renders p as CUE would, for reasons: task.lock_scope.0.
func (p path) dotted() string {
	parts := make([]string, len(p))
	for i, s := range p {
		if s.idx >= 0 {
			parts[i] = strconv.Itoa(s.idx)
		} else {
			parts[i] = s.name
		}
	}
	return strings.Join(parts, ".")
}

// hasPrefix reports whether q is p or a prefix of p.
func (p path) hasPrefix(q path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

type findingKey struct {
	pointer, rule string
}

type finding struct {
	path    path
	rule    string
	msgs    []string
	line    int
	column  int
	items   int // length of the list at path, or -1
	ordinal int
}

// run is the validation of one payload.
type run struct {
	kind    *schema.Kind
	def     cue.Value
	ctx     *cue.Context
	root    ast.Expr
	strict  bool
	line1   int
	removed []path
	found   map[findingKey]*finding
}

// place is what the model says about the value at a CUE error path.
type place struct {
	path      path
	typ       *schema.Type // nil: not declared (x_ member, open struct, ...)
	rule      string
	emptyRule string
	nullRule  string // @rule(...,null=): null in a required field
	restRule  string // @rule(...,rest=): the first pattern holds, the rest not
	required  bool
	inCheck   bool   // under a hidden check field
	checkObj  path   // the object holding the check
	checkCond string // the check's condition member
	declared  bool   // every step was declared by the model
	below     bool   // strictly below an undeclared member or element
}

// resolve maps a CUE error path (["#Result", "_acceptance", "0", "status"])
// to the data path and the model's rule for it, the way lint/schema/generate.go
// assigns rules: a field's @rule (AL003 by default) applies to its value and,
// through lists, to its elements; inside a check every value has the check's
// rule and nothing is required.
func (r *run) resolve(cp []string) (place, bool) {
	pl := place{typ: r.kind.Type, rule: schema.DefaultRule, required: true, declared: true}
	if len(cp) == 0 || cp[0] != r.kind.Def {
		return pl, false
	}
	for _, s := range cp[1:] {
		if !pl.declared {
			pl.below = true
		}
		switch {
		case strings.HasPrefix(s, "_"):
			// A hidden check field: reported at the sibling it constrains.
			var ck *schema.Check
			if pl.typ != nil && pl.typ.Obj != nil {
				for _, cd := range pl.typ.Obj.Conds {
					for _, c := range cd.Checks {
						if c.Name == s {
							ck = c
							pl.checkCond = cd.Field
						}
					}
				}
			}
			if ck == nil {
				return pl, false
			}
			pl.checkObj = append(path(nil), pl.path...)
			pl.path = append(pl.path, seg{name: ck.Ref, idx: -1})
			pl.typ, pl.rule, pl.emptyRule, pl.required, pl.inCheck = ck.Type, ck.Rule, "", false, true
			pl.nullRule, pl.restRule = "", ""
		case isIndex(s):
			i, _ := strconv.Atoi(s)
			pl.path = append(pl.path, seg{idx: i})
			if pl.typ != nil {
				pl.typ = pl.typ.Elem
			}
			pl.emptyRule, pl.nullRule, pl.restRule, pl.required = "", "", "", false
			if pl.typ == nil {
				pl.declared = false
			}
		default:
			name := s
			if strings.HasPrefix(s, `"`) {
				u, err := literal.Unquote(s)
				if err != nil {
					return pl, false
				}
				name = u
			} else if strings.HasPrefix(s, "#") {
				return pl, false
			}
			var f *schema.Field
			if pl.typ != nil && pl.typ.Obj != nil {
				f = r.fieldOf(pl.path, pl.typ.Obj, name)
			}
			pl.path = append(pl.path, seg{name: name, idx: -1})
			pl.nullRule, pl.restRule = "", ""
			if f == nil {
				pl.typ, pl.rule, pl.emptyRule, pl.required, pl.declared = nil, schema.DefaultRule, "", false, false
				continue
			}
			pl.typ = f.Type
			if pl.inCheck {
				pl.emptyRule, pl.required = "", false
				continue
			}
			pl.rule, pl.emptyRule, pl.required = f.Rule, f.EmptyRule, f.Required
			pl.nullRule, pl.restRule = f.NullRule, f.RestRule
			if pl.rule == "" {
				pl.rule = schema.DefaultRule
			}
		}
	}
	return pl, true
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// lookup returns the value at the longest prefix of p that exists in the
// current (partly removed) data, and that prefix's length: n == len(p) when
// the value at p exists.
func (r *run) lookup(p path) (v ast.Expr, n int) {
	v = r.root
	for i, s := range p {
		var next ast.Expr
		switch x := v.(type) {
		case *ast.StructLit:
			if s.idx < 0 {
				if f := member(x, s.name); f != nil {
					next = f.Value
				}
			}
		case *ast.ListLit:
			if s.idx >= 0 && s.idx < len(x.Elts) {
				next = x.Elts[s.idx]
			}
		}
		if next == nil {
			return v, i
		}
		v = next
	}
	return v, len(p)
}

func member(s *ast.StructLit, name string) *ast.Field {
	for _, d := range s.Elts {
		if f, ok := d.(*ast.Field); ok && labelName(f.Label) == name {
			return f
		}
	}
	return nil
}

func labelName(l ast.Label) string {
	switch l := l.(type) {
	case *ast.Ident:
		return l.Name
	case *ast.BasicLit:
		if s, err := literal.Unquote(l.Value); err == nil {
			return s
		}
		return l.Value
	}
	name, _, _ := ast.LabelName(l)
	return name
}

// remove deletes the member at p from its object, or replaces the element at
// p by top `_` (indices and list lengths stay as they were). It reports
// whether something was removed.
func (r *run) remove(p path) bool {
	if len(p) == 0 {
		return false
	}
	for _, q := range r.removed {
		if p.hasPrefix(q) {
			return false
		}
	}
	parent, n := r.lookup(p[:len(p)-1])
	if n != len(p)-1 {
		return false
	}
	last := p[len(p)-1]
	if t := r.typeAt(p[:len(p)-1]); last.idx < 0 && t != nil && t.Obj != nil && needsNeutral(t.Obj, last.name) {
		// Deleting the discriminator of an unguarded condition would mark
		// its struct incomplete. (A guarded or absent condition is
		// evaluated without it: the member is deleted, as CUE's `f == _|_`
		// holds for an invalid f as for an absent one.)
		if r.neutralize(p[:len(p)-1], last.name) {
			return true
		}
	}
	switch x := parent.(type) {
	case *ast.StructLit:
		for i, d := range x.Elts {
			if f, ok := d.(*ast.Field); ok && labelName(f.Label) == last.name && last.idx < 0 {
				x.Elts = append(x.Elts[:i:i], x.Elts[i+1:]...)
				r.removed = append(r.removed, p)
				return true
			}
		}
	case *ast.ListLit:
		if last.idx >= 0 && last.idx < len(x.Elts) {
			x.Elts[last.idx] = ast.NewIdent("_")
			r.removed = append(r.removed, p)
			return true
		}
	}
	return false
}

func (r *run) underRemoved(p path) bool {
	for _, q := range r.removed {
		if p.hasPrefix(q) {
			return true
		}
	}
	return false
}

func (r *run) validate() []envelope.Violation {
	for pass := 0; pass < MaxPasses; pass++ {
		v := r.def.Unify(r.ctx.BuildExpr(r.root))
		err := v.Validate(cue.Concrete(true), cue.All(), cue.Hidden(true))
		if err == nil {
			break
		}
		// Record every error of the pass first, then change the data: the
		// errors of one pass are judged on the data they were found in.
		var todo []action
		for _, e := range errors.Errors(err) {
			if a, ok := r.add(e); ok {
				todo = append(todo, a)
			}
		}
		progress := false
		for _, a := range todo {
			if a.insert != "" {
				progress = r.neutralize(a.path, a.insert) || progress
			} else {
				progress = r.remove(a.path) || progress
			}
		}
		if !progress {
			break
		}
	}
	return r.violations()
}

// action is the change of the data an error calls for: remove the value at
// path, or (insert != "") give the absent condition member insert of the
// object at path a neutral value.
type action struct {
	path   path
	insert string
}

// add records one CUE error as a finding (unless it is a consequence of an
// earlier removal or a non-strict unknown member) and returns the change of
// the data that unmasks the errors it may hide.
func (r *run) add(e errors.Error) (action, bool) {
	format, args := e.Msg()
	msg := fmt.Sprintf(format, args...)
	pl, ok := r.resolve(e.Path())
	if !ok {
		// A path outside the definition: report it at the root rather than
		// lose it.
		r.record(place{rule: schema.DefaultRule}, msg)
		return action{}, false
	}
	if r.underRemoved(pl.path) {
		return action{}, false
	}
	// The value of an unknown member is not constrained; CUE reports its
	// members as not allowed too, but only the unknown member counts.
	if pl.below {
		return action{}, false
	}
	// Inside a check only the check's own constraints count: a member the
	// check does not declare carries the main definition's constraints,
	// which are reported at the same pointer outside the check.
	if pl.inCheck && !pl.declared {
		return action{}, false
	}
	switch {
	case msg == msgRequired:
		pl.rule = fast.RuleRequired
		r.record(pl, msg)
		return action{}, false
	case msg == msgNotAllowed:
		if r.strict {
			pl.rule = fast.RuleUnknown
			r.record(pl, msg)
		}
	case format == msgRefMissing && len(args) == 1:
		// A reference to an absent member. For the condition of a check
		// (`if status == "done"`), CUE marks the whole struct incomplete and
		// reports nothing else in it: report the absent member if it is
		// required, and give it a neutral value for the next pass. For a
		// bound's sibling (`<timeout_seconds`) the sibling's own absence is
		// reported separately.
		name := fmt.Sprint(args[0])
		if pl.typ == nil || pl.typ.Obj == nil || !isCondField(pl.typ.Obj, name) || pl.inCheck {
			return action{}, false
		}
		mp := append(append(path(nil), pl.path...), seg{name: name, idx: -1})
		if r.underRemoved(mp) {
			return action{}, false
		}
		if f := field(pl.typ.Obj, name); f != nil && f.Required {
			mpl := pl
			mpl.path, mpl.rule = mp, fast.RuleRequired
			r.record(mpl, msgRequired)
		}
		return action{path: pl.path, insert: name}, true
	case cue.IsIncomplete(e):
		// Data is concrete: an incomplete value is a reference to something
		// removed (a bound's sibling, a check's condition).
	default:
		val, n := r.lookup(pl.path)
		exists := n == len(pl.path)
		switch {
		case exists && isNull(val) && pl.required && pl.nullRule != "":
			pl.rule = pl.nullRule
		case exists && isNull(val) && pl.required:
			pl.rule = fast.RuleRequired
		case exists && pl.emptyRule != "" && pl.typ != nil && isEmpty(val, pl.typ):
			pl.rule = pl.emptyRule
		case exists && pl.restRule != "" && pl.typ != nil && matchesFirst(val, pl.typ):
			pl.rule = pl.restRule
		}
		r.record(pl, msg)
	}
	if pl.inCheck {
		// A failed check masks required and unknown members of the struct
		// that holds it. Its errors are recorded: turn it off by giving its
		// condition a neutral value. The referenced value stays, since the
		// main definition checks it too.
		return action{path: pl.checkObj, insert: pl.checkCond}, true
	}
	return action{path: pl.path}, true
}

func isCondField(o *schema.Object, name string) bool {
	for _, cd := range o.Conds {
		if cd.Field == name {
			return true
		}
	}
	return false
}

// needsNeutral reports whether name is the discriminator of an unguarded
// literal condition of o (`if name == "lit"`).
func needsNeutral(o *schema.Object, name string) bool {
	for _, cd := range o.Conds {
		if cd.Field == name && !cd.Absent && !cd.Guarded {
			return true
		}
	}
	return false
}

func field(o *schema.Object, name string) *schema.Field { return o.Field(name) }

// fieldOf is the declaration of member name of the object o at data path p
// that applies to the data: conditional declarations count when their
// condition holds on the current data (schema.Object.FieldFor, as the fast
// path's variants).
func (r *run) fieldOf(p path, o *schema.Object, name string) *schema.Field {
	if !o.CondDeclares(name) {
		return o.Field(name)
	}
	f, err := o.FieldFor(name, r.holds(p, o))
	if err != nil {
		// The compiler unified every variant already.
		return o.Field(name)
	}
	return f
}

// holds evaluates the conditions of the object o at data path p: a literal
// condition holds when the discriminator is a string equal to the literal,
// an absent condition when the discriminator is absent or not a valid value
// of its type (CUE's `f == _|_`).
func (r *run) holds(p path, o *schema.Object) []bool {
	hs := make([]bool, len(o.Conds))
	obj, n := r.lookup(p)
	st, ok := obj.(*ast.StructLit)
	for i, cd := range o.Conds {
		var v ast.Expr
		if ok && n == len(p) {
			if m := member(st, cd.Field); m != nil {
				v = m.Value
			}
		}
		if cd.Absent {
			f := o.Field(cd.Field)
			hs[i] = v == nil || f == nil || !scalarOK(f.Type, v)
			continue
		}
		s, isStr := stringLit(v)
		hs[i] = isStr && s == cd.Equals
	}
	return hs
}

func stringLit(v ast.Expr) (string, bool) {
	b, ok := v.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := literal.Unquote(b.Value)
	return s, err == nil
}

// scalarOK reports whether the data value v satisfies the scalar type t.
func scalarOK(t *schema.Type, v ast.Expr) bool {
	b, ok := v.(*ast.BasicLit)
	if !ok {
		return false
	}
	switch b.Kind {
	case token.STRING:
		s, err := literal.Unquote(b.Value)
		return err == nil && t.AcceptsScalar(fast.KString, s, 0)
	case token.INT, token.FLOAT:
		k := fast.KInt
		if strings.ContainsAny(b.Value, ".eE") {
			k = fast.KFloat
		}
		f, err := strconv.ParseFloat(b.Value, 64)
		return err == nil && t.AcceptsScalar(k, b.Value, f)
	case token.TRUE, token.FALSE:
		return t.AcceptsScalar(fast.KBool, "", 0)
	case token.NULL:
		return t.AcceptsScalar(fast.KNull, "", 0)
	}
	return false
}

// typeAt is the model's type of the data at p (checks aside), or nil.
func (r *run) typeAt(p path) *schema.Type {
	t := r.kind.Type
	for i, s := range p {
		if t == nil {
			return nil
		}
		if s.idx >= 0 {
			t = t.Elem
			continue
		}
		if t.Obj == nil {
			return nil
		}
		f := r.fieldOf(p[:i], t.Obj, s.name)
		if f == nil {
			return nil
		}
		t = f.Type
	}
	return t
}

// neutralValue is a valid value of condition member name of o that meets
// none of its conditions (status: "blocked" for `if status == "done"`), so
// that the checks and fields it guards are off and nothing in the struct is
// masked: an enum value no condition names, or else a string derived from
// the literals that the type accepts.
func neutralValue(o *schema.Object, name string) (string, bool) {
	f := field(o, name)
	if f == nil || f.Type == nil {
		return "", false
	}
	named := func(v string) bool {
		for _, cd := range o.Conds {
			if cd.Field == name && !cd.Absent && cd.Equals == v {
				return true
			}
		}
		return false
	}
	for _, v := range f.Type.Enum {
		if !named(v) {
			return v, true
		}
	}
	if f.Type.Enum != nil {
		return "", false
	}
	cands := []string{"neutral", "x", ""}
	for _, cd := range o.Conds {
		if cd.Field == name && !cd.Absent {
			cands = append(cands, cd.Equals+"x", "x"+cd.Equals, cd.Equals+"_x")
		}
	}
	for _, v := range cands {
		if !named(v) && f.Type.AcceptsScalar(fast.KString, v, 0) {
			return v, true
		}
	}
	return "", false
}

// neutralize sets condition member name of the object at p to its neutral
// value (adding the member when it is absent) and marks it removed.
func (r *run) neutralize(p path, name string) bool {
	mp := append(append(path(nil), p...), seg{name: name, idx: -1})
	if r.underRemoved(mp) {
		return false
	}
	obj, n := r.lookup(p)
	st, ok := obj.(*ast.StructLit)
	t := r.typeAt(p)
	if n != len(p) || !ok || t == nil || t.Obj == nil {
		return false
	}
	v, ok := neutralValue(t.Obj, name)
	if !ok {
		return false
	}
	if f := member(st, name); f != nil {
		f.Value = ast.NewString(v)
	} else {
		st.Elts = append(st.Elts, &ast.Field{Label: ast.NewString(name), Value: ast.NewString(v)})
	}
	r.removed = append(r.removed, mp)
	return true
}

func isNull(v ast.Expr) bool {
	b, ok := v.(*ast.BasicLit)
	return ok && b.Kind == token.NULL
}

// matchesFirst reports whether v is a string that matches the first pattern
// of t (the pattern that decides between a field's rule and its rest= rule).
func matchesFirst(v ast.Expr, t *schema.Type) bool {
	x, ok := v.(*ast.BasicLit)
	if !ok || x.Kind != token.STRING || len(t.Patterns) == 0 {
		return false
	}
	s, err := literal.Unquote(x.Value)
	if err != nil {
		return false
	}
	re, err := regexp.Compile(t.Patterns[0])
	return err == nil && re.MatchString(s)
}

func isEmpty(v ast.Expr, t *schema.Type) bool {
	switch x := v.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING || t.Kinds&fast.KString == 0 || t.MinRunes < 1 {
			return false
		}
		s, err := literal.Unquote(x.Value)
		return err == nil && s == ""
	case *ast.ListLit:
		return len(x.Elts) == 0 && t.Kinds&fast.KArray != 0 && t.MinItems >= 1
	}
	return false
}

func (r *run) record(pl place, msg string) {
	k := findingKey{pl.path.pointer(), pl.rule}
	f := r.found[k]
	if f == nil {
		f = &finding{path: pl.path, rule: pl.rule, ordinal: len(r.found), items: -1}
		f.line, f.column = r.position(pl.path)
		if v, n := r.lookup(pl.path); n == len(pl.path) {
			if l, ok := v.(*ast.ListLit); ok {
				f.items = len(l.Elts)
			}
		}
		r.found[k] = f
	}
	for _, m := range f.msgs {
		if m == msg {
			return
		}
	}
	f.msgs = append(f.msgs, msg)
}

// position is the line and column of the value at p, or of the object that
// lacks it (like the fast path's Missing); 0, 0 if unknown.
func (r *run) position(p path) (int, int) {
	v, _ := r.lookup(p)
	var pos token.Pos
	if v != nil {
		pos = v.Pos()
	}
	if !pos.IsValid() {
		return 0, 0
	}
	return pos.Line() + r.line1 - 1, pos.Column()
}

func (r *run) violations() []envelope.Violation {
	fs := make([]*finding, 0, len(r.found))
	for _, f := range r.found {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].ordinal < fs[j].ordinal })
	out := make([]envelope.Violation, 0, len(fs))
	for _, f := range fs {
		out = append(out, envelope.Violation{Rule: f.rule, Pointer: f.path.pointer(), Line: f.line, Column: f.column,
			Reason: reason(f.path, f.msgs, f.items)})
	}
	return out
}

// listLength matches CUE's message for a list-length validator; the list it
// prints may hold the placeholders of removed elements, so the engine names
// the length instead.
var listLength = regexp.MustCompile(`^invalid value \[.*\] \(does not satisfy (list\.M(?:in|ax)Items\([0-9]+\))\)$`)

// reason renders CUE's messages for one pointer without the #Def. prefix:
// "task.timeout_seconds: invalid value 10 (out of bound >=30)". An empty
// disjunction's header ("2 errors in empty disjunction:") is followed by its
// first alternative's message. n is the length of the list at p, or -1.
func reason(p path, msgs []string, n int) string {
	var header string
	var body []string
	for _, m := range msgs {
		if strings.HasSuffix(m, ":") && header == "" {
			header = m
			continue
		}
		body = append(body, m)
	}
	for i, m := range body {
		if sm := listLength.FindStringSubmatch(m); sm != nil && n >= 0 {
			body[i] = fmt.Sprintf("list of %d items does not satisfy %s", n, sm[1])
		}
	}
	var s string
	switch {
	case len(body) == 0:
		s = strings.TrimSuffix(header, ":")
	case header != "":
		s = header + " " + body[0]
		if len(body) > 1 {
			s += "; ..."
		}
	default:
		s = body[0]
		if len(body) > 1 {
			s += fmt.Sprintf(" (and %d more)", len(body)-1)
		}
	}
	if d := p.dotted(); d != "" {
		s = d + ": " + s
	}
	return s
}
