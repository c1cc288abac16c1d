// Package jsonschema is a JSON Schema engine for the kinds whose seed ships
// a JSON Schema: today collector/event, validated with seed 004's schema
// (cue/collector.schema.json, verbatim) by
// github.com/santhosh-tekuri/jsonschema/v5 with format assertions on
// (date-time; uuid in the 8-4-4-4-12 form), as cue/README.md
// "collector" says the seed's schema is authoritative.
//
// It is the reference the CUE definition (cue/collector.cue) and the fast
// path are tested against (jsonschema_test.go). It reports exactly what the
// schema says: a missing required property is MISSING_REQUIRED_INPUT (rule
// AL002) at the property's pointer, every other keyword failure
// SCHEMA_INVALID (AL003) at the failing value; agentlint's additions
// (UNKNOWN_SCHEMA_VERSION for a version major other than 1, integers without
// fraction or exponent, --strict) are not applied: Engine has the signature
// of record.SchemaEngine so that the lint engine can run it, and the document
// rules of the registry then run on top of it as on any engine.
//
// Input is read with the same JSON reader as the fast path
// (go-json-experiment/jsontext: duplicate keys, invalid UTF-8 and nesting
// deeper than fast.MaxDepth are syntax errors, rule AL001), and numbers are
// kept as json.Number literals so that the schema library compares them
// exactly.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	js "github.com/santhosh-tekuri/jsonschema/v5"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/record"
)

// Schemas maps each kind this engine validates to its JSON Schema file in
// the embedded cue/ directory (cuedefs.Files).
var Schemas = map[string]string{
	"collector/event": "collector.schema.json", // seed 004 "JSON Schema", verbatim
}

// Engine validates records against the compiled JSON Schemas. It is safe
// for concurrent use (compiled schemas are read-only).
type Engine struct {
	kinds map[string]*kindSchema
}

type kindSchema struct {
	schema *js.Schema
	doc    any // the schema document, to read `required` lists
}

// New compiles every schema of Schemas. Schemas are loaded from the embedded
// files only: a $ref to anything else fails to compile (no network).
func New() (*Engine, error) {
	e := &Engine{kinds: map[string]*kindSchema{}}
	for kind, file := range Schemas {
		src, err := fs.ReadFile(cuedefs.Files, file)
		if err != nil {
			return nil, fmt.Errorf("jsonschema: %w", err)
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("jsonschema: %s: %w", file, err)
		}
		url := "file:///" + file
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && id != "" {
				url = id
			}
		}
		c := js.NewCompiler()
		c.Draft = js.Draft7 // the seed's $schema; also the default when absent
		c.AssertFormat = true
		c.LoadURL = func(s string) (io.ReadCloser, error) {
			return nil, fmt.Errorf("jsonschema: %s: only the embedded schema may be loaded", s)
		}
		if err := c.AddResource(url, bytes.NewReader(src)); err != nil {
			return nil, fmt.Errorf("jsonschema: %s: %w", file, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("jsonschema: %s: %w", file, err)
		}
		e.kinds[kind] = &kindSchema{schema: s, doc: doc}
	}
	return e, nil
}

// Kinds returns the kinds the engine validates, sorted.
func (e *Engine) Kinds() []string {
	out := make([]string, 0, len(e.kinds))
	for k := range e.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Has reports whether the engine validates kind.
func (e *Engine) Has(kind string) bool { return e.kinds[kind] != nil }

// Validate validates one JSON text of kind and returns its violations (Rule,
// Pointer, Line, Column, Reason; Parse for a syntax error, then the only
// violation), sorted by pointer. Code and severity are left to the caller
// (rules.Lookup). A kind without a schema is one AL010 violation.
func (e *Engine) Validate(kind string, raw []byte) []envelope.Violation {
	return e.Schema(kind, raw, 1, false)
}

// Schema implements record.SchemaEngine for a JSON text whose first byte is on
// line line1. strict is ignored: JSON Schema has no strict mode (agentlint's
// --strict, cue/README.md, is the CUE definition's).
func (e *Engine) Schema(kind string, raw []byte, line1 int, strict bool) []envelope.Violation {
	_ = strict
	ks := e.kinds[kind]
	if ks == nil {
		return []envelope.Violation{{Rule: record.RuleMissingValidator, Line: line1, Column: 1, Reason: "no JSON Schema for kind " + kind}}
	}
	r := &reader{raw: raw}
	v, err := r.read()
	if err != nil {
		line, col := record.LineCol(raw, max(r.errOff, 0), line1)
		return []envelope.Violation{{Rule: fast.RuleSyntax, Parse: true, Line: line, Column: col, Reason: "invalid JSON: " + fast.DecodeError(err)}}
	}
	err = validate(ks.schema, v)
	if err == nil {
		return nil
	}
	var ve *js.ValidationError
	if !errors.As(err, &ve) {
		return []envelope.Violation{{Rule: fast.RuleValue, Line: line1, Column: 1, Reason: err.Error()}}
	}
	var out []envelope.Violation
	add := func(rule, ptr, reason string) {
		line, col := record.LineCol(raw, record.Locate(raw, ptr), line1)
		out = append(out, envelope.Violation{Rule: rule, Pointer: ptr, Line: line, Column: col, Reason: reason})
	}
	for _, leaf := range leaves(ve) {
		if strings.HasSuffix(leaf.KeywordLocation, "/required") || leaf.KeywordLocation == "required" {
			obj, _ := at(v, leaf.InstanceLocation).(map[string]any)
			for _, name := range requiredAt(ks.doc, leaf.AbsoluteKeywordLocation) {
				if _, ok := obj[name]; !ok && obj != nil {
					add(fast.RuleRequired, leaf.InstanceLocation+"/"+escape(name), "required property "+strconv.Quote(name)+" is missing")
				}
			}
			continue
		}
		reason := leaf.Message
		if leaf.InstanceLocation != "" {
			reason = leaf.InstanceLocation + ": " + reason
		}
		add(fast.RuleValue, leaf.InstanceLocation, reason)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// validate runs the schema; the library panics on values it cannot handle
// (InvalidJSONTypeError is returned, anything else would be a bug of ours
// or of the library) and the panic becomes an error.
func validate(s *js.Schema, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("jsonschema: the schema library failed on this value: %v", p)
		}
	}()
	return s.Validate(v)
}

// leaves returns the innermost errors of a validation error tree, each a
// failing keyword at an instance location.
func leaves(ve *js.ValidationError) []*js.ValidationError {
	if len(ve.Causes) == 0 {
		return []*js.ValidationError{ve}
	}
	var out []*js.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// requiredAt returns the `required` list at an absolute keyword location
// ("https://…/x.json#/properties/tool/required") of the schema document.
func requiredAt(doc any, absLoc string) []string {
	_, frag, _ := strings.Cut(absLoc, "#")
	list, _ := at(doc, frag).([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// at returns the value at RFC 6901 pointer p of v, or nil.
func at(v any, p string) any {
	if p == "" {
		return v
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// reader decodes one JSON text into map[string]any, []any, string,
// json.Number, bool and nil; errOff is the byte offset of a syntax error.
type reader struct {
	raw    []byte
	d      *jsontext.Decoder
	errOff int64
}

func (r *reader) read() (any, error) {
	r.d = jsontext.NewDecoder(bytes.NewReader(r.raw))
	v, err := r.value(0)
	if err == nil {
		if _, err2 := r.d.ReadToken(); err2 != io.EOF {
			err = errors.New("unexpected data after the top-level value")
			if err2 != nil {
				err = err2
			}
		}
	}
	if err != nil {
		r.errOff = r.d.InputOffset()
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			r.errOff = se.ByteOffset
			err = se.Err
		}
		return nil, errors.New(strings.TrimPrefix(err.Error(), "jsontext: "))
	}
	return v, nil
}

func (r *reader) value(depth int) (any, error) {
	if depth >= fast.MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", fast.MaxDepth)
	}
	switch r.d.PeekKind() {
	case '{':
		if _, err := r.d.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for r.d.PeekKind() != '}' {
			tok, err := r.d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next decoder call voids tok
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := r.d.ReadToken()
		return m, err
	case '[':
		if _, err := r.d.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for r.d.PeekKind() != ']' {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := r.d.ReadToken()
		return a, err
	}
	tok, err := r.d.ReadToken()
	if err != nil {
		return nil, err
	}
	var v any
	switch tok.Kind() { // read tok before the next decoder call voids it
	case 'n':
	case 't', 'f':
		v = tok.Bool()
	case '"':
		v = tok.String()
	case '0':
		v = number(tok.String())
	default:
		return nil, fmt.Errorf("unexpected token %s", tok.Kind())
	}
	return v, nil
}

// maxRatExp is the largest decimal exponent math/big.Rat parses (it refuses
// larger ones, and the schema library would then fail on a nil *big.Rat).
const maxRatExp = 100_000

// number returns the literal as json.Number, with an exponent beyond what
// big.Rat parses clamped to ±maxRatExp: the value keeps its sign, stays
// non-zero or zero, above 1 or below 1, and an integer or not as before
// for the keywords of seed 004's schema (type, minimum, maximum).
func number(lit string) json.Number {
	i := strings.IndexAny(lit, "eE")
	if i < 0 || len(lit)-i < 7 {
		return json.Number(lit)
	}
	if _, ok := new(big.Rat).SetString(lit); ok {
		return json.Number(lit)
	}
	exp := lit[i+1:]
	neg := strings.HasPrefix(exp, "-")
	clamped := "e" + strconv.Itoa(maxRatExp)
	if neg {
		clamped = "e-" + strconv.Itoa(maxRatExp)
	}
	return json.Number(lit[:i] + clamped)
}
