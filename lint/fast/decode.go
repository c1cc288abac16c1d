package fast

import (
	"strconv"

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
	d := decoder{b: b}
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

type decoder struct{ b []byte }

// value decodes the value at b[i] (not white space) and returns it and the
// index after it, or j < 0.
func (d *decoder) value(i, depth int) (any, int) {
	b := d.b
	switch b[i] {
	case '"':
		return d.text(i)
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
		f, err := strconv.ParseFloat(string(b[i:j]), 64)
		if err != nil {
			return nil, -1 // out of range: json.Unmarshal reports it
		}
		return f, j
	}
}

// text decodes the string literal at b[i] == '"' into a string.
func (d *decoder) text(i int) (string, int) {
	j, esc := strEnd(d.b, i)
	if j < 0 {
		return "", -1
	}
	if !esc {
		return string(d.b[i+1 : j-1]), j
	}
	u, err := jsontext.AppendUnquote(nil, d.b[i:j])
	if err != nil {
		return "", -1
	}
	return string(u), j
}

func (d *decoder) object(i, depth int) (any, int) {
	b := d.b
	m := map[string]any{}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, -1
		}
		k, j := d.text(i)
		if j < 0 {
			return nil, -1
		}
		if _, dup := m[k]; dup {
			return nil, -1
		}
		j = SkipWS(b, j)
		if j >= len(b) || b[j] != ':' {
			return nil, -1
		}
		j = SkipWS(b, j+1)
		if j >= len(b) {
			return nil, -1
		}
		v, j := d.value(j, depth)
		if j < 0 {
			return nil, -1
		}
		m[k] = v
		var more bool
		if i, more = Next(b, j, '}'); !more {
			if i < 0 {
				return nil, -1
			}
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
