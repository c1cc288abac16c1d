package secrets

import (
	"hash/maphash"
	"strings"
)

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

// Redactor is Redact with a bounded memory of texts found to hold no
// secret: such a text, once seen twice, is then returned after one hash and
// one comparison instead of a Scan. Findings repeat their texts (a reason
// per event type, a namespace in details), while a log's unique texts are
// scanned as Redact scans them. The answer is always Redact's: a text is
// remembered by a copy of its bytes, never by its address. It holds at
// most redactorSlots texts of at most redactorMaxLen bytes. The zero value
// is ready; not safe for concurrent use.
type Redactor struct {
	seed  maphash.Seed
	ready bool
	seen  [redactorSlots]uint64 // per slot: the hash of a clean text seen once, with its low bit set
	clean [redactorSlots]string // per slot: a copy of a clean text seen twice
}

const (
	redactorSlots  = 256
	redactorMaxLen = 1024
)

// Redact returns Redact(s).
func (r *Redactor) Redact(s string) string {
	if len(s) == 0 || len(s) > redactorMaxLen {
		return Redact(s)
	}
	if !r.ready {
		r.seed, r.ready = maphash.MakeSeed(), true
	}
	h := maphash.String(r.seed, s)
	k := h % redactorSlots
	if r.clean[k] == s {
		return s
	}
	out := Redact(s)
	if out == s {
		if r.seen[k] == h|1 {
			r.clean[k] = strings.Clone(s)
		} else {
			r.seen[k] = h | 1
		}
	}
	return out
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
