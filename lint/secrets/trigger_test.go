package secrets

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// scanEvery is Scan without the trigger classes: every matcher in order.
func scanEvery(s string) (string, bool) {
	for i := range detectors {
		if detectors[i].match(s) {
			return detectors[i].Name, true
		}
	}
	return "", false
}

// TestTriggersNecessary holds Scan, which skips a matcher when the text
// lacks one of its trigger classes, to every matcher run in order, on
// texts made of the patterns' pieces, their examples cut and joined, and
// prose: a class a pattern does not need (or a byte missing from one)
// makes them disagree.
func TestTriggersNecessary(t *testing.T) {
	pieces := []string{
		"AKIA", "ASIA", "AKI", "IOSFODNN7EXAMPLE", "0000000000000000", "sk-", "ant-", "proj-",
		"ghp_", "gho_", "github_pat_", "xoxb-", "xoxs-", "-----BEGIN ", "RSA ", "PRIVATE KEY-----",
		"eyJ", jwtHead, jwtBody, jwtSig, ".", "=", ":", ":=", "=>", "password", "API_KEY", "token",
		"Secret", "passwd", " ", "  ", "_", "-", "\"", "'", "\t", "Tr0ub4dor", "hunter2hunter2",
		"abcdefghij", "ABCDEFGHIJKLMNOP", "0123456789", "the plan", "API", "é", "\xff",
	}
	for _, p := range Patterns {
		pieces = append(pieces, p.Example, p.Example[:len(p.Example)/2], p.Example[len(p.Example)/2:])
	}
	rng := rand.New(rand.NewPCG(22, 1))
	matched := map[string]int{}
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := rng.IntN(8) + 1; k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		got, ok := Scan(s)
		want, wok := scanEvery(s)
		if got != want || ok != wok {
			t.Fatalf("Scan(%q) = (%q, %v), every matcher (%q, %v)", s, got, ok, want, wok)
		}
		matched[want]++
	}
	for _, p := range Patterns {
		if matched[p.Name] == 0 {
			t.Errorf("no text matched %s: the test does not cover it", p.Name)
		}
		if got, ok := Scan(p.Example); !ok || got != p.Name {
			t.Errorf("Scan(%q) = (%q, %v), want %s", p.Example, got, ok, p.Name)
		}
	}
}

// TestTriggersOfBytes checks the classes triggers gives, at every length
// the unrolled loop and its tail read.
func TestTriggersOfBytes(t *testing.T) {
	for n := 0; n < 20; n++ {
		for at := 0; at < n; at++ {
			for c, want := range map[byte]uint8{'A': trigA, 'I': trigI, 'K': trigKS, 'S': trigKS, '-': trigDash, '_': trigUnder, 'J': trigJ, '=': trigSep, ':': trigSep, 'a': 0, 'k': 0} {
				s := []byte(strings.Repeat("x", n))
				s[at] = c
				if got := triggers(string(s)); got != want {
					t.Errorf("triggers(%q) = %#x, want %#x", s, got, want)
				}
			}
		}
	}
}

// TestLowerOrSpace8 holds lowerOrSpace8 to its definition for every byte
// at every position of a word of lower-case letters and spaces.
func TestLowerOrSpace8(t *testing.T) {
	for at := 0; at < 8; at++ {
		for c := 0; c < 256; c++ {
			w := []byte("ab z yq ")
			w[at] = byte(c)
			want := c == ' ' || ('a' <= c && c <= 'z')
			if got := lowerOrSpace8(binary.LittleEndian.Uint64(w)); got != want {
				t.Errorf("lowerOrSpace8(%q) = %v, want %v", w, got, want)
			}
		}
	}
}
