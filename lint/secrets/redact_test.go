package secrets

import (
	"strings"
	"testing"
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
