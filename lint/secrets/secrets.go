// Package secrets detects secret material in untrusted strings.
//
// It backs the UNTRUSTED_CONTEXT_BLOCK code of README, Codes and precedence
// ("secret material in notes_for_orchestrator, worklog decision/result, or
// context_package[].value") and the "Secrets" decision of cue/README.md (operator,
// seed 001): at least AWS access keys, OpenAI/Anthropic keys, GitHub tokens, Slack
// tokens, private key blocks, JWTs and key|secret|token|password = value
// assignments.
//
// The detectors are hand-written byte scanners: no regular expression is
// compiled or run, and Scan does not allocate. Scan reports the name of the
// pattern that matched, never the matched text, so that a caller can build a
// verdict without echoing the secret (README, Codes and precedence: "A secret is
// never echoed: name the pattern and the pointer instead").
package secrets

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/agentlint/agentlint/lint/internal/swar"
)

// Pattern describes one kind of secret that Scan recognizes.
//
// Name is the stable identifier reported by Scan and written into verdicts
// (details.pattern, as in the reference validator's
// {"pattern":"openai_api_key"}); Summary is a one-line human description of
// what the pattern matches; Example is a FAKE string that the pattern matches,
// for documentation and tests (it is not, and never was, a live credential).
type Pattern struct {
	Name    string
	Summary string
	Example string
}

// detector pairs a Pattern with its matcher. The table below is the single
// source of truth: Patterns is a copy of its descriptions, so a caller that
// modifies Patterns cannot change what Scan does.
type detector struct {
	Pattern
	match func(string) bool
	// needs are the trigger classes (trigger) of bytes the pattern cannot
	// match without: Scan skips the matcher when s lacks one of them.
	needs uint8
}

// Trigger classes: each bit stands for bytes one of the patterns needs
// (the 'A', 'I' and 'K' or 'S' of AKIA/ASIA; the '-' of sk-, xoxb- and
// -----BEGIN; the '_' of ghp_ and github_pat_; the 'J' of eyJ; the '=' or
// ':' of an assignment).
const (
	trigA uint8 = 1 << iota
	trigI
	trigKS
	trigDash
	trigUnder
	trigJ
	trigSep
)

// triggerClass maps a byte to its trigger class bits.
var triggerClass = func() (t [256]uint8) {
	t['A'], t['I'], t['K'], t['S'] = trigA, trigI, trigKS, trigKS
	t['-'], t['_'], t['J'], t['='], t[':'] = trigDash, trigUnder, trigJ, trigSep, trigSep
	return t
}()

// triggers returns the union of the trigger classes of the bytes of s.
// Eight bytes at a time, words of lower-case letters and spaces (most of
// prose, and of no class) are passed over whole; the bytes of any other
// word are looked up one by one.
func triggers(s string) uint8 {
	var m uint8
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !lowerOrSpace8(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			m |= triggerClass[s[i]] | triggerClass[s[i+1]] | triggerClass[s[i+2]] | triggerClass[s[i+3]] |
				triggerClass[s[i+4]] | triggerClass[s[i+5]] | triggerClass[s[i+6]] | triggerClass[s[i+7]]
		}
	}
	for ; i < len(s); i++ {
		m |= triggerClass[s[i]]
	}
	return m
}

// lowerOrSpace8 reports whether each of the eight bytes of x is 'a'-'z'
// or ' ' (a byte of 0x80 or more is neither).
func lowerOrSpace8(x uint64) bool {
	return x&swar.Msb == 0 && swar.InRange8(x, 'a', 'z')|swar.InRange8(x, ' ', ' ') == swar.Msb
}

var detectors = [...]detector{
	{Pattern{
		Name:    "aws_access_key_id",
		Summary: "AWS access key id: AKIA or ASIA followed by exactly 16 upper-case letters or digits, as a whole word",
		Example: "AKIAIOSFODNN7EXAMPLE",
	}, matchAWS, trigA | trigI | trigKS},
	{Pattern{
		Name:    "openai_api_key",
		Summary: "OpenAI API key: sk- (including sk-proj-) followed by at least 20 of [A-Za-z0-9_-], but not sk-ant-",
		Example: "sk-proj-EXAMPLEexample000000000000",
	}, matchOpenAI, trigDash},
	{Pattern{
		Name:    "anthropic_api_key",
		Summary: "Anthropic API key: sk-ant- followed by at least 20 of [A-Za-z0-9_-]",
		Example: "sk-ant-api03-EXAMPLEexample000000000000",
	}, matchAnthropic, trigDash},
	{Pattern{
		Name:    "github_token",
		Summary: "GitHub token: ghp_/gho_/ghu_/ghs_/ghr_ followed by at least 36 letters or digits, or github_pat_ followed by at least 22 of [A-Za-z0-9_]",
		Example: "ghp_EXAMPLE00000000000000000000000000000",
	}, matchGitHub, trigUnder},
	{Pattern{
		Name:    "slack_token",
		Summary: "Slack token: xoxb-/xoxp-/xoxa-/xoxr-/xoxs- followed by at least 10 of [A-Za-z0-9-], one of them a digit",
		Example: "xoxb-000000000000-000000000000-EXAMPLEexample",
	}, matchSlack, trigDash},
	{Pattern{
		Name:    "private_key_block",
		Summary: "PEM private key header: -----BEGIN [label ]PRIVATE KEY----- (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK)",
		Example: "-----BEGIN RSA PRIVATE KEY-----",
	}, matchPrivateKey, trigDash},
	{Pattern{
		Name:    "jwt",
		Summary: "JSON Web Token: three dot-separated base64url segments of at least 10 characters each, the first starting with eyJ",
		Example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJleGFtcGxlIn0.RVhBTVBMRS1zaWduYXR1cmU",
	}, matchJWT, trigJ},
	{Pattern{
		Name:    "secret_assignment",
		Summary: "a key, secret, token, password, passwd or api_key name, then = or :, then a secret-looking value of at least 8 characters that is not a placeholder",
		Example: "DB_PASSWORD=Tr0ub4dor-EXAMPLE",
	}, matchAssignment, trigSep},
}

// Patterns lists the patterns Scan recognizes, in match order: specific token
// formats first, the generic secret_assignment last (cue/README.md,
// "Secrets"). It is a copy for documentation (agentlint explain, README);
// changing it does not change Scan.
var Patterns = func() []Pattern {
	ps := make([]Pattern, len(detectors))
	for i := range detectors {
		ps[i] = detectors[i].Pattern
	}
	return ps
}()

// Scan reports whether s contains secret material and, if so, the Name of
// the first pattern in Patterns order that matches anywhere in s (pattern
// order, not position order: "OPENAI_API_KEY=sk-…" is openai_api_key, not
// secret_assignment, which is what the seed 001 reference validator answers).
//
// s is any string (UTF-8 is not required); the result is ("", false) when
// nothing matches. The matched text itself is never returned. Scan does not
// allocate and runs in time linear in len(s).
func Scan(s string) (pattern string, ok bool) {
	m := triggers(s) // a pattern whose bytes s lacks cannot match: prose has few
	for i := range detectors {
		if detectors[i].needs&^m == 0 && detectors[i].match(s) {
			return detectors[i].Name, true
		}
	}
	return "", false
}

// ---- byte classes ----

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isUpper(c byte) bool      { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool      { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool      { return isDigit(c) || isUpper(c) || isLower(c) }
func isUpperAlnum(c byte) bool { return isDigit(c) || isUpper(c) }

// isWord is the \b word class of regular expressions: [A-Za-z0-9_].
func isWord(c byte) bool { return isAlnum(c) || c == '_' }

// isB64URL is the base64url alphabet (also the OpenAI/Anthropic key alphabet).
func isB64URL(c byte) bool { return isWord(c) || c == '-' }

// isPEMLabel is the alphabet of a PEM label ("RSA PRIVATE KEY").
func isPEMLabel(c byte) bool { return isUpperAlnum(c) || c == ' ' }

// isSlack is the alphabet of a Slack token body.
func isSlack(c byte) bool { return isAlnum(c) || c == '-' }

// run returns the length of the longest prefix of s whose bytes are in class.
func run(s string, class func(byte) bool) int {
	n := 0
	for n < len(s) && class(s[n]) {
		n++
	}
	return n
}

// indexBounded returns the index of the first occurrence of prefix in s
// that starts at or after from and whose preceding byte (if any) is not in
// inside, or -1. It looks for the byte prefix[anchor] with the vectorized
// strings.IndexByte, so anchor should be the rarest byte of prefix in prose
// ('-' of "sk-", 'J' of "eyJ").
func indexBounded(s, prefix string, anchor, from int, inside func(byte) bool) int {
	for from+len(prefix) <= len(s) {
		k := strings.IndexByte(s[from+anchor:], prefix[anchor])
		if k < 0 {
			return -1
		}
		start := from + k
		if start+len(prefix) > len(s) {
			return -1
		}
		if s[start:start+len(prefix)] == prefix && (start == 0 || !inside(s[start-1])) {
			return start
		}
		from = start + 1
	}
	return -1
}

// ---- token detectors ----

func matchAWS(s string) bool {
	for from := 0; ; {
		k := strings.IndexByte(s[from:], 'A')
		if k < 0 {
			return false
		}
		k += from
		from = k + 1
		if len(s)-k < 20 {
			return false
		}
		if (s[k+1] != 'K' && s[k+1] != 'S') || s[k+2] != 'I' || s[k+3] != 'A' {
			continue
		}
		if k > 0 && isWord(s[k-1]) {
			continue
		}
		if run(s[k+4:k+20], isUpperAlnum) != 16 {
			continue
		}
		if k+20 < len(s) && isWord(s[k+20]) {
			continue
		}
		return true
	}
}

func matchOpenAI(s string) bool {
	for from := 0; ; {
		k := indexBounded(s, "sk-", 2, from, isWord)
		if k < 0 {
			return false
		}
		from = k + 1
		rest := s[k+3:]
		if strings.HasPrefix(rest, "ant-") {
			continue // anthropic_api_key
		}
		if run(rest, isB64URL) >= 20 {
			return true
		}
	}
}

func matchAnthropic(s string) bool {
	for from := 0; ; {
		k := indexBounded(s, "sk-ant-", 2, from, isWord)
		if k < 0 {
			return false
		}
		from = k + 1
		if run(s[k+7:], isB64URL) >= 20 {
			return true
		}
	}
}

func matchGitHub(s string) bool {
	// gh[pousr]_: look for the '_' (k is the start of the candidate).
	for from := 0; from+4+36 <= len(s); {
		u := strings.IndexByte(s[from+3:], '_')
		if u < 0 {
			break
		}
		k := from + u
		from = k + 1
		if len(s)-k < 4+36 || s[k] != 'g' || s[k+1] != 'h' || (k > 0 && isWord(s[k-1])) {
			continue
		}
		switch s[k+2] {
		case 'p', 'o', 'u', 's', 'r':
			if run(s[k+4:], isAlnum) >= 36 {
				return true
			}
		}
	}
	for from := 0; ; {
		k := indexBounded(s, "github_pat_", 6, from, isWord)
		if k < 0 {
			return false
		}
		from = k + 1
		if run(s[k+11:], isWord) >= 22 {
			return true
		}
	}
}

func matchSlack(s string) bool {
	for from := 0; ; {
		k := indexBounded(s, "xox", 0, from, isWord)
		if k < 0 {
			return false
		}
		from = k + 1
		if len(s)-k < 5+10 || s[k+4] != '-' {
			continue
		}
		switch s[k+3] {
		case 'b', 'p', 'a', 'r', 's':
		default:
			continue
		}
		body := s[k+5:]
		n := run(body, isSlack)
		if n >= 10 && strings.ContainsAny(body[:n], "0123456789") {
			return true
		}
	}
}

// maxPEMLabel bounds the label between "-----BEGIN " and "-----".
const maxPEMLabel = 64

func matchPrivateKey(s string) bool {
	const begin = "-----BEGIN "
	for from := 0; ; {
		k := strings.Index(s[from:], begin)
		if k < 0 {
			return false
		}
		k += from
		from = k + 1
		rest := s[k+len(begin):]
		n := run(rest, isPEMLabel)
		if n > maxPEMLabel || !strings.HasPrefix(rest[n:], "-----") {
			continue
		}
		label := strings.TrimRight(rest[:n], " ")
		label = strings.TrimSuffix(label, " BLOCK") // PGP PRIVATE KEY BLOCK
		if label == "PRIVATE KEY" || strings.HasSuffix(label, " PRIVATE KEY") {
			return true
		}
	}
}

// minJWTSegment is the minimum length of each of the three JWT segments.
const minJWTSegment = 10

func matchJWT(s string) bool {
	for from := 0; ; {
		k := indexBounded(s, "eyJ", 2, from, isB64URL)
		if k < 0 {
			return false
		}
		from = k + 1
		rest := s[k:]
		ok := true
		for seg := 0; seg < 3; seg++ {
			n := run(rest, isB64URL)
			if n < minJWTSegment {
				ok = false
				break
			}
			rest = rest[n:]
			if seg < 2 {
				if rest == "" || rest[0] != '.' {
					ok = false
					break
				}
				rest = rest[1:]
			}
		}
		if ok {
			return true
		}
	}
}
