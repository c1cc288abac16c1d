package secrets

import (
	"strings"
	"unicode/utf8"
)

// The secret_assignment pattern (cue/README.md, "Secrets":
// "key|secret|token|password = value assignments").
//
// A hit is NAME SEP VALUE where
//
//   - NAME is a run of [A-Za-z0-9_.-] (optionally followed by a closing quote
//     and spaces or tabs) split into parts at '_', '.', '-' and camelCase
//     boundaries ("OPENAI_API_KEY" → OPENAI API KEY, "accessToken" → access
//     Token, "APIKey" → API Key). Some part must be "key", or end with
//     "token", "secret", "password", "passwd", "passphrase", "apikey",
//     "accesskey", "secretkey" or "privatekey" (ASCII case-insensitive), so
//     "db_password", "AUTHTOKEN" and "client-secret" are names of secrets and
//     "monkey", "keyboard" and "max_tokens" are not. A name whose LAST part
//     says it describes the secret rather than holding it ("key_id",
//     "token_url", "secret_name", "password_file", "token_count", see
//     metaParts) is not a secret name.
//   - SEP is '=' or ':' (also ":=", "==", "=>"), after optional spaces.
//   - VALUE follows optional spaces and one optional quote; it ends at white
//     space, at the matching quote, or after maxValue bytes; trailing
//     ",;.)]}" and quotes are dropped. It must have at least minValueRunes
//     code points, must not be a placeholder (see isPlaceholder: "<...>",
//     "$VAR", "${VAR}", "{{ .x }}", "%VAR%", anything with "***" or
//     "redacted", "xxxx-xxxx", "your-key-1234", ...), and must look like a
//     secret rather than a word (see looksSecret: a digit, a symbol, or at
//     least 16 characters of mixed case). So "token: <redacted>", "the key =
//     value of x", "password: changeme" and "API key: configured" are not
//     hits, while "password=hunter2hunter2" is.
const (
	minValueRunes = 8
	maxValue      = 1024
	// minMixedCase is the length from which a letters-only value of mixed
	// case counts as secret-looking ("PostgreSQL" does not, a 16+ character
	// random mixed-case string does).
	minMixedCase = 16
)

func matchAssignment(s string) bool {
	// Every separator, in order: the next '=' and the next ':', each found
	// with the vectorized strings.IndexByte.
	eq, colon := indexFrom(s, 0, '='), indexFrom(s, 0, ':')
	for {
		i := eq
		if colon >= 0 && (i < 0 || colon < i) {
			i = colon
		}
		if i < 0 {
			return false
		}
		if s[i] == '=' {
			eq = indexFrom(s, i+1, '=')
		} else {
			colon = indexFrom(s, i+1, ':')
		}
		name := nameBefore(s, i)
		if name == "" || !isSecretName(name) {
			continue
		}
		if secretValue(valueAfter(s, i)) {
			return true
		}
	}
}

// indexFrom returns the index of the first c of s at or after from, or -1.
func indexFrom(s string, from int, c byte) int {
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return -1
}

func isNameByte(c byte) bool { return isWord(c) || c == '-' || c == '.' }
func isQuote(c byte) bool    { return c == '"' || c == '\'' || c == '`' }
func isBlank(c byte) bool    { return c == ' ' || c == '\t' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// nameBefore returns the key name that ends just before the separator at
// s[sep], skipping blanks and one closing quote.
func nameBefore(s string, sep int) string {
	j := sep
	for j > 0 && isBlank(s[j-1]) {
		j--
	}
	if j > 0 && isQuote(s[j-1]) {
		j--
	}
	end := j
	for j > 0 && isNameByte(s[j-1]) {
		j--
	}
	return s[j:end]
}

// valueAfter returns the value that follows the separator at s[sep].
func valueAfter(s string, sep int) string {
	j := sep + 1
	if j < len(s) && (s[j] == '=' || s[j] == '>') {
		j++ // :=  ==  =>
	}
	for j < len(s) && isBlank(s[j]) {
		j++
	}
	var quote byte
	quoted := false
	if j < len(s) && isQuote(s[j]) {
		quote, quoted = s[j], true
		j++
	}
	end := j
	for end < len(s) && end-j < maxValue && !isSpace(s[end]) && !(quoted && s[end] == quote) {
		end++
	}
	return strings.TrimRight(s[j:end], ",;.)]}\"'`")
}

// isSecretName reports whether a key name names a secret (see the comment
// on the constants above).
func isSecretName(name string) bool {
	return mayNameSecret(name) && secretParts(name)
}

// secretParts is isSecretName without its quick test (mayNameSecret): some
// part names a secret and the last part does not describe one.
func secretParts(name string) bool {
	found := false
	last := ""
	start := 0
	for i := 0; i <= len(name); i++ {
		atSep := i < len(name) && (name[i] == '_' || name[i] == '.' || name[i] == '-')
		if i < len(name) && !atSep && !(i > start && camelBoundary(name, i)) {
			continue
		}
		if i > start {
			part := name[start:i]
			if !found && isSecretPart(part) {
				found = true
			}
			last = part
		}
		if atSep {
			start = i + 1
		} else {
			start = i
		}
	}
	return found && !isMetaPart(last)
}

// mayNameSecret reports whether name holds, in any ASCII case, "key",
// "token", "secret" or "pass": every secret part (isSecretPart) ends with
// one of them ("password", "passwd" and "passphrase" hold "pass"), so a
// name without any is not a secret name. It spares isSecretName's parts
// for the words before most ':' of prose ("together: ...").
func mayNameSecret(name string) bool {
	for i := 0; i+3 <= len(name); i++ {
		switch name[i] | 0x20 {
		case 'k':
			if hasPrefixFold(name[i:], "key") {
				return true
			}
		case 't':
			if hasPrefixFold(name[i:], "token") {
				return true
			}
		case 's':
			if hasPrefixFold(name[i:], "secret") {
				return true
			}
		case 'p':
			if hasPrefixFold(name[i:], "pass") {
				return true
			}
		}
	}
	return false
}

// camelBoundary reports whether a new camelCase word starts at name[i]
// (i > 0): "aB", "1B", and the last capital of an acronym before a word ("APIKey").
func camelBoundary(name string, i int) bool {
	if !isUpper(name[i]) {
		return false
	}
	p := name[i-1]
	if isLower(p) || isDigit(p) {
		return true
	}
	return isUpper(p) && i+1 < len(name) && isLower(name[i+1])
}

var secretSuffixes = [...]string{
	"token", "secret", "password", "passwd", "passphrase",
	"apikey", "accesskey", "secretkey", "privatekey",
}

func isSecretPart(p string) bool {
	if strings.EqualFold(p, "key") {
		return true
	}
	for _, suf := range secretSuffixes {
		if hasSuffixFold(p, suf) {
			return true
		}
	}
	return false
}

// metaParts are last name parts that describe a secret instead of holding it.
var metaParts = [...]string{
	"id", "ids", "name", "names", "path", "file", "dir", "url", "uri", "endpoint",
	"count", "type", "kind", "len", "length", "size", "limit", "max", "min",
	"ttl", "expiry", "expires", "expiration", "timeout", "header", "field",
	"env", "var", "format", "prefix", "hint", "label", "version", "usage", "budget",
}

func isMetaPart(p string) bool {
	for _, m := range metaParts {
		if len(p) == len(m) && strings.EqualFold(p, m) {
			return true
		}
	}
	return false
}

func secretValue(v string) bool {
	return utf8.RuneCountInString(v) >= minValueRunes && !isPlaceholder(v) && looksSecret(v)
}

// isPlaceholder reports whether a value is a reference, a template, a mask or
// a stock placeholder instead of secret material. v is not empty.
func isPlaceholder(v string) bool {
	switch {
	case v[0] == '<' && v[len(v)-1] == '>': // <redacted>, <your-key>
		return true
	case v[0] == '$': // $VAR, ${VAR}, $(command)
		return true
	case strings.HasPrefix(v, "{{"), strings.HasPrefix(v, "{%"): // templates
		return true
	case len(v) > 1 && v[0] == '%' && v[len(v)-1] == '%': // %VAR%
		return true
	case strings.Contains(v, "***"), containsFold(v, "redacted"):
		return true
	case hasPrefixFold(v, "your_"), hasPrefixFold(v, "your-"): // YOUR_API_KEY
		return true
	case oneRepeatedByte(v): // ********, xxxx-xxxx-xxxx, 0000-0000
		return true
	}
	return false
}

// oneRepeatedByte reports whether v, ignoring '-', '_' and '.', is one byte
// repeated.
func oneRepeatedByte(v string) bool {
	var first byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '-' || c == '_' || c == '.' {
			continue
		}
		if first == 0 {
			first = c
		} else if c != first {
			return false
		}
	}
	return true
}

// looksSecret reports whether v looks like generated or chosen secret
// material rather than a word: it has a digit, or a symbol from
// "!#$%&*+=?@^~|", or is at least minMixedCase bytes of mixed case.
func looksSecret(v string) bool {
	upper, lower := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			return true
		case strings.IndexByte("!#$%&*+=?@^~|", c) >= 0:
			return true
		case isUpper(c):
			upper = true
		case isLower(c):
			lower = true
		}
	}
	return upper && lower && len(v) >= minMixedCase
}

// ---- ASCII case folding without allocation ----

func lower(c byte) byte {
	if isUpper(c) {
		return c + ('a' - 'A')
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix p,
// ignoring ASCII case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lower(s[i]) != p[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold is hasPrefixFold at the end of s.
func hasSuffixFold(s, p string) bool {
	return len(s) >= len(p) && hasPrefixFold(s[len(s)-len(p):], p)
}

// containsFold reports whether s contains the lower-case ASCII string p,
// ignoring ASCII case.
func containsFold(s, p string) bool {
	for i := 0; i+len(p) <= len(s); i++ {
		if hasPrefixFold(s[i:], p) {
			return true
		}
	}
	return false
}
