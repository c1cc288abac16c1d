//go:build cueengine || devtools

package schema

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/fast"
)

// GeneratorPath is the command that writes the generated files (the first
// line of each names it).
const GeneratorPath = "lint/internal/devcmd/schemagen"

// fileHeader explains the generated file to its reader; it follows the
// package clause, so that it is not the package's documentation.
const fileHeader = `// This file is the CUE definitions compiled for the fast path (package
// lint/fast): edit the .cue files, never this file, and regenerate with
// ` + "`make generate`" + ` (go generate -tags devtools ./lint/fast/... ./lint/schemaexport);
// a test of lint/schema fails when it is stale.
//
// Layout, in this order:
//
//   - Validators and Acceptors: one entry per kind, the validator and the
//     acceptor of its CUE definition (the definition is the comment of the
//     Validators entry);
//   - re<N>: the regular expressions (Regex), compiled on first use;
//   - leaf<N>: the constraints of one value and the rule ID each violation
//     is reported under (Leaf), shared by validators and acceptors;
//   - conds<N>: the discriminators and conditions of an object with
//     conditional fields (CondSet);
//   - v<N>: validators (func(*Dec)), which report violations;
//   - a<N>: acceptors (AcceptFunc), which answer "certainly valid" or "not
//     sure" in one pass (lint/fast/accept.go).
//
// A function is generated once per distinct body and numbered in the order
// of first use, so one function may serve several places of the
// definitions. Its comment lists every CUE path it checks, from the kind's
// definition down (` + "`#Def.field.sub`" + `; ` + "`[]`" + ` is an element of a list;
// ` + "`#Def._Name`" + ` a hidden check), with the condition under which a
// conditional field or check applies; a validator's comment also names the
// rule IDs its own statements report (the functions it calls report
// theirs), an acceptor's the validator of each path.

`

// where is the CUE path of a value, from the kind's definition down, and the
// conditions under which it applies: the comment of the functions generated
// for it.
type where struct{ path, when, note string }

// String renders w for a comment: `#Def.a.b` or `#Def.a.b (when s is "x")`.
func (w where) String() string {
	s := w.path
	if w.when != "" {
		s += " (when " + w.when + ")"
	}
	if w.note != "" {
		s += " (" + w.note + ")"
	}
	return s
}

var cueIdent = regexp.MustCompile(`^[A-Za-z$][A-Za-z0-9_$]*$`)

// field is the member name of the object at w; a name that is not a plain
// CUE identifier is quoted, as CUE writes it.
func (w where) field(name string) where {
	if !cueIdent.MatchString(name) {
		name = strconv.Quote(name)
	}
	return where{path: w.path + "." + name, when: w.when}
}

// elem is an element of the list at w.
func (w where) elem() where { return where{path: w.path + "[]", when: w.when} }

// under adds condition c to w's.
func (w where) under(c string) where {
	if c == "" {
		return w
	}
	if w.when != "" {
		c = w.when + " and " + c
	}
	return where{path: w.path, when: c}
}

// variant is w (a member declared under conditions of o) in variant v.
// Conditions that do not hold are grouped by discriminator: `t is not "a"
// or "b"`, and beyond three values `t is none of the 19 values its
// conditions name`.
func (w where) variant(o *Object, v Variant) where {
	var terms []string
	for _, ci := range v.On {
		terms = append(terms, o.Conds[ci].String())
	}
	var fields []string
	values := map[string][]string{}
	for _, ci := range v.Off {
		cd := o.Conds[ci]
		if cd.Absent {
			terms = append(terms, cd.Field+" is present")
			continue
		}
		if values[cd.Field] == nil {
			fields = append(fields, cd.Field)
		}
		values[cd.Field] = append(values[cd.Field], strconv.Quote(cd.Equals))
	}
	for _, f := range fields {
		switch vs := values[f]; {
		case len(vs) == 1:
			terms = append(terms, f+" is not "+vs[0])
		case len(vs) <= 3:
			terms = append(terms, f+" is not "+strings.Join(vs[:len(vs)-1], ", ")+" or "+vs[len(vs)-1])
		default:
			terms = append(terms, fmt.Sprintf("%s is none of the %d values its conditions name", f, len(vs)))
		}
	}
	return w.under(strings.Join(terms, " and "))
}

// outside is w, the declaration of a member outside the conditions that
// declare it too: its acceptor is generated, the variants' acceptors check the member.
func (w where) outside() where {
	w.note = "its declaration outside the conditions"
	return w
}

// check is the hidden check ck of the object at w, under condition cd.
func (w where) check(ck *Check, cd *Cond) where {
	return where{path: w.path + "." + ck.Name, when: w.when}.under(cd.String())
}

// origin is what one generated function checks: the places it serves and
// the rule IDs it reports itself.
type origin struct {
	paths []where
	seen  map[string]bool
	rules map[string]bool
}

func newOrigin() *origin { return &origin{seen: map[string]bool{}, rules: map[string]bool{}} }

// add records that the function serves w and reports rules.
func (o *origin) add(w where, rules []string) {
	if s := w.String(); !o.seen[s] {
		o.seen[s] = true
		o.paths = append(o.paths, w)
	}
	for _, r := range rules {
		if r != "" {
			o.rules[r] = true
		}
	}
}

// comment writes the doc comment of function name: what it does (verb),
// the rules it reports, each path it serves and, with validators (the
// validators by path), the validator of each path.
func (o *origin) comment(out *bytes.Buffer, name, verb string, validators map[string][]string) {
	var rules string
	if len(o.rules) > 0 {
		ids := make([]string, 0, len(o.rules))
		for r := range o.rules {
			ids = append(ids, r)
		}
		sort.Strings(ids)
		rules = " (rules " + strings.Join(ids, ", ") + ")"
	}
	line := func(w where) string {
		s := w.String()
		if vs := validators[s]; len(vs) > 0 {
			s += " (validator " + strings.Join(vs, ", ") + ")"
		}
		return s
	}
	if len(o.paths) == 1 {
		fmt.Fprintf(out, "// %s %s the value at %s%s.\n", name, verb, line(o.paths[0]), rules)
		return
	}
	fmt.Fprintf(out, "// %s %s the values at these CUE paths%s:\n", name, verb, rules)
	for _, w := range o.paths {
		fmt.Fprintf(out, "//   - %s\n", line(w))
	}
}

// leafRules are the rule IDs a Leaf of t with rule, fr and required can
// report (Dec.Value, Dec.ArrayLen).
func leafRules(t *Type, rule string, fr fieldRules, required bool) []string {
	rules := []string{rule, fr.empty, fr.rest}
	if required && t.Kinds&fast.KNull == 0 {
		if fr.null != "" {
			rules = append(rules, fr.null)
		} else {
			rules = append(rules, fast.RuleRequired)
		}
	}
	return rules
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
