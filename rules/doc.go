package rules

import (
	"strconv"
	"strings"
	"time"
)

// Options are the command-line settings document rules may read.
type Options struct {
	// Now is the clock of time rules (--now; watchdog payloads carry their own).
	Now time.Time
	// MaxSkew is how far a heartbeat may lie in the future (--max-skew, default 60 s).
	MaxSkew time.Duration
	// Strict is --strict.
	Strict bool
	// Assignment is the assignment a result is checked against (--assignment),
	// already validated; nil when not given.
	Assignment *Doc
}

// Doc is one decoded JSON document (or JSON Lines record) of a known kind.
// Value holds the decoded JSON: map[string]any, []any, string, float64, bool
// or nil. Document rules run on every document that is well-formed JSON,
// also when the schema rejected it (CONTRACT.md section 2: every violation
// is reported), so they may not rely on types or on required members: read
// values with the checked accessors (Obj, Arr, Str, v.(T) with ok) and skip
// what is absent or has another type; the schema reports it.
type Doc struct {
	Kind    string
	File    string
	Raw     []byte
	Value   any
	Options *Options
}

// Root returns the document's top-level object (nil if it is not an object).
func (d *Doc) Root() map[string]any { return Obj(d.Value) }

// Obj returns v as an object, or nil.
func Obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Arr returns m[key] as an array, or nil.
func Arr(m map[string]any, key string) []any {
	a, _ := m[key].([]any)
	return a
}

// Str returns m[key] as a string ("" when absent or not a string).
func Str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// pointerEscaper escapes a reference token (RFC 6901 section 3). Built once:
// building a strings.Replacer costs kilobytes, Ptr runs for every record.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Ptr builds an RFC 6901 JSON Pointer from member names and array indexes.
func Ptr(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		switch p := p.(type) {
		case int:
			b.WriteString(strconv.Itoa(p))
		case string:
			b.WriteString(pointerEscaper.Replace(p))
		}
	}
	return b.String()
}
