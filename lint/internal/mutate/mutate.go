// Package mutate generates mutations of a valid JSON payload for the
// agreement tests of the schema engines (lint/cueeval, lint/jsonschema):
// systematic single changes (delete a member, set it to another value, add
// an unknown member, empty or grow an array) and deterministic random
// combinations of them. It is test support: nothing in the product uses it.
package mutate

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Options say which mutations Generate makes.
type Options struct {
	// Replacements are the JSON values every member and every first array
	// element is set to.
	Replacements []string
	// Values are further JSON values for the members of a given name.
	Values map[string][]string
	// Added are the member names added to every object with value 1
	// (nil: "zz" and "x_zz").
	Added []string
	// Combinations is the number of random combinations of 2 to 5 single
	// mutations (deterministic: the random source is seeded from the payload
	// length); repeats are dropped.
	Combinations int
}

func (o Options) added() []string {
	if o.Added == nil {
		return []string{"zz", "x_zz"}
	}
	return o.Added
}

// Generate returns every single mutation of raw (a JSON text) and
// o.Combinations combinations, each a valid JSON text. It fails when raw is
// not valid JSON or a value of o is not a JSON text.
func Generate(raw []byte, o Options) ([]Mutation, error) {
	base, err := parse(raw)
	if err != nil {
		return nil, err
	}
	all := ops(base, o)
	var out []Mutation
	for _, op := range all {
		c := base.clone()
		op.apply(c)
		out = append(out, Mutation{Name: op.String(), Raw: c.bytes()})
	}
	if len(all) > 0 {
		rng := rand.New(rand.NewPCG(1, uint64(len(raw))))
		seen := map[string]bool{}
		for i := 0; i < o.Combinations; i++ {
			n := 2 + rng.IntN(4)
			c := base.clone()
			var names []string
			for j := 0; j < n; j++ {
				op := all[rng.IntN(len(all))]
				op.apply(c)
				names = append(names, op.String())
			}
			name := "combo[" + strings.Join(names, " + ") + "]"
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, Mutation{Name: name, Raw: c.bytes()})
		}
	}
	for _, m := range out {
		if _, err := parse(m.Raw); err != nil {
			return nil, fmt.Errorf("mutation %s produced invalid JSON: %v", m.Name, err)
		}
	}
	return out, nil
}

// node is an ordered JSON value for mutations: an object (keys, vals), an
// array (vals) or a scalar (raw JSON text).
type node struct {
	kind byte // '{', '[' or 0
	keys []string
	vals []*node
	raw  string
}

func parse(raw []byte) (*node, error) {
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	n, err := readNode(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("trailing data: %v", err)
	}
	return n, nil
}

func readNode(d *jsontext.Decoder) (*node, error) {
	switch d.PeekKind() {
	case '{', '[':
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		n := &node{kind: byte(tok.Kind())}
		for d.PeekKind() != '}' && d.PeekKind() != ']' {
			if n.kind == '{' {
				name, err := d.ReadToken()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, name.String())
			}
			v, err := readNode(d)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		_, err = d.ReadToken()
		return n, err
	}
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	return &node{raw: string(v)}, nil
}

func (n *node) clone() *node {
	c := &node{kind: n.kind, raw: n.raw, keys: append([]string(nil), n.keys...)}
	for _, v := range n.vals {
		c.vals = append(c.vals, v.clone())
	}
	return c
}

func (n *node) encode(b *bytes.Buffer) {
	switch n.kind {
	case '{', '[':
		b.WriteByte(n.kind)
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == '{' {
				q, _ := jsontext.AppendQuote(nil, n.keys[i])
				b.Write(q)
				b.WriteByte(':')
			}
			v.encode(b)
		}
		if n.kind == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	default:
		b.WriteString(n.raw)
	}
}

func (n *node) bytes() []byte {
	var b bytes.Buffer
	n.encode(&b)
	return b.Bytes()
}

// step is one step of a mutation's target: a member name, or an element
// index when idx >= 0.
type step struct {
	name string
	idx  int
}

// op is one mutation: at the value at target (an object or an array),
// delete or set member/element key, add a member, empty the array or append
// a copy of its first element.
type op struct {
	target []step
	verb   string // "delete", "set", "add", "empty", "append-first"
	key    step
	value  string // for set and add
}

func (o op) String() string {
	var b strings.Builder
	for _, s := range o.target {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(s.name)
		}
	}
	switch o.verb {
	case "delete":
		return b.String() + "/" + o.key.String() + " delete"
	case "set":
		return b.String() + "/" + o.key.String() + " = " + o.value
	case "add":
		return b.String() + " add " + o.key.name
	}
	return b.String() + " " + o.verb
}

func (s step) String() string {
	if s.idx >= 0 {
		return strconv.Itoa(s.idx)
	}
	return s.name
}

// apply performs o on root; it does nothing when the target is gone (an
// earlier op of a combination removed it).
func (o op) apply(root *node) {
	n := root
	for _, s := range o.target {
		n = n.child(s)
		if n == nil {
			return
		}
	}
	switch o.verb {
	case "delete":
		for i := range n.vals {
			if n.match(i, o.key) {
				if n.kind == '{' {
					n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
				}
				n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
				return
			}
		}
	case "set":
		for i := range n.vals {
			if n.match(i, o.key) {
				n.vals[i] = &node{kind: kindOfLiteral(o.value), raw: o.value}
				return
			}
		}
	case "add":
		if n.kind == '{' && n.child(o.key) == nil {
			n.keys = append(n.keys, o.key.name)
			n.vals = append(n.vals, &node{raw: o.value})
		}
	case "empty":
		if n.kind == '[' {
			n.vals = nil
		}
	case "append-first":
		if n.kind == '[' && len(n.vals) > 0 {
			n.vals = append(n.vals, n.vals[0].clone())
		}
	}
}

func kindOfLiteral(v string) byte {
	if v == "[]" || v == "{}" {
		return v[0]
	}
	return 0
}

func (n *node) match(i int, s step) bool {
	if n.kind == '{' {
		return s.idx < 0 && n.keys[i] == s.name
	}
	return n.kind == '[' && s.idx == i
}

func (n *node) child(s step) *node {
	for i := range n.vals {
		if n.match(i, s) {
			return n.vals[i]
		}
	}
	return nil
}

// Mutation is one mutated payload and the name of what was done to it.
type Mutation struct {
	Name string
	Raw  []byte
}

// Replacements are the values every member (and every first array element)
// is set to by default: one of each JSON type, empty and non-empty.
var Replacements = []string{`null`, `""`, `0`, `1.5`, `-1`, `"x"`, `[]`, `{}`, `true`}

// ops returns the systematic mutations of a payload: for every object member
// at every depth, delete it or set it to each replacement (and to each of
// o.Values of its name); for every object, add each of o.Added (default "zz"
// and "x_zz"); for every array, empty it, append a copy of its first element
// and set its first element to each replacement.
func ops(base *node, o Options) []op {
	var out []op
	var walk func(n *node, target []step)
	walk = func(n *node, target []step) {
		target = target[:len(target):len(target)]
		switch n.kind {
		case '{':
			for _, k := range n.keys {
				key := step{name: k, idx: -1}
				out = append(out, op{target: target, verb: "delete", key: key})
				for _, r := range o.Replacements {
					out = append(out, op{target: target, verb: "set", key: key, value: r})
				}
				for _, r := range o.Values[k] {
					out = append(out, op{target: target, verb: "set", key: key, value: r})
				}
			}
			for _, k := range o.added() {
				out = append(out, op{target: target, verb: "add", key: step{name: k, idx: -1}, value: "1"})
			}
			for i, k := range n.keys {
				walk(n.vals[i], append(target, step{name: k, idx: -1}))
			}
		case '[':
			out = append(out, op{target: target, verb: "empty"})
			if len(n.vals) > 0 {
				out = append(out, op{target: target, verb: "append-first"})
				for _, r := range o.Replacements {
					out = append(out, op{target: target, verb: "set", key: step{idx: 0}, value: r})
				}
			}
			for i := range n.vals {
				walk(n.vals[i], append(target, step{idx: i}))
			}
		}
	}
	walk(base, nil)
	return out
}
