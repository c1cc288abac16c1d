package secrets

import "strings"

// maxWindowSearch bounds the text Redact narrows down to the secret's own
// bytes when the secret is neither a quoted value nor a word of its own; a
// longer text is replaced whole.
const maxWindowSearch = 4096

// Redact returns s with every secret it holds replaced by
// "<secret: PATTERN>" (the Name of the pattern, never the text), for
// messages that quote values: a quoted value ("…", as strconv.Quote writes
// it) that holds a secret is replaced whole, quotes included; then a word
// (separated by white space) that holds one; then the shortest span that
// still matches. s is returned unchanged, without allocating, when Scan
// finds nothing.
func Redact(s string) string {
	if _, ok := Scan(s); !ok {
		return s
	}
	s = redactQuoted(s)
	if _, ok := Scan(s); !ok {
		return s
	}
	s = redactWords(s)
	p, ok := Scan(s)
	for n := 0; ok; n++ {
		if len(s) > maxWindowSearch || n == 64 {
			return "<secret: " + p + "> (the text is withheld: it holds a secret)"
		}
		b, e := window(s)
		s = s[:b] + "<secret: " + p + ">" + s[e:]
		p, ok = Scan(s)
	}
	return s
}

// marker is the text that stands for the secret s holds.
func marker(s string) string {
	p, _ := Scan(s)
	return "<secret: " + p + ">"
}

// redactQuoted replaces each double-quoted span of s (backslash escapes
// honoured) that holds a secret.
func redactQuoted(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break
		}
		if _, ok := Scan(s[i+1 : j]); ok {
			b.WriteString(s[last:i])
			b.WriteString(marker(s[i+1 : j]))
			last = j + 1
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactWords replaces each white-space separated word of s that holds a
// secret.
func redactWords(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			if _, ok := Scan(s[i:j]); ok {
				b.WriteString(s[last:i])
				b.WriteString(marker(s[i:j]))
				last = j
			}
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// window returns the span [b, e) of s, which Scan matches, that is the
// shortest prefix of s that matches, shortened from the front as long as
// it still matches.
func window(s string) (b, e int) {
	e = len(s)
	for k := 1; k <= len(s); k++ {
		if _, ok := Scan(s[:k]); ok {
			e = k
			break
		}
	}
	for b < e {
		if _, ok := Scan(s[b+1 : e]); !ok {
			break
		}
		b++
	}
	return b, e
}
