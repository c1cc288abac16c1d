package output

import (
	"unicode/utf8"

	"github.com/agentlint/agentlint/lint/envelope"
)

const hexDigits = "0123456789abcdef"

// isControl reports whether the rune r of width w at the start of s's
// remainder must not reach a terminal or a log raw: a C0 control
// (U+0000-U+001F), DEL (U+007F), a C1 control (U+0080-U+009F) or a byte
// that is not UTF-8 (a lone 0x9b is CSI to some terminals).
func isControl(r rune, w int) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r == utf8.RuneError && w == 1)
}

// needsClean reports whether s holds a character Clean rewrites.
func needsClean(s string) bool {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b < 0x20 || b == 0x7f {
				return true
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if isControl(r, w) {
			return true
		}
		i += w
	}
	return false
}

// Clean returns s with every control character written as visible text,
// so that a file name, reason or value from hostile input cannot move the
// cursor, recolour or retitle a terminal, or forge a line of output: a C0
// control or DEL as \x1b (tab and newline too: a line of output is one
// line), a C1 control as \u009b, and a byte that is not UTF-8 as \xff. s
// is returned as is, without allocating, when it holds none.
func Clean(s string) string { return clean(s, false) }

// cleanLines is Clean but for CR and LF, which the github format encodes
// itself (%0D, %0A).
func cleanLines(s string) string { return clean(s, true) }

func clean(s string, keepLines bool) string {
	if !needsClean(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case keepLines && (r == '\n' || r == '\r'):
			b = append(b, s[i])
		case r == utf8.RuneError && w == 1, r < 0x20, r == 0x7f:
			c := s[i]
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case r >= 0x80 && r <= 0x9f:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return string(b)
}

// cleanEnvelope returns e with every string it holds (reason, file,
// violations' rule, pointer, reason and details) passed through Clean,
// for the formats that print strings as they are (text, github, junit,
// markdown). e itself is not changed; it is returned as is when it holds no
// control character.
func cleanEnvelope(e envelope.Envelope) envelope.Envelope { return cleanEnvelopeWith(e, Clean) }

// cleanEnvelopeWith is cleanEnvelope with the string cleaner c (Clean or
// cleanLines).
func cleanEnvelopeWith(e envelope.Envelope, c func(string) string) envelope.Envelope {
	if !needsClean(e.Reason) && !needsClean(string(e.Code)) && !valueNeedsClean(e.Details) {
		return e
	}
	e.Reason, e.Code = c(e.Reason), envelope.Code(c(string(e.Code)))
	if e.Details != nil {
		e.Details = cleanValue(e.Details, c).(map[string]any)
	}
	return e
}

func cleanViolation(v envelope.Violation, c func(string) string) envelope.Violation {
	v.Rule, v.Pointer, v.Reason = c(v.Rule), c(v.Pointer), c(v.Reason)
	v.Code, v.Severity = envelope.Code(c(string(v.Code))), envelope.Severity(c(string(v.Severity)))
	if v.Extra != nil {
		v.Extra = cleanValue(v.Extra, c).(map[string]any)
	}
	return v
}

// valueNeedsClean reports whether a details value holds a string (or a
// map key) that Clean rewrites.
func valueNeedsClean(x any) bool {
	switch x := x.(type) {
	case string:
		return needsClean(x)
	case []string:
		for _, s := range x {
			if needsClean(s) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if valueNeedsClean(y) {
				return true
			}
		}
	case map[string]any:
		for k, y := range x {
			if needsClean(k) || valueNeedsClean(y) {
				return true
			}
		}
	case map[string]int:
		for k := range x {
			if needsClean(k) {
				return true
			}
		}
	case []envelope.Violation:
		for i := range x {
			v := &x[i]
			if needsClean(v.Rule) || needsClean(v.Pointer) || needsClean(v.Reason) || needsClean(string(v.Code)) ||
				needsClean(string(v.Severity)) || valueNeedsClean(v.Extra) {
				return true
			}
		}
	}
	return false
}

// cleanValue returns a copy of a details value with its strings and map
// keys cleaned; values of other types are shared.
func cleanValue(x any, c func(string) string) any {
	switch x := x.(type) {
	case string:
		return c(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = c(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = cleanValue(y, c)
		}
		return out
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[c(k)] = cleanValue(y, c)
		}
		return out
	case map[string]int:
		if x == nil {
			return x
		}
		out := make(map[string]int, len(x))
		for k, n := range x {
			out[c(k)] = n
		}
		return out
	case []envelope.Violation:
		out := make([]envelope.Violation, len(x))
		for i := range x {
			out[i] = cleanViolation(x[i], c)
		}
		return out
	}
	return x
}

// escapeJSONControls rewrites the characters that encoding/json writes raw
// inside strings but a terminal would act on, DEL and the C1 controls, as
// \u escapes (the same string to any JSON reader). b is JSON text; it is
// returned as is when it holds none.
func escapeJSONControls(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x7f:
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
		default:
			i++
			continue
		}
		r := rune(c)
		w := 1
		if c == 0xc2 {
			r, w = rune(b[i+1]), 2
		}
		out = append(out, b[last:i]...)
		out = append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		i += w
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
