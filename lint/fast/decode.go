package fast

import (
	"hash/maphash"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
)

// Decode decodes the JSON value b (white space around it allowed) as
// json.Unmarshal into an any does: objects as map[string]any, arrays as []any,
// numbers as float64, strings unescaped, true, false and nil. It reports false,
// having decoded nothing usable, for whatever it does not decode exactly so: text
// that is not one well-formed value, a duplicate member name, a number beyond
// float64's range, nesting deeper than MaxDepth (the documents' own limit). The
// caller then asks json.Unmarshal, which decides and explains.
//
// It exists for speed: the document rules of idle and VerMAS
// records read nested values (a STATE's stack, an event's data), and
// json.Unmarshal's reflection-driven decoding into any was a third of
// linting an idle log. TestDecodeAgreesWithUnmarshal and FuzzDecode hold it
// to json.Unmarshal.
func Decode(b []byte) (any, bool) {
	d := decoders.Get().(*decoder)
	d.b = b
	defer func() {
		d.b = nil
		decoders.Put(d)
	}()
	i := SkipWS(b, 0)
	if i >= len(b) {
		return nil, false
	}
	x, j := d.value(i, 0)
	if j < 0 || SkipWS(b, j) != len(b) {
		return nil, false
	}
	return x, true
}

// decoders reuse the member stacks of decoders.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder decodes one text; members holds the members of the objects
// being decoded (nested objects above their parents'), so that each map is
// made at its final size once its members are known.
type decoder struct {
	b       []byte
	members []member
}

type member struct {
	k string
	v any
}

// value decodes the value at b[i] (not white space) and returns it and the
// index after it, or j < 0.
func (d *decoder) value(i, depth int) (any, int) {
	b := d.b
	switch b[i] {
	case '"':
		return d.textValue(i)
	case '{':
		if depth >= MaxDepth {
			return nil, -1
		}
		return d.object(i, depth+1)
	case '[':
		if depth >= MaxDepth {
			return nil, -1
		}
		return d.array(i, depth+1)
	case 't':
		return true, Lit(b, i, "true")
	case 'f':
		return false, Lit(b, i, "false")
	case 'n':
		return nil, Lit(b, i, "null")
	default:
		j, _ := Num(b, i)
		if j < 0 {
			return nil, -1
		}
		if x, ok := smallInt(b[i:j]); ok {
			return x, j
		}
		f, err := strconv.ParseFloat(string(b[i:j]), 64)
		if err != nil {
			return nil, -1 // out of range: json.Unmarshal reports it
		}
		return f, j
	}
}

// smallInts are the numbers 0 to 1023 as values: decoding one of them
// costs no allocation.
var smallInts = func() (t [1024]any) {
	for i := range t {
		t[i] = float64(i)
	}
	return t
}()

// smallInt returns the value of num (a JSON number) when it is an integer
// of 0 to 1023 written in digits only.
func smallInt(num []byte) (any, bool) {
	if len(num) > 4 {
		return nil, false
	}
	n := 0
	for _, c := range num {
		if c < '0' || c > '9' {
			return nil, false
		}
		n = n*10 + int(c-'0')
	}
	if n >= len(smallInts) {
		return nil, false
	}
	return smallInts[n], true
}

// text decodes the string literal at b[i] == '"' into a string.
func (d *decoder) text(i int) (string, int) {
	j, esc := strEnd(d.b, i)
	if j < 0 {
		return "", -1
	}
	if !esc {
		if e := intern(d.b[i+1:j-1], false); e != nil {
			return e.s, j
		}
		return string(d.b[i+1 : j-1]), j
	}
	u, err := jsontext.AppendUnquote(nil, d.b[i:j])
	if err != nil {
		return "", -1
	}
	return string(u), j
}

// textValue is text as a value.
func (d *decoder) textValue(i int) (any, int) {
	j, esc := strEnd(d.b, i)
	if j >= 0 && !esc {
		if e := intern(d.b[i+1:j-1], true); e != nil {
			return e.v, j
		}
	}
	return d.text(i)
}

// interned is a string and the same string as a value.
type interned struct {
	s string
	v any
}

// internTab holds strings that records repeat (member names, enumerated
// values, the paths and ids of one log): decoding one found here costs no
// allocation. A slot holds the last string hashed to it; a string that
// misses replaces it.
var internTab [1 << 12]atomic.Pointer[interned]

var internSeed = maphash.MakeSeed()

// intern returns the interned form of b, or nil when b is too long to be
// worth keeping or (value: a member's value, not its name) not interned:
// a value that misses takes the slot only once in internEvery misses, so
// that values decoded once (ids, times) do not push out those that recur.
func intern(b []byte, value bool) *interned {
	if len(b) > 48 {
		return nil
	}
	slot := &internTab[maphash.Bytes(internSeed, b)&(1<<12-1)]
	if e := slot.Load(); e != nil && e.s == string(b) {
		return e
	}
	if value && internMiss.Add(1)%internEvery != 0 {
		return nil
	}
	s := string(b)
	e := &interned{s: s, v: s}
	slot.Store(e)
	return e
}

// internMiss counts the values that missed internTab.
var internMiss atomic.Uint32

const internEvery = 8

func (d *decoder) object(i, depth int) (any, int) {
	b := d.b
	base := len(d.members)
	fail := func() (any, int) {
		clear(d.members[base:])
		d.members = d.members[:base]
		return nil, -1
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return map[string]any{}, i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return fail()
		}
		k, j := d.text(i)
		if j < 0 {
			return fail()
		}
		j = SkipWS(b, j)
		if j >= len(b) || b[j] != ':' {
			return fail()
		}
		j = SkipWS(b, j+1)
		if j >= len(b) {
			return fail()
		}
		v, j := d.value(j, depth)
		if j < 0 {
			return fail()
		}
		d.members = append(d.members, member{k, v})
		var more bool
		if i, more = Next(b, j, '}'); !more {
			if i < 0 {
				return fail()
			}
			ms := d.members[base:]
			m := make(map[string]any, len(ms))
			for _, x := range ms {
				m[x.k] = x.v
			}
			if len(m) != len(ms) { // a duplicate member name
				return fail()
			}
			clear(ms)
			d.members = d.members[:base]
			return m, i
		}
	}
}

func (d *decoder) array(i, depth int) (any, int) {
	b := d.b
	a := []any{}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return a, i + 1
	}
	for {
		if i >= len(b) {
			return nil, -1
		}
		v, j := d.value(i, depth)
		if j < 0 {
			return nil, -1
		}
		a = append(a, v)
		var more bool
		if i, more = Next(b, j, ']'); !more {
			if i < 0 {
				return nil, -1
			}
			return a, i
		}
	}
}
