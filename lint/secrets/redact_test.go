package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestRedact: every secret of a message is replaced by its pattern's name;
// the rest of the message stays; a message without one is unchanged.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"T1" is not a task id`, `"T1" is not a task id`},
		{`"AKIAIOSFODNN7EXAMPLE" is not a task id`, `<secret: aws_access_key_id> is not a task id`},
		{`"a \"quoted\" AKIAIOSFODNN7EXAMPLE" is not one of "x", "y"`, `<secret: aws_access_key_id> is not one of "x", "y"`},
		{`caused_by xoxb-000000000000-000000000000-EXAMPLEexample names nothing`, `caused_by <secret: slack_token> names nothing`},
		{`"ghp_EXAMPLE00000000000000000000000000000" and "sk-proj-EXAMPLEexample000000000000"`, `<secret: github_token> and <secret: openai_api_key>`},
		{`header -----BEGIN RSA PRIVATE KEY----- found`, `header <secret: private_key_block> found`},
		{`unterminated "AKIAIOSFODNN7EXAMPLE`, `unterminated <secret: aws_access_key_id>`},
	} {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if _, ok := Scan(got); ok {
			t.Errorf("Redact(%q) = %q still holds a secret", c.in, got)
		}
	}
	long := strings.Repeat("x ", 3000) + "-----BEGIN RSA PRIVATE KEY-----"
	if got := Redact(long); strings.Contains(got, "BEGIN") {
		t.Errorf("long text: %q", got[:80])
	}
}

// FuzzRedact: whatever the text, Redact's result holds no secret.
func FuzzRedact(f *testing.F) {
	for _, p := range Patterns {
		f.Add(`"` + p.Example + `" is not`)
		f.Add("x " + p.Example + " y")
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Redact(s)
		if _, ok := Scan(got); ok {
			t.Errorf("Redact(%q) = %q holds a secret", s, got)
		}
	})
}

// TestRedactorAgrees: Redactor.Redact answers Redact's answer for every
// text, however often it repeats: clean texts, texts with secrets, texts
// that share a slot, texts longer than it remembers.
func TestRedactorAgrees(t *testing.T) {
	texts := []string{"", "plain reason", `unknown event type "decision.x" in namespace "decision"`,
		"password=hunter2hunter2", `token "` + "ghp_" + strings.Repeat("A1", 18) + `"`, "AKIAIOSFODNN7EXAMPLE in a reason",
		strings.Repeat("long clean text ", 100)}
	for i := 0; i < 600; i++ { // more texts than slots: every slot is shared
		texts = append(texts, fmt.Sprintf("span %d names no span", i), fmt.Sprintf("key=%dAbcdefgh%d", i, i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	var red Redactor
	for i := 0; i < 50000; i++ {
		s := texts[r.IntN(len(texts))]
		if got, want := red.Redact(s), Redact(s); got != want {
			t.Fatalf("Redactor.Redact(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestRedactorByContent: a text is remembered by its bytes, not its
// address: bytes that held a clean text and then a secret of the same
// length, read as strings without a copy (as rules read records in place),
// are redacted the second time.
func TestRedactorByContent(t *testing.T) {
	buf := []byte(`password=` + "plainword") // not a secret-looking value
	s := unsafe.String(&buf[0], len(buf))
	var red Redactor
	for i := 0; i < 3; i++ {
		if got := red.Redact(s); got != s {
			t.Fatalf("clean text changed: %q", got)
		}
	}
	copy(buf[9:], "Zx81mQ0p1")
	if got := red.Redact(s); got == s || strings.Contains(got, "Zx81") {
		t.Fatalf("secret in reused bytes not redacted: %q", got)
	}
}
