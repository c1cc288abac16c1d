//go:build cueengine || devtools

package schema

import (
	"fmt"
	"reflect"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/agentlint/agentlint/lint/fast"
)

// Acceptors (lint/fast/accept.go): for every kind, a one-pass function
// that answers "certainly valid" or "not sure" for a record, generated from
// the same model as the validator and recording the spans of the declared
// members (capture slots) as it checks them. Every construct of the model
// compiles: each kind has an acceptor.

// accGen generates the acceptors; it shares the validators' leaves and
// regular expressions (gen).
type accGen struct {
	g       *gen
	funcs   map[string]string // body → name
	order   []string
	names   []string // the names of order, in the same order
	origins map[string]*origin
	// rootElems are, while a kind's acceptor is generated, the members of
	// its top-level object whose arrays' objects it records for
	// fast.Acc.WantElems (elemNames), by their index in its names.
	rootElems map[string]int
	// cond is fast.Acceptor.Cond of the kind kind generated last.
	cond uint64
	// root is set while the acceptor of a kind's top-level value is
	// generated (value clears it for the values inside).
	root bool
	// anyStr holds the acceptors of any string (SkipStr), whose members
	// Acc.FieldStr reads.
	anyStr map[string]bool
}

// elemRec says what a value's acceptor records for fast.Acc.WantElems:
// top >= 0, the value of top-level member top, whose array's objects it
// records (BeginElems, ElemStart); members, an object of such an array,
// whose declared members it records (ElemMember).
type elemRec struct {
	top     int
	members bool
}

// noRec records nothing.
var noRec = elemRec{top: -1}

// slots assigns capture slots to member pointers of one kind.
type slots struct {
	fields []string
	// cond has bit s set for the slots of members inside the value of a
	// member declared under conditions (fast.Acceptor.Cond); inCond > 0
	// while such a declaration's acceptor is generated.
	cond   uint64
	inCond int
}

// add returns the slot of pointer p (the one it has already when two
// declarations under conditions declare it), or -1 when every slot is
// taken.
func (s *slots) add(p string) int {
	if s == nil {
		return -1
	}
	if s.inCond > 0 {
		if k := slices.Index(s.fields, p); k >= 0 && s.cond&(1<<uint(k)) != 0 {
			return k
		}
	}
	if len(s.fields) >= maxCaptures {
		return -1
	}
	s.fields = append(s.fields, p)
	if s.inCond > 0 {
		s.cond |= 1 << uint(len(s.fields)-1)
	}
	return len(s.fields) - 1
}

// maxCaptures is lint/fast's MaxCaptures.
const maxCaptures = 64

func (ag *accGen) define(body string) string {
	if n, ok := ag.funcs[body]; ok {
		return n
	}
	n := fmt.Sprintf("a%d", len(ag.funcs))
	ag.funcs[body] = n
	ag.order = append(ag.order, strings.Replace(body, "func NAME(", "func "+n+"(", 1))
	ag.names = append(ag.names, n)
	ag.origins[n] = newOrigin()
	return n
}

// kind returns the acceptor of one kind (definition at), its capture
// pointers, the member names its top-level object declares (under
// conditions too) and, per top-level member whose value is an array of
// objects, the member names those objects declare (elemNames).
func (ag *accGen) kind(t *Type, at where) (string, []string, []string, map[string][]string, error) {
	var names []string
	var elems map[string][]string
	ag.rootElems = nil
	if t.Obj != nil {
		names = t.Obj.Names()
		var err error
		if elems, err = elemNames(t.Obj); err != nil {
			return "", nil, nil, nil, err
		}
		ag.rootElems = map[string]int{}
		for n := range elems {
			if k := slices.Index(names, n); k >= 0 && k < 64 {
				ag.rootElems[n] = k
			} else {
				delete(elems, n)
			}
		}
	}
	s := &slots{}
	ag.root = true
	fn, err := ag.value(t, "", s, false, at, noRec)
	ag.rootElems, ag.cond = nil, s.cond
	if err != nil {
		return "", nil, nil, nil, err
	}
	if len(elems) == 0 {
		elems = nil
	}
	return fn, s.fields, names, elems, nil
}

// elemNames returns, per member of o whose value is an array of objects
// (in every declaration of it that is an array of objects: the same
// names), the member names those objects declare, in the order of their
// bits in the acceptor's seen (Object.Names): what Acc.Elems records of
// them.
func elemNames(o *Object) (map[string][]string, error) {
	out := map[string][]string{}
	for _, n := range o.Names() {
		var decls []*Field
		if f := o.Field(n); f != nil {
			decls = append(decls, f)
		}
		if o.CondDeclares(n) {
			vs, err := o.Variants(n)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				if v.Field != nil {
					decls = append(decls, v.Field)
				}
			}
		}
		var names []string
		same := true
		for _, f := range decls {
			e := f.Type.Elem
			if f.Type.Kinds&fast.KArray == 0 || e == nil || e.Obj == nil {
				continue
			}
			if en := e.Obj.Names(); names == nil {
				names = en
			} else if strings.Join(en, "\x00") != strings.Join(names, "\x00") {
				same = false
			}
		}
		if names != nil && same {
			out[n] = names
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// value returns the name of the AcceptFunc of t, the value at at (for the
// function's comment). Members of objects get capture slots from s under
// pointer prefix ptr (s nil: no captures, inside arrays).
func (ag *accGen) value(t *Type, ptr string, s *slots, inCheck bool, at where, rec elemRec) (string, error) {
	q := ag.g.q
	root := ag.root
	ag.root = false
	lf := ag.g.leaf(t, DefaultRule, fieldRules{}, false)
	var b strings.Builder
	fmt.Fprintf(&b, "func NAME(a *%sAcc, b []byte, i int) int {\n\tswitch b[i] {\n", q)
	if t.Kinds&fast.KString != 0 {
		b.WriteString("\tcase '\"':\n")
		if t.Enum == nil && len(t.Patterns) == 0 && t.MinRunes == 1 && t.MaxRunes < 0 {
			// Any string but "": read in place (SkipStr checks its
			// escapes), the one string of no code point written as
			// "" (an escape stands for one code point or more).
			fmt.Fprintf(&b, "\t\tj := %sSkipStr(b, i)\n\t\tif j == i+2 {\n\t\t\treturn -1\n\t\t}\n\t\treturn j\n", q)
		} else if t.Enum != nil || len(t.Patterns) > 0 || t.MinRunes >= 0 || t.MaxRunes >= 0 {
			if plainLeaf(t) {
				// Every string the leaf allows is printable ASCII
				// without '"' and '\\' (plainLeaf): the text up to the
				// next '"' is the whole string when it passes the
				// checks (fast.QuoteStr); otherwise the string is read
				// as JSON below.
				if n := plainLen(t); n > 0 {
					// Strings of one length n: the quote that ends
					// them is where it is due (the checks fail on a
					// shorter string, a '"' inside), nothing to scan.
					fmt.Fprintf(&b, "\t\tif j, s := i+%d, b[i+1:min(i+%d, len(b))]; j <= len(b) && b[j-1] == '\"' {\n", n+2, n+1)
				} else {
					fmt.Fprintf(&b, "\t\tif j, s := %sQuoteStr(b, i, %d); j >= 0 {\n", q, plainMin(t))
				}
				if t.Enum != nil {
					b.WriteString("\t\t\tswitch string(s) {\n\t\t\tcase " + quotedList(t.Enum) + ":\n")
				}
				var conds []string
				switch {
				case t.MinRunes == 1 && t.MaxRunes < 0:
					conds = append(conds, "len(s) != 0")
				case t.MinRunes >= 0 || t.MaxRunes >= 0:
					conds = append(conds, fmt.Sprintf("%sRunesOK(s, %d, %d)", q, t.MinRunes, t.MaxRunes))
				}
				for _, p := range t.Patterns {
					// In package fast itself, the pattern's
					// hand-written matcher directly (what Match
					// calls).
					if n := nativeFunc(p); n != "" && q == "" {
						conds = append(conds, n+"(s)")
						continue
					}
					conds = append(conds, ag.g.regex(p)+".Match(s)")
				}
				if len(conds) > 0 {
					fmt.Fprintf(&b, "\t\t\tif %s {\n\t\t\t\treturn j\n\t\t\t}\n", strings.Join(conds, " && "))
				} else {
					b.WriteString("\t\t\treturn j\n")
				}
				if t.Enum != nil {
					b.WriteString("\t\t\t}\n")
				}
				b.WriteString("\t\t}\n")
			}
			// What Dec.checkString checks, written out for this leaf.
			b.WriteString("\t\tj, s := a.Str(b, i)\n\t\tif j < 0 {\n\t\t\treturn -1\n\t\t}\n")
			if t.Enum != nil {
				b.WriteString("\t\tswitch string(s) {\n\t\tcase " + quotedList(t.Enum) + ":\n\t\tdefault:\n\t\t\treturn -1\n\t\t}\n")
			}
			switch {
			case t.MinRunes == 1 && t.MaxRunes < 0:
				b.WriteString("\t\tif len(s) == 0 {\n\t\t\treturn -1\n\t\t}\n")
			case t.MinRunes >= 0 || t.MaxRunes >= 0:
				fmt.Fprintf(&b, "\t\tif !%sRunesOK(s, %d, %d) {\n\t\t\treturn -1\n\t\t}\n", q, t.MinRunes, t.MaxRunes)
			}
			for _, p := range t.Patterns {
				fmt.Fprintf(&b, "\t\tif !%s.Match(s) {\n\t\t\treturn -1\n\t\t}\n", ag.g.regex(p))
			}
			b.WriteString("\t\treturn j\n")
		} else {
			fmt.Fprintf(&b, "\t\treturn %sSkipStr(b, i)\n", q)
		}
	}
	anyString := t.Kinds == fast.KString && t.Enum == nil && len(t.Patterns) == 0 && t.MinRunes < 0 && t.MaxRunes < 0
	if t.Kinds&fast.KNull != 0 {
		fmt.Fprintf(&b, "\tcase 'n':\n\t\treturn %sLit(b, i, \"null\")\n", q)
	}
	if t.Kinds&fast.KBool != 0 {
		fmt.Fprintf(&b, "\tcase 't':\n\t\treturn %sLit(b, i, \"true\")\n\tcase 'f':\n\t\treturn %sLit(b, i, \"false\")\n", q, q)
	}
	if t.Kinds&fast.KNumber != 0 {
		b.WriteString("\tcase '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':\n")
		var lits int
		for _, bd := range t.Bounds {
			if bd.Ref == "" {
				lits++
			}
		}
		switch { // a.Num: Acc.Wide notes a number float64 may not hold
		case t.Kinds&fast.KNumber == fast.KNumber:
			fmt.Fprintf(&b, "\t\tj, _ := a.Num(b, i)\n")
		case t.Kinds&fast.KInt != 0:
			fmt.Fprintf(&b, "\t\tj, isInt := a.Num(b, i)\n\t\tif !isInt {\n\t\t\treturn -1\n\t\t}\n")
		default:
			fmt.Fprintf(&b, "\t\tj, isInt := a.Num(b, i)\n\t\tif isInt {\n\t\t\treturn -1\n\t\t}\n")
		}
		if lits > 0 {
			fmt.Fprintf(&b, "\t\tif j < 0 || !%sBounds(b[i:j], %s.Bounds) {\n\t\t\treturn -1\n\t\t}\n", q, lf)
		}
		b.WriteString("\t\treturn j\n")
	}
	if t.Kinds&fast.KObject != 0 {
		b.WriteString("\tcase '{':\n")
		if t.Obj == nil {
			b.WriteString("\t\treturn a.Any(b, i)\n")
		} else if o := t.Obj; !root && !inCheck && o.Open && len(o.Names()) == 0 && len(o.Conds) == 0 {
			// Open and without members: read as Any reads an object
			// (not at the top, where Undeclared records Want members;
			// not in a check, whose object may be read at depth 0).
			b.WriteString("\t\treturn a.AnyObject(b, i)\n")
		} else if err := ag.object(&b, t.Obj, ptr, s, inCheck, at, rec.members); err != nil {
			return "", err
		}
	}
	if t.Kinds&fast.KArray != 0 {
		b.WriteString("\tcase '[':\n")
		if t.Elem == nil && t.MinItems < 0 && t.MaxItems < 0 {
			b.WriteString("\t\treturn a.Any(b, i)\n")
		} else {
			elem := "a.Any(b, j)"
			// The objects of a top-level member's array are recorded
			// for fast.Acc.WantElems (elemNames), element by element.
			recObjs := rec.top >= 0 && t.Elem != nil && t.Elem.Obj != nil
			if t.Elem != nil {
				erec := noRec
				if recObjs {
					erec = elemRec{top: -1, members: true}
				}
				fn, err := ag.value(t.Elem, "", nil, inCheck, at.elem(), erec)
				if err != nil {
					return "", err
				}
				elem = fn + "(a, b, j)"
				if recObjs {
					// Objects that repeat from record to record
					// (fast.Acc.MemoElem).
					elem = "a.MemoElem(b, j, n, " + fn + ")"
				}
			}
			fmt.Fprintf(&b, "\t\tj, empty := a.Open(b, i)\n\t\tif j < 0 {\n\t\t\treturn -1\n\t\t}\n\t\tn := 0\n")
			start := ""
			if recObjs {
				fmt.Fprintf(&b, "\t\trec := a.BeginElems(%d)\n", rec.top)
				start = "\t\t\t\tif rec {\n\t\t\t\t\ta.ElemStart(b, j)\n\t\t\t\t}\n"
			}
			fmt.Fprintf(&b, "\t\tif !empty {\n\t\t\tfor {\n%s\t\t\t\tk := %s\n\t\t\t\tif k < 0 {\n\t\t\t\t\treturn -1\n\t\t\t\t}\n\t\t\t\tn++\n", start, elem)
			// Next without a call in the common cases: a ',' and the
			// next element, or the array's end.
			b.WriteString("\t\t\t\tif k < len(b)-1 && b[k] == ',' && b[k+1] > ' ' {\n\t\t\t\t\tj = k + 1\n\t\t\t\t\tcontinue\n\t\t\t\t}\n")
			b.WriteString("\t\t\t\tif k < len(b) && b[k] == ']' {\n\t\t\t\t\tj = k + 1\n\t\t\t\t\tbreak\n\t\t\t\t}\n")
			fmt.Fprintf(&b, "\t\t\t\tvar more bool\n\t\t\t\tif j, more = %sNext(b, k, ']'); j < 0 {\n\t\t\t\t\treturn -1\n\t\t\t\t}\n\t\t\t\tif !more {\n\t\t\t\t\tbreak\n\t\t\t\t}\n\t\t\t}\n\t\t\ta.Close()\n\t\t}\n", q)
			if recObjs {
				b.WriteString("\t\tif rec {\n\t\t\ta.EndElems()\n\t\t}\n")
			}
			if t.MinItems >= 0 {
				fmt.Fprintf(&b, "\t\tif n < %d {\n\t\t\treturn -1\n\t\t}\n", t.MinItems)
			}
			if t.MaxItems >= 0 {
				fmt.Fprintf(&b, "\t\tif n > %d {\n\t\t\treturn -1\n\t\t}\n", t.MaxItems)
			}
			b.WriteString("\t\t_ = n\n\t\treturn j\n")
		}
	}
	b.WriteString("\t}\n\treturn -1\n}\n")
	n := ag.define(b.String())
	ag.origins[n].add(at, nil)
	if anyString {
		ag.anyStr[n] = true
	}
	return n, nil
}

// object writes the '{' case of an object type: every member checked by
// its field's acceptor (a declared name twice is a duplicate), undeclared
// members by Acc.Any (declined in strict mode where the definition is
// closed), required members present. An object with conditions first
// reads its discriminators (Acc.Conds, the validator's own pre-scan): a
// member declared under conditions is checked by the declaration that
// holds, or as undeclared; it is required as the conditions say; each
// check whose condition holds must accept its sibling's value; and each
// sibling bound (`<timeout_seconds`) must hold between the two members'
// literals (fast.RefHolds) when both are present. inCheck:
// the object is part of a check (its members are open, as the validator's).
func (ag *accGen) object(b *strings.Builder, o *Object, ptr string, s *slots, inCheck bool, at where, recMembers bool) error {
	// The root object (ptr "" with slots): its members whose arrays'
	// objects are recorded.
	root := ptr == "" && s != nil && !inCheck
	recTop := func(n string) elemRec {
		if k, ok := ag.rootElems[n]; ok && root {
			return elemRec{top: k}
		}
		return noRec
	}
	q := ag.g.q
	names := o.Names()
	if len(names) > 64 {
		return fmt.Errorf("struct with %d fields: at most 64 are supported", len(names))
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	conds := len(o.Conds) > 0
	condExpr := func(ci int, holds bool) string {
		if holds {
			return fmt.Sprintf("m&(1<<%d) != 0", ci)
		}
		return fmt.Sprintf("m&(1<<%d) == 0", ci)
	}
	// Members whose value a check reads: their span is kept.
	needSpan := map[string]bool{}
	for _, cd := range o.Conds {
		for _, ck := range cd.Checks {
			needSpan[ck.Ref] = true
		}
	}
	// A sibling bound (`<timeout_seconds`) compares two members' literals
	// once the object is read.
	for _, f := range o.Fields {
		for _, bd := range f.Type.Bounds {
			if bd.Ref != "" {
				needSpan[f.Name], needSpan[bd.Ref] = true, true
			}
		}
	}
	var req uint64
	for i, f := range o.Fields {
		if f.Required {
			req |= 1 << uint(i)
		}
	}
	// Slots first, in declaration order (the members declared only under
	// conditions after the others: their value is recorded whichever
	// declaration reads it, or none), then the members' own (depth first;
	// none inside a member declared under conditions).
	slot := make([]int, len(names))
	for i, n := range names {
		slot[i] = -1
		if s != nil && !inCheck {
			slot[i] = s.add(ptr + "/" + escapePointer(n))
		}
	}
	fns := make([]string, len(o.Fields))
	for i, f := range o.Fields {
		var sub *slots
		if s != nil && slot[i] >= 0 {
			sub = s
		}
		fat := at.field(f.Name)
		if o.CondDeclares(f.Name) {
			fat = fat.outside()
		}
		fn, err := ag.value(f.Type, ptr+"/"+escapePointer(f.Name), sub, inCheck, fat, recTop(f.Name))
		if err != nil {
			return err
		}
		fns[i] = fn
	}
	variants := map[string][]Variant{}
	vfns := map[string][]string{}
	// The declarations under conditions of a member that has a slot
	// record the members they declare inside its value, in slots of
	// fast.Acceptor.Cond (shared by the declarations that declare the
	// same pointer); the branch that reads the value with one notes it in
	// Acc.Decl (vdecl).
	vdecl := map[string]bool{}
	for _, n := range names {
		if !o.CondDeclares(n) {
			continue
		}
		vs, err := o.Variants(n)
		if err != nil {
			return err
		}
		variants[n] = vs
		var sub *slots
		vptr := ""
		if s != nil && !inCheck && slot[index[n]] >= 0 {
			sub, vptr = s, ptr+"/"+escapePointer(n)
			vdecl[n] = true
		}
		for _, v := range vs {
			fn := ""
			if v.Field != nil {
				var err error
				if sub != nil {
					sub.inCond++
				}
				fn, err = ag.value(v.Field.Type, vptr, sub, inCheck, at.field(n).variant(o, v), recTop(n))
				if sub != nil {
					sub.inCond--
				}
				if err != nil {
					return err
				}
			}
			vfns[n] = append(vfns[n], fn)
		}
	}
	mode := q + "NoMembers"
	switch {
	case o.Open || inCheck:
		mode = q + "OpenMembers"
	case o.AllowX:
		mode = q + "XMembers"
	}
	// The conditions that hold (m) are read from the discriminators'
	// values as the loop below reads them (Acc.CondsFrom), when every
	// discriminator is a member declared without conditions: a member
	// declared under conditions that comes before them, and the checks
	// after the loop, read them then (CondsFrom when every discriminator
	// was read, else the pre-scan, Acc.Conds). Otherwise the pre-scan reads them
	// first (Acc.Conds).
	cs := ""
	disc := map[string]int{} // discriminator name → its index in the CondSet (lazy)
	lazy := false
	if conds {
		var err error
		if cs, err = ag.g.condSet(o, inCheck, func(f *Field) string { return DefaultRule }); err != nil {
			return err
		}
		lazy = true
		for _, cd := range o.Conds {
			if _, ok := disc[cd.Field]; !ok {
				disc[cd.Field] = len(disc)
			}
			if _, declared := index[cd.Field]; !declared || o.CondDeclares(cd.Field) {
				lazy = false
			}
		}
		if lazy {
			fmt.Fprintf(b, "\t\tvar m uint64\n\t\tmk := false\n\t\tvar ms [%d]%sSpan32\n\t\tvar mf uint\n", len(disc), q)
		} else {
			fmt.Fprintf(b, "\t\tm := a.Conds(b, i, &%s)\n", cs)
		}
	}
	// discRead is the statement that records the value b[w:k] of the
	// discriminator n, which was just read (lazy).
	discRead := func(n string) string {
		fi, ok := disc[n]
		if !lazy || !ok {
			return ""
		}
		return fmt.Sprintf("\t\t\t\t\t\tms[%d], mf = %sSpan32{Start: int32(w), End: int32(k)}, mf|1<<%d\n", fi, q, fi)
	}
	// The code that reads member i's value at k (its case of the switch
	// below, and the branch of the fast dispatch that recognized it).
	// recorded is the statement that records the value b[w:k] of member
	// i, just read by its declaration (recMembers).
	recorded := func(i int) string {
		if !recMembers {
			return ""
		}
		return fmt.Sprintf("a.ElemMember(%d, w, k)", i)
	}
	// field is the statement that reads member i's value at k with its
	// acceptor and sets k to the index after it, or -1 (Acc.Field); a
	// value that may be any string is read in place (SkipStr), seen
	// kept in a register.
	field := func(i int) string {
		if ag.anyStr[fns[i]] {
			return fmt.Sprintf("if seen&(1<<%d) == 0 && uint(k) < uint(len(b)) && b[k] == '\"' {\nseen |= 1 << %d\nk = %sSkipStr(b, k)\n} else {\nk = -1\n}\n", i, i, q)
		}
		return fmt.Sprintf("k = a.Field(b, k, &seen, %d, %s)\n", i, fns[i])
	}
	bodies := make([]string, len(names))
	for i, n := range names {
		cb := &strings.Builder{}
		if needSpan[n] {
			cb.WriteString("\t\t\t\t\tv := k\n")
		}

		switch vs := variants[n]; {
		case vs != nil:
			if i < len(slot) && slot[i] >= 0 || recMembers {
				cb.WriteString("\t\t\t\t\tw := k\n")
			}
			if lazy {
				// CondsFrom once every discriminator (in the CondSet's
				// order, disc's) was read, else the pre-scan (Conds).
				fmt.Fprintf(cb, "\t\t\t\t\tif !mk {\n\t\t\t\t\t\tif mf == %#x {\n\t\t\t\t\t\t\tm = a.CondsFrom(b, &%s, ms[:], mf)\n\t\t\t\t\t\t} else {\n\t\t\t\t\t\t\tm = a.Conds(b, i, &%s)\n\t\t\t\t\t\t}\n\t\t\t\t\t\tmk = true\n\t\t\t\t\t}\n", 1<<len(disc)-1, cs, cs)
			}
			// One branch per variant; a variant that does not
			// declare the member reads it as undeclared.
			for vi, v := range vs {
				variantBranch(cb, "\t\t\t\t\t", vi, vs, condExpr)
				if v.Field == nil {
					fmt.Fprintf(cb, "\t\t\t\t\t\tk = a.Undeclared(b, j, k, []byte(%q), mark, %s)\n", n, mode)
					continue
				}
				if r := recorded(i); r != "" {
					fmt.Fprintf(cb, "\t\t\t\t\t\tif k = a.Field(b, k, &seen, %d, %s); k >= 0 {\n\t\t\t\t\t\t\t%s\n\t\t\t\t\t\t}\n", i, vfns[n][vi], r)
					continue
				}
				fmt.Fprintf(cb, "\t\t\t\t\t\tk = a.Field(b, k, &seen, %d, %s)\n", i, vfns[n][vi])
				if vdecl[n] {
					fmt.Fprintf(cb, "\t\t\t\t\t\ta.Decl |= 1 << %d\n", slot[i])
				}
			}
			cb.WriteString("\t\t\t\t\t}\n")
			if i < len(slot) && slot[i] >= 0 {
				fmt.Fprintf(cb, "\t\t\t\t\tif k >= 0 {\n\t\t\t\t\t\ta.Set(%d, w, k)\n\t\t\t\t\t}\n", slot[i])
			}
		case i < len(slot) && slot[i] >= 0:
			fmt.Fprintf(cb, "\t\t\t\t\tw := k\n%s\t\t\t\t\tif k >= 0 {\n\t\t\t\t\t\ta.Set(%d, w, k)\n%s\t\t\t\t\t}\n", field(i), slot[i], discRead(n))
		case discRead(n) != "" || recMembers:
			fmt.Fprintf(cb, "\t\t\t\t\tw := k\n%s\t\t\t\t\tif k >= 0 {\n%s", field(i), discRead(n))
			if r := recorded(i); r != "" {
				fmt.Fprintf(cb, "\t\t\t\t\t\t%s\n", r)
			}
			cb.WriteString("\t\t\t\t\t}\n")
		default:
			cb.WriteString(field(i))
		}
		if needSpan[n] {
			fmt.Fprintf(cb, "\t\t\t\t\tspan%d = [2]int{v, k}\n", i)
		}
		bodies[i] = cb.String()
	}
	b.WriteString("\t\tj, empty := a.Open(b, i)\n\t\tif j < 0 {\n\t\t\treturn -1\n\t\t}\n")
	if len(names) > 0 {
		b.WriteString("\t\tvar seen uint64\n")
	}
	for _, n := range names {
		if needSpan[n] {
			fmt.Fprintf(b, "\t\tspan%d := [2]int{-1, -1}\n", index[n])
		}
	}
	b.WriteString("\t\tif !empty {\n\t\t\tmark := a.Names()\n\t\t\tfor {\n\t\t\t\tf, k := -1, 0\n")
	// The declared names written as machine writers write them ("name":)
	// are recognized by their first byte and one comparison; anything
	// else is read by Member and told apart by name.
	var firsts []byte
	byFirst := map[byte][]int{}
	for i, n := range names {
		if n == "" || strings.ContainsAny(n, "\"\\") || strings.ContainsFunc(n, func(r rune) bool { return r < ' ' }) {
			continue
		}
		c := n[0]
		if byFirst[c] == nil {
			firsts = append(firsts, c)
		}
		byFirst[c] = append(byFirst[c], i)
	}
	if len(firsts) > 0 {
		// The first eight bytes of the member are read once (w0): its
		// second byte is the name's first, and they are the first
		// eight bytes of any name token compared with. Sixteen bytes
		// at least must follow (a token's last eight bytes are read
		// without another length check, from nb, sixteen bytes long:
		// no bounds checks); Member reads the others.
		fmt.Fprintf(b, "\t\t\t\tif j+16 <= len(b) {\n\t\t\t\t\tnb := b[j : j+16 : j+16]\n\t\t\t\t\tw0 := %sLoad64(nb, 0)\n\t\t\t\t\tswitch byte(w0 >> 8) {\n", q)
		for _, c := range firsts {
			fmt.Fprintf(b, "\t\t\t\t\tcase %q:\n", c)
			for n, i := range byFirst[c] {
				tok := "\"" + names[i] + "\":"
				if n > 0 {
					b.WriteString(" else ")
				} else {
					b.WriteString("\t\t\t\t\t\t")
				}
				fmt.Fprintf(b, "if %s {\n\t\t\t\t\t\t\tk = %sSkipWS(b, j+%d)\n%s\t\t\t\t\t\t\tgoto next\n\t\t\t\t\t\t}", isToken(q, tok), q, len(tok), bodies[i])
			}
			b.WriteString("\n")
		}
		b.WriteString("\t\t\t\t\t}\n\t\t\t\t}\n")
	}
	b.WriteString("\t\t\t\tif f < 0 {\n\t\t\t\t\tvar name []byte\n\t\t\t\t\tname, k = a.Member(b, j)\n\t\t\t\t\tswitch string(name) {\n")
	for i, n := range names {
		fmt.Fprintf(b, "\t\t\t\t\tcase %q:\n\t\t\t\t\t\tf = %d\n", n, i)
	}
	fmt.Fprintf(b, "\t\t\t\t\tdefault:\n\t\t\t\t\t\tk = a.Undeclared(b, j, k, name, mark, %s)\n\t\t\t\t\t}\n\t\t\t\t}\n", mode)
	if len(names) > 0 {
		b.WriteString("\t\t\t\tswitch f {\n")
		for i := range names {
			fmt.Fprintf(b, "\t\t\t\tcase %d:\n%s", i, bodies[i])
		}
		b.WriteString("\t\t\t\t}\n")
	}
	if len(firsts) > 0 {
		b.WriteString("\t\t\tnext:\n")
	}
	b.WriteString("\t\t\t\tif uint(k) < uint(len(b)-1) && b[k] == ',' && b[k+1] > ' ' {\n\t\t\t\t\tj = k + 1 // the common case\n\t\t\t\t\tcontinue\n\t\t\t\t}\n")
	// The object's end right after the last value: Next without a call.
	b.WriteString("\t\t\t\tif uint(k) < uint(len(b)) && b[k] == '}' {\n\t\t\t\t\tj = k + 1\n\t\t\t\t\tbreak\n\t\t\t\t}\n")
	fmt.Fprintf(b, "\t\t\t\tvar more bool\n\t\t\t\tif j, more = %sNext(b, k, '}'); !more {\n\t\t\t\t\tbreak\n\t\t\t\t}\n\t\t\t}\n\t\t\tif j < 0 {\n\t\t\t\treturn -1\n\t\t\t}\n\t\t\ta.DropNames(mark)\n\t\t\ta.Close()\n\t\t}\n", q)
	if lazy {
		fmt.Fprintf(b, "\t\tif !mk {\n\t\t\tm = a.CondsFrom(b, &%s, ms[:], mf)\n\t\t}\n", cs)
	}
	if req != 0 {
		fmt.Fprintf(b, "\t\tif seen&%#x != %#x {\n\t\t\treturn -1\n\t\t}\n", req, req)
	}
	for _, n := range names {
		vs := variants[n]
		if vs == nil {
			continue
		}
		switch all, when := requiredWhen(vs, condExpr); {
		case all:
			fmt.Fprintf(b, "\t\tif seen&(1<<%d) == 0 {\n\t\t\treturn -1\n\t\t}\n", index[n])
		case when != "":
			fmt.Fprintf(b, "\t\tif seen&(1<<%d) == 0 && (%s) {\n\t\t\treturn -1\n\t\t}\n", index[n], when)
		}
	}
	for _, f := range o.Fields {
		for _, bd := range f.Type.Bounds {
			if bd.Ref == "" {
				continue
			}
			x, y := index[f.Name], index[bd.Ref]
			fmt.Fprintf(b, "\t\tif span%d[0] >= 0 && span%d[0] >= 0 && !%sRefHolds(%q, b[span%d[0]:span%d[1]], b[span%d[0]:span%d[1]]) {\n\t\t\treturn -1\n\t\t}\n", x, y, q, bd.Op, x, x, y, y)
		}
	}
	for ci, cd := range o.Conds {
		for _, ck := range cd.Checks {
			fn, err := ag.value(ck.Type, "", nil, true, at.check(ck, cd), noRec)
			if err != nil {
				return err
			}
			r := index[ck.Ref]
			fmt.Fprintf(b, "\t\tif %s && span%d[0] >= 0 && %s(a, b, span%d[0]) != span%d[1] {\n\t\t\treturn -1\n\t\t}\n", condExpr(ci, true), r, fn, r, r)
		}
	}
	if !conds {
		b.WriteString("\t\treturn j\n")
		return nil
	}
	b.WriteString("\t\t_ = m\n\t\treturn j\n")
	return nil
}

// isToken is the Go condition that b holds tok at j, where w0 holds the
// eight bytes at j and nb the sixteen at j: a masked
// comparison of w0 for tokens of up to 8 bytes, and one more 8-byte
// comparison for tokens of up to 16, two more (after a length check) for
// tokens of up to 24, a string comparison for longer ones.
func isToken(q, tok string) string {
	le := func(s string) uint64 {
		var x uint64
		for i := len(s) - 1; i >= 0; i-- {
			x = x<<8 | uint64(s[i])
		}
		return x
	}
	switch n := len(tok); {
	case n < 8:
		return fmt.Sprintf("w0&%#x == %#x /* %s */", uint64(1)<<(8*uint(n))-1, le(tok), tok)
	case n == 8:
		return fmt.Sprintf("w0 == %#x /* %s */", le(tok), tok)
	case n <= 16:
		return fmt.Sprintf("w0 == %#x && %sLoad64(nb, %d) == %#x /* %s */", le(tok[:8]), q, n-8, le(tok[n-8:]), tok)
	case n <= 24:
		return fmt.Sprintf("j+%d <= len(b) && w0 == %#x && %sLoad64(b, j+8) == %#x && %sLoad64(b, j+%d) == %#x /* %s */", n, le(tok[:8]), q, le(tok[8:16]), q, n-8, le(tok[n-8:]), tok)
	}
	return fmt.Sprintf("%sIs(b, j, %q)", q, tok)
}

// escapePointer escapes a JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// plainLeaf reports whether every string the string constraints of t allow
// is made of plain bytes only (printable ASCII but '"' and '\\', the bytes
// a JSON string holds as they are): every value of its enum is, or one of
// its patterns only matches such strings (plainPattern).
func plainLeaf(t *Type) bool {
	if t.Enum != nil {
		all := true
		for _, e := range t.Enum {
			all = all && plainText(e)
		}
		if all {
			return true
		}
	}
	for _, p := range t.Patterns {
		if plainPattern(p) {
			return true
		}
	}
	return false
}

// nativeFunc returns the name of the function of package fast that
// fast.Natives holds for the pattern src, which the generated acceptors
// of package fast call directly instead of the Match of a Regex of src
// (which calls the same function); "" when src has no native matcher or
// its matcher is a function literal.
func nativeFunc(src string) string {
	fn, ok := fast.Natives[src]
	if !ok {
		return ""
	}
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	n, ok := strings.CutPrefix(name, reflect.TypeFor[fast.Acc]().PkgPath()+".")
	if !ok || strings.Contains(n, ".") { // another package's, or a literal (fast.init.func1)
		return ""
	}
	return n
}

// plainText reports whether s is made of plain bytes only (plainLeaf).
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte(rune(s[i])) {
			return false
		}
	}
	return true
}

func plainByte(r rune) bool { return r >= 0x20 && r < 0x7f && r != '"' && r != '\\' }

// plainPattern reports whether the RE2 pattern src (as regexp compiles it)
// matches only texts made of plain bytes: it is anchored at both ends (^ and
// $ around the whole pattern) and between them has only literals and
// character classes of plain bytes (case-folded too), in concatenations,
// alternations, groups and repetitions. False when it does not parse.
func plainPattern(src string) bool {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return false
	}
	subs := re.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return false
	}
	for _, sub := range subs[1 : len(subs)-1] {
		if !plainRe(sub) {
			return false
		}
	}
	return true
}

// plainRe reports whether every text re matches is made of plain bytes,
// without anchors or assertions inside.
func plainRe(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpLiteral:
		// A case-folded literal ([Tt] parses as T, folded) matches every
		// rune of its folding orbit (k: K and the Kelvin sign).
		for _, r := range re.Rune {
			if !plainByte(r) {
				return false
			}
			for f := unicode.SimpleFold(r); re.Flags&syntax.FoldCase != 0 && f != r; f = unicode.SimpleFold(f) {
				if !plainByte(f) {
					return false
				}
			}
		}
		return true
	case syntax.OpCharClass:
		for k := 0; k+1 < len(re.Rune); k += 2 {
			if !plainByte(re.Rune[k]) || !plainByte(re.Rune[k+1]) || re.Rune[k] <= '"' && re.Rune[k+1] >= '"' || re.Rune[k] <= '\\' && re.Rune[k+1] >= '\\' {
				return false
			}
		}
		return true
	case syntax.OpConcat, syntax.OpAlternate, syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		for _, sub := range re.Sub {
			if !plainRe(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// plainLen returns the length of every string t's patterns allow when one
// of its plain patterns (plainPattern) allows strings of one length only
// (a UUID's 36 bytes), else 0.
func plainLen(t *Type) int {
	for _, p := range t.Patterns {
		if !plainPattern(p) {
			continue
		}
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			continue
		}
		if lo, hi := lenRange(re); lo == hi && lo > 0 {
			return lo
		}
	}
	return 0
}

// lenRange returns the least and the most bytes re matches of plain bytes
// (one byte a rune; hi -1: no limit).
func lenRange(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText:
		return 0, 0
	case syntax.OpLiteral:
		return len(re.Rune), len(re.Rune)
	case syntax.OpCharClass:
		return 1, 1
	case syntax.OpCapture:
		return lenRange(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, h := lenRange(sub)
			lo += l
			if hi >= 0 {
				hi += h
			}
			if h < 0 {
				hi = -1
			}
		}
		return lo, hi
	case syntax.OpAlternate:
		lo, hi = lenRange(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			l, h := lenRange(sub)
			lo = min(lo, l)
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return lo, hi
	case syntax.OpQuest:
		_, h := lenRange(re.Sub[0])
		return 0, h
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		l, _ := lenRange(re.Sub[0])
		return l, -1
	case syntax.OpRepeat:
		l, h := lenRange(re.Sub[0])
		lo = l * re.Min
		if re.Max < 0 || h < 0 {
			return lo, -1
		}
		return lo, h * re.Max
	}
	return 0, -1
}

// plainMin returns the fewest bytes of a string t allows as the plain
// patterns and a plain enum of t (plainLeaf) say: every string t allows
// has that many at least.
func plainMin(t *Type) int {
	n := 0
	if t.Enum != nil && plainLeaf(&Type{Enum: t.Enum}) {
		n = len(t.Enum[0])
		for _, e := range t.Enum {
			n = min(n, len(e))
		}
	}
	for _, p := range t.Patterns {
		if !plainPattern(p) {
			continue
		}
		if re, err := syntax.Parse(p, syntax.Perl); err == nil {
			lo, _ := lenRange(re)
			n = max(n, lo)
		}
	}
	return n
}
