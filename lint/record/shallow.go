package record

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/fast"
	kindpkg "github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/rules"
)

// Shallow decoding: when every enabled document rule of a kind declares the
// values it reads (rules.Rule.Fields), a record is not decoded whole into
// Doc.Value; the extractor finds the declared values in one scan and only
// they are decoded. A collector event's document rules read three top-level
// strings: decoding its nested tool, hook, correlation and metadata objects
// into maps cost more than validating it.

// docPlan is how the records of one kind are decoded for document rules.
type docPlan struct {
	rules   bool          // some enabled document rule applies
	enabled []*rules.Rule // those rules
	shallow bool          // they all declare Fields
	tokens  [][]string    // the declared pointers' tokens, in fields order
	ptrs    []string      // the declared pointers, as declared, in the same order
	flats   []rules.Flat
	x       *Extractor // per Validator: not safe for concurrent use
	vals    []rules.Value
	// slots are, per tokens entry, the capture slot of the kind's acceptor
	// that holds the value (fast.Acceptor.Fields); nil when the kind has no
	// acceptor or one of the values has no slot.
	slots []int
	// anc is, per tokens entry of slot -1, the index of the declared
	// ancestor whose span holds it (captureSlots).
	anc  []int
	want []string // undeclared top-level members the acceptor records (fast.Acc.Want)
	// wantElems are the top-level arrays of objects among the declared
	// values whose objects the acceptor records (fast.Acc.WantElems), and
	// elemOf, per tokens entry, the index of its member in the acceptor's
	// Names when it is one of them (else -1).
	wantElems uint64
	elemOf    []int
	elemNames [][]string        // per tokens entry of elemOf >= 0, its fast.Acceptor.ElemNames
	elems     []fast.ElemSpan   // flat's objects of the arrays, reused
	flatElems []rules.FlatElems // flat's rules.Flat.Elems, per tokens entry, reused
	raws      [][]byte          // flat's values by tokens entry, reused: those of isAnc only
	isAnc     []bool            // per tokens entry: the anc of another entry
	// direct: every value has a slot of its own (none is read from an
	// ancestor) and none is an array of recorded objects, so flat only
	// copies the spans the acceptor recorded (flatDirect).
	direct bool
	// flatsGot is the set of slots (of slotMask) whose values p.flats
	// held last, in p.slots order, when flatDirect made it (flatsOK): a
	// record with the same set only replaces their Raw.
	flatsGot, slotMask uint64
	flatsOK            bool
	flatsSlots         []int // the slots of p.flats' entries, in order
	// inPlace: every enabled rule reads the values in place (rules.Rule.InPlace).
	inPlace bool
	// whole: the kind is a JSON document (kind.FormatJSON) read shallowly,
	// which is still judged whole: a number beyond float64 anywhere in it
	// is the syntax error that decoding it whole reports (Validator.record),
	// also in a member no rule declares.
	whole bool
	// scalars interns the decoded form of short scalar values (event
	// types, statuses, flags): a record whose values were all seen before
	// is decoded without allocation. At most maxInterned entries.
	scalars map[string]any
}

// maxInterned bounds docPlan.scalars (unique values such as timestamps
// stop being interned once it is full).
const maxInterned = 4096

// plan returns the Validator's decode plan for kind (cached).
func (v *Validator) plan(kind string) *docPlan {
	if p := v.plans[kind]; p != nil {
		return p
	}
	p := &docPlan{}
	shallow := true
	var ptrs []string
	var rs []*rules.Rule
	inPlace := true
	for _, r := range rules.ForKind(kind) {
		if !v.Enabled(r.ID) {
			continue
		}
		rs = append(rs, r)
		inPlace = inPlace && r.InPlace
		if r.Fields == nil {
			shallow = false
		}
		ptrs = append(ptrs, r.Fields...)
	}
	if len(rs) > 0 && shallow {
		p = newShallowPlan(ptrs)
		p.slots, p.anc, p.want = captureSlots(kind, p.tokens)
		p.inPlace = inPlace
		if inPlace && p.slots != nil {
			p.wantElems, p.elemOf, p.elemNames = elemArrays(kind, p.tokens)
			p.flatElems = make([]rules.FlatElems, len(p.tokens))
			p.direct = p.elemOf == nil && !slices.ContainsFunc(p.slots, func(s int) bool { return s < 0 })
			for _, s := range p.slots {
				if s >= 0 {
					p.slotMask |= 1 << uint(s)
				}
			}
		}
		k := kindpkg.Lookup(kind)
		p.whole = k != nil && k.Format == kindpkg.FormatJSON
	}
	p.rules, p.enabled = len(rs) > 0, rs
	if v.plans == nil {
		v.plans = map[string]*docPlan{}
	}
	v.plans[kind] = p
	return p
}

// newShallowPlan returns the plan that decodes the values at ptrs (JSON
// Pointers of member names, checked by rules.Register; repeats ignored).
func newShallowPlan(ptrs []string) *docPlan {
	p := &docPlan{rules: true, shallow: true}
	seen := map[string]bool{}
	for _, f := range ptrs {
		if !seen[f] {
			seen[f] = true
			p.ptrs = append(p.ptrs, f)
		}
	}
	// Parents first, so that a declared parent holds its whole value.
	sort.SliceStable(p.ptrs, func(a, b int) bool { return strings.Count(p.ptrs[a], "/") < strings.Count(p.ptrs[b], "/") })
	for _, f := range p.ptrs {
		toks, _ := rules.PointerTokens(f)
		p.tokens = append(p.tokens, toks)
	}
	fields := make([]rules.Field, len(p.tokens))
	for i, toks := range p.tokens {
		fields[i] = rules.Field{Pointer: rules.Ptr(anySlice(toks)...), Type: rules.FieldRaw}
	}
	p.x = NewExtractor("", fields)
	p.vals = make([]rules.Value, len(fields))
	return p
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// captureSlots returns the capture slots of kind's acceptor that hold the
// values at the pointers tokens (parents first), or nil when one has none.
//
// A top-level member the kind's definition does not declare at all (an operator
// rule reading notes_for_orchestrator of a worklog entry, where it can only
// be an undeclared member) is recorded by the acceptor too, in a slot from
// the top (fast.Acc.Want): want lists those members. A member of a
// declared value that has no slot of its own (a member of such an
// undeclared member) has slot -1 and anc, the index in tokens of its
// nearest declared ancestor, from whose span flat reads it; so has a
// member whose slot only the declarations under conditions that declare
// it fill (fast.Acceptor.Cond: a VerMAS event's /data/title).
func captureSlots(kind string, tokens [][]string) (slots, anc []int, want []string) {
	acc := fast.Acceptors[kind]
	if acc == nil {
		return nil, nil, nil
	}
	slots, anc = make([]int, len(tokens)), make([]int, len(tokens))
	for i, toks := range tokens {
		anc[i] = -1
		slots[i] = slices.Index(acc.Fields, rules.Ptr(anySlice(toks)...))
		if slots[i] >= 0 && acc.Cond&(1<<uint(slots[i])) != 0 {
			slots[i] = -1 // recorded under some conditions only: read from its ancestor
		}
		if slots[i] >= 0 {
			continue
		}
		for j := i - 1; j >= 0 && len(toks) > 1; j-- {
			if len(tokens[j]) < len(toks) && slices.Equal(tokens[j], toks[:len(tokens[j])]) {
				anc[i] = j
				break
			}
		}
		if anc[i] >= 0 {
			continue
		}
		if len(toks) != 1 || slices.Contains(acc.Names, toks[0]) || len(acc.Fields)+len(want) >= fast.MaxCaptures || len(want) == maxWant {
			return nil, nil, nil
		}
		slots[i] = fast.MaxCaptures - 1 - len(want)
		want = append(want, toks[0])
	}
	return slots, anc, want
}

// elemArrays returns the top-level members among the pointers tokens
// whose values kind's acceptor reads as arrays of objects whose members it
// can record (fast.Acceptor.ElemNames), as fast.Acc.WantElems, and per
// tokens entry the index of its member in the acceptor's Names (-1 for the
// others) and the names of its objects' members.
func elemArrays(kind string, tokens [][]string) (uint64, []int, [][]string) {
	acc := fast.Acceptors[kind]
	if acc == nil || len(acc.ElemNames) == 0 {
		return 0, nil, nil
	}
	var want uint64
	of, names := make([]int, len(tokens)), make([][]string, len(tokens))
	for i, toks := range tokens {
		of[i] = -1
		if len(toks) != 1 || acc.ElemNames[toks[0]] == nil {
			continue
		}
		if k := slices.Index(acc.Names, toks[0]); k >= 0 && k < 64 {
			of[i], names[i], want = k, acc.ElemNames[toks[0]], want|1<<uint(k)
		}
	}
	if want == 0 {
		return 0, nil, nil
	}
	return want, of, names
}

// elemsOf returns what the acceptor recorded of the objects of the array
// that is top-level member top (its index in the acceptor's Names): a.Elems
// when it is the only one wanted, otherwise its entries, in p.elems.
func (p *docPlan) elemsOf(a *fast.Acc, top uint8) []fast.ElemSpan {
	if p.wantElems&(p.wantElems-1) == 0 {
		return a.Elems
	}
	start := len(p.elems)
	for _, e := range a.Elems {
		if e.Top == top {
			p.elems = append(p.elems, e)
		}
	}
	return p.elems[start:len(p.elems):len(p.elems)]
}

// maxWant bounds the undeclared members a plan has the acceptor record.
const maxWant = 8

// flat returns the declared values of a record that the kind's acceptor
// accepted, where it recorded them (rules.Doc.Flat; parents first): no scan
// of the record, nothing decoded. The slice is reused by the next call. It
// returns false when a value holds a number beyond float64's range, which
// decoding it reports (capturedValue): the acceptor takes such a number
// where the kind does not type it (an undeclared member of a stack frame),
// and notes in fast.Acc.Wide a record that may hold one.
func (p *docPlan) flat(raw []byte, a *fast.Acc) ([]rules.Flat, bool) {
	if p.direct && !a.Wide {
		return p.flatDirect(raw, a), true
	}
	p.flatsOK = false
	p.flats, p.elems = p.flats[:0], p.elems[:0]
	if p.raws == nil {
		p.raws, p.isAnc = make([][]byte, len(p.slots)), make([]bool, len(p.slots))
		for _, j := range p.anc {
			if j >= 0 {
				p.isAnc[j] = true
			}
		}
	}
	for i, s := range p.slots {
		if p.isAnc[i] {
			p.raws[i] = nil
		}
		var v []byte
		switch {
		case s < 0: // a member of its declared ancestor's value
			var ok bool
			if v, ok = memberAt(p.raws[p.anc[i]], p.tokens[i][len(p.tokens[p.anc[i]]):]); !ok {
				return nil, false
			}
		case a.Got&(1<<uint(s)) != 0:
			sp := a.Spans[s]
			v = raw[sp.Start:sp.End]
		}
		if v == nil {
			continue
		}
		if a.Wide && len(v) > 0 && v[0] != '"' && !numbersFit(v) {
			return nil, false
		}
		if p.isAnc[i] {
			p.raws[i] = v
		}
		p.flats = append(p.flats, rules.Flat{Pointer: p.ptrs[i], Raw: v})
		if p.elemOf != nil && p.elemOf[i] >= 0 && s >= 0 {
			e := &p.flatElems[i]
			e.Spans, e.Names, e.Base = p.elemsOf(a, uint8(p.elemOf[i])), p.elemNames[i], int(a.Spans[s].Start)
			p.flats[len(p.flats)-1].Elems = e
		}
	}
	return p.flats, true
}

// flatDirect is flat for a plan whose values all have slots of their own
// (direct) and a record without wide numbers: the spans the acceptor
// recorded, in the plan's order.
func (p *docPlan) flatDirect(raw []byte, a *fast.Acc) []rules.Flat {
	got := a.Got & p.slotMask
	if p.flatsOK && got == p.flatsGot {
		// The same members as the last record (most records of a kind):
		// only their values change.
		fl := p.flats
		for k, s := range p.flatsSlots[:len(fl)] {
			sp := &a.Spans[s]
			fl[k].Raw = raw[sp.Start:sp.End]
		}
		return fl
	}
	if cap(p.flats) < len(p.slots) {
		p.flats = make([]rules.Flat, len(p.slots))
	}
	if len(p.flatsSlots) < len(p.slots) {
		p.flatsSlots = make([]int, len(p.slots))
	}
	fl, k := p.flats[:len(p.slots)], 0
	for i, s := range p.slots {
		if got&(1<<uint(s)) == 0 {
			continue
		}
		sp := &a.Spans[s]
		fl[k] = rules.Flat{Pointer: p.ptrs[i], Raw: raw[sp.Start:sp.End]}
		p.flatsSlots[k] = s
		k++
	}
	p.flats = fl[:k]
	p.flatsGot, p.flatsOK = got, true
	return p.flats
}

// scannedFlat is flat for a record its kind's acceptor declined (a value
// the schema rejects, a string with an escape): the declared values found
// by one scan of the record (the extractor, which reads member names as
// decoding does), nothing decoded. False when a value holds a number
// beyond float64's range, which decoding it reports (shallowValue). The
// record is well-formed JSON (the validator found no syntax error), so no
// member name in it repeats.
func (p *docPlan) scannedFlat(raw []byte) ([]rules.Flat, bool) {
	p.flatsOK = false
	p.flats = p.flats[:0]
	p.x.Arena = p.x.Arena[:0]
	p.x.extract(raw, p.vals)
	for i := range p.tokens {
		v := &p.vals[i]
		if v.Type != rules.ValueRaw {
			continue
		}
		if len(v.Str) > 0 && v.Str[0] != '"' && !numbersFit(v.Str) {
			return nil, false
		}
		p.flats = append(p.flats, rules.Flat{Pointer: p.ptrs[i], Raw: v.Str})
	}
	return p.flats, true
}

// memberAt returns the JSON text at the member names toks inside the JSON
// text v of an accepted record (nil when v is nil or has no such member);
// false when a member name there has an escape, which it does not compare.
func memberAt(v []byte, toks []string) ([]byte, bool) {
	for _, t := range toks {
		i := fast.SkipWS(v, 0)
		if i >= len(v) || v[i] != '{' {
			return nil, true
		}
		var found []byte
		if i = fast.SkipWS(v, i+1); i < len(v) && v[i] == '}' {
			return nil, true
		}
		for {
			if i >= len(v) || v[i] != '"' {
				return nil, false
			}
			k := fast.SkipString(v, i)
			if k < 0 || bytes.IndexByte(v[i:k], '\\') >= 0 {
				return nil, false
			}
			name := v[i+1 : k-1]
			if i = fast.SkipWS(v, k); i >= len(v) || v[i] != ':' {
				return nil, false
			}
			j := fast.SkipWS(v, i+1)
			e := fast.SkipValue(v, j)
			if e < 0 {
				return nil, false
			}
			if string(name) == t {
				found = v[j:e]
				break
			}
			var more bool
			if i, more = fast.Next(v, e, '}'); i < 0 {
				return nil, false
			} else if !more {
				return nil, true
			}
		}
		v = found
	}
	return v, true
}

// numbersFit reports whether every number of the well-formed JSON text v
// is within float64's range, as decoding it requires: only a number with
// an exponent or of more than 300 characters can be beyond it, and only
// those are parsed.
func numbersFit(v []byte) bool {
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			if i = fast.SkipString(v, i); i < 0 {
				return true // not well formed: the decoder's to judge, as before
			}
		case c == '-' || '0' <= c && c <= '9':
			j, exp := i, false
			for j < len(v) && (v[j] == '-' || v[j] == '+' || v[j] == '.' || v[j] == 'e' || v[j] == 'E' || '0' <= v[j] && v[j] <= '9') {
				exp = exp || v[j] == 'e' || v[j] == 'E'
				j++
			}
			if exp || j-i > 300 {
				if _, err := strconv.ParseFloat(string(v[i:j]), 64); err != nil {
					return false
				}
			}
			i = j
		default:
			i++
		}
	}
	return true
}

// capturedValue is shallowValue for a record that the kind's acceptor
// accepted: the values are where it recorded them, not found by a scan.
func (p *docPlan) capturedValue(raw []byte, a *fast.Acc) (map[string]any, error) {
	return p.object(func(i int) ([]byte, bool) {
		s := p.slots[i]
		if s < 0 || a.Got&(1<<uint(s)) == 0 {
			return nil, false // its span is another record's
		}
		sp := a.Spans[s]
		return raw[sp.Start:sp.End], true
	})
}

// shallowValue decodes the declared values of raw into an object holding
// just them.
func (p *docPlan) shallowValue(raw []byte) (map[string]any, error) {
	p.x.Arena = p.x.Arena[:0]
	p.x.extract(raw, p.vals)
	return p.object(func(i int) ([]byte, bool) { return p.vals[i].Str, p.vals[i].Type == rules.ValueRaw })
}

// object decodes the declared values that value gives (the JSON text of
// the i-th of p.tokens, and whether the record has it) into an object
// holding just them.
func (p *docPlan) object(value func(i int) ([]byte, bool)) (map[string]any, error) {
	root := map[string]any{}
	for i, toks := range p.tokens {
		raw, ok := value(i)
		if !ok {
			continue
		}
		x, err := p.decodeScalar(raw)
		if err != nil {
			return nil, err
		}
		if m := parentObject(root, toks); m != nil {
			if _, taken := m[toks[len(toks)-1]]; !taken {
				m[toks[len(toks)-1]] = x
			}
		}
	}
	return root, nil
}

// parentObject returns the object of root that holds the value at toks,
// creating missing intermediate objects; nil when a declared parent holds a
// value that is not an object.
func parentObject(root map[string]any, toks []string) map[string]any {
	m := root
	for _, t := range toks[:len(toks)-1] {
		cur, exists := m[t]
		if !exists {
			sub := map[string]any{}
			m[t] = sub
			m = sub
			continue
		}
		sub, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		m = sub
	}
	return m
}

// decodeScalar is decodeRaw with the short scalars interned (scalars).
func (p *docPlan) decodeScalar(raw []byte) (any, error) {
	if len(raw) > 64 || raw[0] == '{' || raw[0] == '[' {
		return decodeRaw(raw)
	}
	if x, ok := p.scalars[string(raw)]; ok {
		return x, nil
	}
	x, err := decodeRaw(raw)
	if err == nil && len(p.scalars) < maxInterned {
		if p.scalars == nil {
			p.scalars = map[string]any{}
		}
		p.scalars[string(raw)] = x
	}
	return x, err
}

// decodeRaw decodes one JSON value as json.Unmarshal into any would: with
// fast.Decode, and with json.Unmarshal (which explains the error) whatever
// that declines.
func decodeRaw(raw []byte) (any, error) {
	if x, ok := fast.Decode(raw); ok {
		return x, nil
	}
	var x any
	err := json.Unmarshal(raw, &x)
	return x, err
}
