package record

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/rules"
)

// Non-JSON formats (cue/README.md: vermas templates are TOML,
// assignments plain text). The engine converts such a document into an
// equivalent JSON text, so that the kind's CUE definition stays its schema,
// and maps the JSON Pointer of every violation back to the line and column
// of the source: a TOML key's position (or its table header's), the type or
// reference of an assignment line.

// srcPos is a 1-based line and byte column in the source document.
type srcPos struct{ line, col int }

// posMap maps JSON Pointers of the converted document to source positions.
type posMap map[string]srcPos

// at returns the position of pointer p, or of its nearest ancestor that has
// one (the table header of a missing key); line 1, column 1 for the root.
func (m posMap) at(p string) srcPos {
	for {
		if pos, ok := m[p]; ok {
			return pos
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return srcPos{1, 1}
		}
		p = p[:i]
	}
}

// converted is a non-JSON document as JSON: the text, where its values come
// from, and the violations of the conversion (a parse error, or a warning).
type converted struct {
	js   []byte
	pos  posMap
	errs []envelope.Violation
}

// convert turns raw (a document of a kind of format f) into JSON.
func convert(f kind.Format, raw []byte) converted {
	switch f {
	case kind.FormatTOML:
		return tomlJSON(raw)
	case kind.FormatText:
		return assignmentJSON(raw)
	}
	return converted{js: raw}
}

// DocumentJSON returns the JSON form of a whole document of kind k (the
// text after a byte-order mark; TOML and text converted) and a function
// that maps a JSON Pointer of it to a 1-based line and column of the
// source; nil when the document has no JSON form (a parse error). For the
// stream rules (rules.StreamRecord.Locate), off the hot path.
func DocumentJSON(k *kind.Kind, raw []byte) ([]byte, func(string) (int, int)) {
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	if k.Format == kind.FormatTOML || k.Format == kind.FormatText {
		c := convert(k.Format, raw)
		if c.js == nil {
			return nil, nil
		}
		return c.js, func(p string) (int, int) {
			pos := c.pos.at(p)
			return pos.line, pos.col
		}
	}
	return raw, func(p string) (int, int) { return LineCol(raw, Locate(raw, p), 1) }
}

// JSONForm returns the JSON text the schema of kind k judges for a whole
// document raw: raw itself for JSON kinds, the converted JSON for TOML
// templates and assignment text files (a byte-order mark skipped); nil when
// the document has no JSON form (a TOML or assignment syntax error). The
// exported JSON Schemas (lint/schemaexport) apply to this form.
func JSONForm(k *kind.Kind, raw []byte) []byte {
	js, _ := DocumentJSON(k, raw)
	return js
}

// assignmentJSON converts a VerMAS assignment file (seed 000 "Assignment
// Schema": one line {type}:{reference_id}) into
// {"type":…,"reference_id":…}. A final newline is allowed (CRLF with the
// AL007 warning); anything else that is not one UTF-8 line with a ':' is
// VM020. The reference is everything after the first ':'.
func assignmentJSON(raw []byte) converted {
	var c converted
	fail := func(line, col int, format string, args ...any) converted {
		c.errs = append(c.errs, envelope.Violation{Rule: rules.RuleVermasAssignmentFormat, Line: line, Column: col, Parse: true,
			Reason: "assignment file: " + fmt.Sprintf(format, args...)})
		return c
	}
	text := raw
	if t, ok := bytes.CutSuffix(text, []byte("\n")); ok {
		text = t
		if t, ok := bytes.CutSuffix(text, []byte("\r")); ok {
			text = t
			c.errs = append(c.errs, envelope.Violation{Rule: "AL007", Line: 1, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
		}
	}
	if !utf8.Valid(text) {
		return fail(1, 1, "not valid UTF-8")
	}
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		return fail(2, 1, "must hold one line {type}:{reference_id}, found %d lines", bytes.Count(text, []byte("\n"))+1)
	}
	if i := bytes.IndexByte(text, '\r'); i >= 0 {
		return fail(1, i+1, "carriage return inside the line")
	}
	colon := bytes.IndexByte(text, ':')
	if colon < 0 {
		return fail(1, 1, "%q has no ':' between type and reference id ({type}:{reference_id})", clip(string(text)))
	}
	var b []byte
	b = append(b, `{"type":`...)
	b, _ = jsontext.AppendQuote(b, text[:colon])
	b = append(b, `,"reference_id":`...)
	b, _ = jsontext.AppendQuote(b, text[colon+1:])
	b = append(b, '}')
	c.js = b
	c.pos = posMap{"/type": {1, 1}, "/reference_id": {1, colon + 2}}
	return c
}

func clip(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		return string(r[:57]) + "..."
	}
	return s
}

// tomlJSON parses a TOML document with github.com/BurntSushi/toml and
// returns it as JSON: tables are objects (keys sorted), arrays of tables and
// arrays are arrays, integers stay integers and floats keep a fraction or
// exponent (1.0 is not the integer 1), nan and inf become the strings "nan",
// "inf" and "-inf", date-times RFC 3339 strings and local dates and times
// their TOML text. A syntax error is VM030 with its line and column.
func tomlJSON(raw []byte) converted {
	var c converted
	var doc map[string]any
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		line, col, msg := 1, 1, err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line, col, msg = pe.Position.Line, pe.Position.Col, pe.Message
			if pe.LastKey != "" {
				msg = fmt.Sprintf("%s (key %s)", msg, pe.LastKey)
			}
		}
		if col < 1 {
			col = 1
		}
		c.errs = append(c.errs, envelope.Violation{Rule: rules.RuleVermasTemplateSyntax, Line: line, Column: col, Parse: true,
			Reason: "invalid TOML: " + strings.TrimPrefix(msg, "toml: ")})
		return c
	}
	b, err := appendTOMLValue(nil, doc)
	if err != nil {
		c.errs = append(c.errs, envelope.Violation{Rule: rules.RuleVermasTemplateSyntax, Line: 1, Column: 1, Parse: true,
			Reason: "invalid TOML: " + err.Error()})
		return c
	}
	c.js = b
	c.pos = tomlPositions(raw)
	return c
}

func appendTOMLValue(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = jsontext.AppendQuote(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendTOMLValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []map[string]any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = e
		}
		return appendTOMLValue(b, a)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendTOMLValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return jsontext.AppendQuote(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		switch {
		case math.IsNaN(x):
			return append(b, `"nan"`...), nil
		case math.IsInf(x, 1):
			return append(b, `"inf"`...), nil
		case math.IsInf(x, -1):
			return append(b, `"-inf"`...), nil
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return append(b, s...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case time.Time:
		layout := time.RFC3339Nano
		switch x.Location().String() {
		case "datetime-local":
			layout = "2006-01-02T15:04:05.999999999"
		case "date-local":
			layout = "2006-01-02"
		case "time-local":
			layout = "15:04:05.999999999"
		}
		return jsontext.AppendQuote(b, x.Format(layout))
	}
	return nil, fmt.Errorf("unsupported TOML value %T", v)
}

// tomlPositions indexes where the keys and table headers of a TOML document
// (already parsed without error) are: JSON Pointer → line and column.
// Arrays of tables count their elements ([[steps]] → /steps/0, /steps/1);
// the values of inline tables and arrays are located at their key.
func tomlPositions(raw []byte) posMap {
	m := posMap{}
	s := &tomlScanner{src: raw}
	arrays := map[string]int{} // dotted key path of an array of tables → index of its last element
	table := ""                // pointer of the current table
	resolve := func(keys []string) string {
		var p, dotted string
		for i, k := range keys {
			if i > 0 {
				dotted += "."
			}
			dotted += k
			p += "/" + escapePointer(k)
			if n, ok := arrays[dotted]; ok {
				p += "/" + strconv.Itoa(n)
			}
		}
		return p
	}
	for s.i < len(s.src) {
		s.skipBlank()
		if s.i >= len(s.src) {
			break
		}
		start := s.i
		switch s.src[s.i] {
		case '#', '\n', '\r':
			s.skipLine()
			continue
		case '[':
			double := s.i+1 < len(s.src) && s.src[s.i+1] == '['
			if double {
				s.i += 2
			} else {
				s.i++
			}
			keys := s.keys(']')
			if double {
				d := strings.Join(keys, ".")
				if n, ok := arrays[d]; ok {
					arrays[d] = n + 1
				} else {
					arrays[d] = 0
				}
			}
			table = resolve(keys)
			m[table] = s.pos(start)
			s.skipLine()
			continue
		}
		keys := s.keys('=')
		if len(keys) == 0 {
			s.skipLine()
			continue
		}
		p := table
		for _, k := range keys {
			p += "/" + escapePointer(k)
		}
		m[p] = s.pos(start)
		s.i++ // '='
		s.skipBlank()
		s.skipValue()
		s.skipLine()
	}
	return m
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// tomlScanner walks the text of a valid TOML document.
type tomlScanner struct {
	src []byte
	i   int
}

func (s *tomlScanner) pos(off int) srcPos {
	b := s.src[:off]
	return srcPos{bytes.Count(b, []byte{'\n'}) + 1, off - (bytes.LastIndexByte(b, '\n') + 1) + 1}
}

func (s *tomlScanner) skipBlank() {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
		s.i++
	}
}

// skipLine moves past the end of the current line.
func (s *tomlScanner) skipLine() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
	s.i++
}

// keys reads a dotted key up to (not past) end ('=' or ']'; for ']' also
// past "]]").
func (s *tomlScanner) keys(end byte) []string {
	var out []string
	for s.i < len(s.src) {
		s.skipBlank()
		if s.i >= len(s.src) {
			break
		}
		switch c := s.src[s.i]; {
		case c == end:
			if end == ']' {
				for s.i < len(s.src) && s.src[s.i] == ']' {
					s.i++
				}
			}
			return out
		case c == '.':
			s.i++
		case c == '"' || c == '\'':
			j := s.stringEnd(s.i)
			k := string(s.src[s.i+1 : j-1])
			if c == '"' {
				if u, err := strconv.Unquote(`"` + k + `"`); err == nil {
					k = u
				}
			}
			out = append(out, k)
			s.i = j
		case c == '\n':
			return out
		default:
			j := s.i
			for j < len(s.src) && (isBareKey(s.src[j])) {
				j++
			}
			if j == s.i {
				s.i++
				continue
			}
			out = append(out, string(s.src[s.i:j]))
			s.i = j
		}
	}
	return out
}

func isBareKey(c byte) bool {
	return c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// stringEnd returns the index after the string starting at i: basic "…",
// literal '…', multi-line """…""" or ”'…”' (up to two extra quotes
// belong to the content).
func (s *tomlScanner) stringEnd(i int) int {
	q := s.src[i]
	if bytes.HasPrefix(s.src[i:], []byte{q, q, q}) {
		j := i + 3
		for j < len(s.src) {
			if s.src[j] == '\\' && q == '"' {
				j += 2
				continue
			}
			if bytes.HasPrefix(s.src[j:], []byte{q, q, q}) {
				j += 3
				for n := 0; n < 2 && j < len(s.src) && s.src[j] == q; n++ {
					j++
				}
				return j
			}
			j++
		}
		return len(s.src)
	}
	j := i + 1
	for j < len(s.src) && s.src[j] != q && s.src[j] != '\n' {
		if s.src[j] == '\\' && q == '"' {
			j++
		}
		j++
	}
	return j + 1
}

// skipValue moves past one value: a string, an array or inline table
// (nesting, strings and comments included), or a scalar up to the end of
// the line.
func (s *tomlScanner) skipValue() {
	if s.i >= len(s.src) {
		return
	}
	switch s.src[s.i] {
	case '"', '\'':
		s.i = s.stringEnd(s.i)
	case '[', '{':
		depth := 0
		for s.i < len(s.src) {
			switch c := s.src[s.i]; c {
			case '"', '\'':
				s.i = s.stringEnd(s.i)
				continue
			case '#':
				for s.i < len(s.src) && s.src[s.i] != '\n' {
					s.i++
				}
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	}
}
