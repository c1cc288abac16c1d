package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// All secrets below are fake: made of "EXAMPLE", zeros and repeated letters.

var (
	alnum36 = "EXAMPLE" + strings.Repeat("0", 29)
	alnum35 = alnum36[:35]
	jwtHead = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
	jwtBody = "eyJzdWIiOiJleGFtcGxlIn0"
	jwtSig  = "RVhBTVBMRS1zaWduYXR1cmU"
)

type scanCase struct {
	name string
	in   string
	want string // "" for no match
}

func runScan(t *testing.T, cases []scanCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Scan(tc.in)
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("Scan(%q) = (%q, %v), want (%q, %v)", tc.in, got, ok, tc.want, tc.want != "")
			}
		})
	}
}

func TestScanAWS(t *testing.T) {
	runScan(t, []scanCase{
		{"akia", "AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"},
		{"asia", "ASIA0000000000EXAMPLE"[:20], "aws_access_key_id"},
		{"in assignment", "aws_access_key_id=AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"},
		{"in prose", "key AKIAIOSFODNN7EXAMPLE leaked.", "aws_access_key_id"},
		{"quoted", `"AKIAIOSFODNN7EXAMPLE"`, "aws_access_key_id"},
		{"after other A", "A AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"},
		{"15 chars", "AKIAIOSFODNN7EXAMPL", ""},
		{"15 chars then space", "AKIAIOSFODNN7EXAMPL done", ""},
		{"17 chars", "AKIAIOSFODNN7EXAMPLEX", ""},
		{"lower case body", "AKIAiosfodnn7example", ""},
		{"word before", "XAKIAIOSFODNN7EXAMPLE", ""},
		{"underscore after", "AKIAIOSFODNN7EXAMPLE_", ""},
		{"other prefix", "AKIBIOSFODNN7EXAMPLE", ""},
		{"at end too short", "see AKIA", ""},
	})
}

func TestScanOpenAIAnthropic(t *testing.T) {
	runScan(t, []scanCase{
		{"reference validator", "OPENAI_API_KEY=sk-abc1234567890123456789012345", "openai_api_key"},
		{"exactly 20", "sk-" + strings.Repeat("a1", 10), "openai_api_key"},
		{"proj", "sk-proj-" + strings.Repeat("Ab0_", 10), "openai_api_key"},
		{"svcacct", "key sk-svcacct-EXAMPLE00000000000000 here", "openai_api_key"},
		{"after colon", "key:sk-abc1234567890123456789012345", "openai_api_key"},
		{"19 chars", "sk-" + strings.Repeat("a", 19), ""},
		{"too short", "use sk-abc123 for tests", ""},
		{"bare prefix", "sk-", ""},
		{"inside word task-", "task-" + strings.Repeat("a1", 12), ""},
		{"inside word risk-", "risk-" + strings.Repeat("a1", 12), ""},
		{"stops at space", "sk-abcdefghij klmnopqrstuvwxyz", ""},
		{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Ab0", 10), "anthropic_api_key"},
		{"anthropic exactly 20", "sk-ant-" + strings.Repeat("x1", 10), "anthropic_api_key"},
		{"anthropic not openai", "sk-ant-" + strings.Repeat("b", 40), "anthropic_api_key"},
		{"anthropic too short", "sk-ant-api03-short", ""},
		{"anthropic 19", "sk-ant-" + strings.Repeat("x", 19), ""},
		{"both: openai first in order", "sk-ant-" + strings.Repeat("b", 40) + " sk-" + strings.Repeat("c", 30), "openai_api_key"},
	})
}

func TestScanGitHub(t *testing.T) {
	runScan(t, []scanCase{
		{"ghp", "ghp_" + alnum36, "github_token"},
		{"gho", "token gho_" + alnum36, "github_token"},
		{"ghu", "ghu_" + alnum36, "github_token"},
		{"ghs", "ghs_" + alnum36, "github_token"},
		{"ghr", "ghr_" + alnum36, "github_token"},
		{"longer", "ghp_" + alnum36 + "0000", "github_token"},
		{"pat", "github_pat_" + strings.Repeat("A0_", 8), "github_token"},
		{"pat real shape", "github_pat_11EXAMPLE0000000000000_" + strings.Repeat("x", 59), "github_token"},
		{"ghp 35", "ghp_" + alnum35, ""},
		{"ghp 35 then dash", "ghp_" + alnum35 + "-0", ""},
		{"other letter", "ghx_" + alnum36, ""},
		{"no underscore", "ghp" + alnum36 + "0", ""},
		{"word before", "xghp_" + alnum36, ""},
		{"pat 21", "github_pat_" + strings.Repeat("a", 21), ""},
		{"prose", "see github_pat_docs for details", ""},
	})
}

func TestScanSlack(t *testing.T) {
	runScan(t, []scanCase{
		{"bot", "xoxb-000000000000-000000000000-EXAMPLEexample", "slack_token"},
		{"user", "SLACK=xoxp-0000000000-0000000000-0000000000-abcdef", "slack_token"},
		{"app", "xoxa-2-0000000000", "slack_token"},
		{"refresh", "xoxr-0000000000", "slack_token"},
		{"legacy s", "xoxs-0000-0000-0000-abcdef", "slack_token"},
		{"9 chars", "xoxb-000000000", ""},
		{"no digit placeholder", "xoxb-your-token-here", ""},
		{"other letter", "xoxz-000000000000", ""},
		{"no dash", "xoxb000000000000", ""},
		{"word before", "axoxb-000000000000", ""},
	})
}

func TestScanPrivateKey(t *testing.T) {
	runScan(t, []scanCase{
		{"rsa", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...", "private_key_block"},
		{"pkcs8", "-----BEGIN PRIVATE KEY-----", "private_key_block"},
		{"openssh", "key: -----BEGIN OPENSSH PRIVATE KEY----- b3Blbn", "private_key_block"},
		{"ec", "-----BEGIN EC PRIVATE KEY-----", "private_key_block"},
		{"encrypted", "-----BEGIN ENCRYPTED PRIVATE KEY-----", "private_key_block"},
		{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "private_key_block"},
		{"second header", "-----BEGIN CERTIFICATE----- x -----BEGIN PRIVATE KEY-----", "private_key_block"},
		{"public", "-----BEGIN PUBLIC KEY-----", ""},
		{"certificate", "-----BEGIN CERTIFICATE-----", ""},
		{"unterminated", "-----BEGIN RSA PRIVATE KEY", ""},
		{"lower case", "-----begin rsa private key-----", ""},
		{"prose", "never paste a PRIVATE KEY here", ""},
		{"not private", "-----BEGIN NOTPRIVATE KEY-----", ""},
	})
}

func TestScanJWT(t *testing.T) {
	runScan(t, []scanCase{
		{"jwt", jwtHead + "." + jwtBody + "." + jwtSig, "jwt"},
		{"bearer", "Authorization: Bearer " + jwtHead + "." + jwtBody + "." + jwtSig, "jwt"},
		{"min segments", "eyJ0000000.0000000000.0000000000", "jwt"},
		{"two segments", jwtHead + "." + jwtBody, ""},
		{"two segments trailing dot", jwtHead + "." + jwtBody + ".", ""},
		{"short signature", jwtHead + "." + jwtBody + ".abc", ""},
		{"short header", "eyJhbGc.0000000000.0000000000", ""},
		{"no eyJ", "abcdefghijkl.0000000000.0000000000", ""},
		{"eyJ inside word", "x" + jwtHead + "." + jwtBody + "." + jwtSig, ""},
		{"version string", "eyJ.1.2", ""},
	})
}

func TestScanAssignment(t *testing.T) {
	runScan(t, []scanCase{
		{"env", "DB_PASSWORD=hunter2hunter2", "secret_assignment"},
		{"yaml", "password: s3cr3t-value", "secret_assignment"},
		{"spaces", "api_key = Zx81mQ0pLw", "secret_assignment"},
		{"json", `{"client_secret": "Zx81mQ0pLw"}`, "secret_assignment"},
		{"single quoted", "token='abc123456'", "secret_assignment"},
		{"camel", "accessToken: Zx81mQ0pLw", "secret_assignment"},
		{"acronym camel", "APIKey=Zx81mQ0pLw", "secret_assignment"},
		{"all caps concatenated", "APIKEY=Zx81mQ0pLw", "secret_assignment"},
		{"lower concatenated", "authtoken=Zx81mQ0pLw", "secret_assignment"},
		{"passwd", "passwd:Zx81mQ0pLw", "secret_assignment"},
		{"go define", `token := "Zx81mQ0pLw"`, "secret_assignment"},
		{"ruby arrow", `"secret" => "Zx81mQ0pLw"`, "secret_assignment"},
		{"flag", "run --password=P@ssw0rd!", "secret_assignment"},
		{"url query", "https://api.example.com/v1?token=Zx81mQ0pLw&x=1", "secret_assignment"},
		{"symbol only", "password: pa$$word!", "secret_assignment"},
		{"long mixed case", "secret=AbcdefGhijklMnopQrst", "secret_assignment"},
		{"trailing comma", "secret_key_base=0a1b2c3d4e5f,", "secret_assignment"},
		{"second separator", "user: alice password: Zx81mQ0pLw", "secret_assignment"},
		{"multibyte value", "password=пароль123", "secret_assignment"},

		{"prose password reset", "password reset flow documented", ""},
		{"redacted", "token: <redacted>", ""},
		{"short value", "the key = value of x", ""},
		{"7 chars", "password=hunter2", ""},
		{"7 code points", "password=пароль1", ""},
		{"plain word", "API key: configured", ""},
		{"mixed case word", "secret: PostgreSQL", ""},
		{"changeme", "password: changeme", ""},
		{"env var", "token=$GITHUB_TOKEN_2", ""},
		{"env var braces", "API_KEY=${OPENAI_API_KEY}", ""},
		{"command", "token=$(gh auth token)", ""},
		{"template", "password: {{ .Values.db2 }}", ""},
		{"windows env", "password=%DB_PASS2%", ""},
		{"stars", "password: ********", ""},
		{"masked", "api_key=sk-****1234", ""},
		{"redacted word", "secret=REDACTED_BY_CI_01", ""},
		{"xs", "token: xxxx-xxxx-xxxx", ""},
		{"zeros", "token: 0000-0000-0000", ""},
		{"your", "api_key=YOUR_API_KEY_1", ""},
		{"angle", "api_key=<your-key-here-123>", ""},
		{"monkey", "monkey: banana12345", ""},
		{"keyboard", "keyboard=layout-2024", ""},
		{"max tokens", "max_tokens: 12345678", ""},
		{"key id", "key_id: 1234567890", ""},
		{"token url", "token_url: https://auth.example.com/2", ""},
		{"secret name", "secret_name=prod-db-2", ""},
		{"password file", "password_file: /run/secrets/db2", ""},
		{"no separator", "token 1234567890", ""},
		{"name is not key", "notes: 1234567890", ""},
		{"time", "12:34:56", ""},
		{"empty value", "password=", ""},
		{"quoted empty", `password: ""`, ""},
	})
}

func TestScanProse(t *testing.T) {
	runScan(t, []scanCase{
		{"empty", "", ""},
		{"notes", "No conflicts, ready for merge", ""},
		{"constraint", "Do not edit src/api.py", ""},
		{"criterion", "All endpoint tests pass", ""},
		{"objective", "Implement endpoint tests", ""},
		{"file", "tests/test_api.py", ""},
		{"command", "pytest tests/test_api.py -k token", ""},
		{"decision", "Decision: rotate the API key and update the secret store", ""},
		{"result", "Result: 12 passed, 0 failed", ""},
		{"ids", "T-12 on run 3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4 at 2025-11-16T02:12:34Z", ""},
		{"hex value after key: a hit by design", "key: 3f56dc4d", "secret_assignment"},
		{"non utf8", "\xff\xfe token \xff", ""},
	})
}

func TestPatterns(t *testing.T) {
	wantNames := []string{
		"aws_access_key_id", "openai_api_key", "anthropic_api_key", "github_token",
		"slack_token", "private_key_block", "jwt", "secret_assignment",
	}
	if len(Patterns) != len(wantNames) {
		t.Fatalf("len(Patterns) = %d, want %d", len(Patterns), len(wantNames))
	}
	for i, p := range Patterns {
		if p.Name != wantNames[i] {
			t.Errorf("Patterns[%d].Name = %q, want %q", i, p.Name, wantNames[i])
		}
		if p.Summary == "" || strings.ContainsAny(p.Summary, "\n") {
			t.Errorf("Patterns[%d].Summary must be one non-empty line: %q", i, p.Summary)
		}
		// Each example is hit by its own pattern and by no earlier one.
		if got, ok := Scan(p.Example); !ok || got != p.Name {
			t.Errorf("Scan(Patterns[%d].Example %q) = (%q, %v), want %q", i, p.Example, got, ok, p.Name)
		}
		for j := 0; j < i; j++ {
			if detectors[j].match(p.Example) {
				t.Errorf("example of %s also matches earlier %s", p.Name, detectors[j].Name)
			}
		}
	}
}

func TestPatternsIsACopy(t *testing.T) {
	saved := Patterns[0].Name
	Patterns[0].Name = "changed"
	defer func() { Patterns[0].Name = saved }()
	if got, _ := Scan("AKIAIOSFODNN7EXAMPLE"); got != "aws_access_key_id" {
		t.Errorf("Scan depends on Patterns: got %q", got)
	}
}

func TestScanNeverEchoes(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Patterns {
		names[p.Name] = true
	}
	for _, p := range Patterns {
		got, _ := Scan("prefix " + p.Example + " suffix")
		if !names[got] || strings.Contains(got, p.Example) {
			t.Errorf("Scan(example of %s) = %q, want a pattern name", p.Name, got)
		}
	}
}

func TestIsSecretName(t *testing.T) {
	cases := []struct {
		name string
		want bool
	}{
		{"key", true}, {"KEY", true}, {"api_key", true}, {"OPENAI_API_KEY", true},
		{"apiKey", true}, {"APIKey", true}, {"APIKEY", true}, {"secret", true},
		{"client-secret", true}, {"clientSecret", true}, {"token", true}, {"accessToken", true},
		{"AUTHTOKEN", true}, {"oauth2Token", true}, {"password", true}, {"db.password", true},
		{"dbPassword", true}, {"passwd", true}, {"passphrase", true}, {"privatekey", true},
		{"secret_key_base", true}, {"--password", true}, {"Key", true},
		{"", false}, {"monkey", false}, {"MONKEY", false}, {"keyboard", false}, {"turkey", false},
		{"max_tokens", false}, {"tokens", false}, {"keys", false}, {"key_id", false},
		{"AWS_ACCESS_KEY_ID", false}, {"token_url", false}, {"secretName", false},
		{"password_file", false}, {"tokenCount", false}, {"notes", false}, {"pass", false},
	}
	for _, tc := range cases {
		if got := isSecretName(tc.name); got != tc.want {
			t.Errorf("isSecretName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFoldHelpers(t *testing.T) {
	if !containsFold("xxREDACTEDxx", "redacted") || containsFold("redacte", "redacted") {
		t.Error("containsFold")
	}
	if !hasSuffixFold("AccessToken", "token") || hasSuffixFold("tok", "token") {
		t.Error("hasSuffixFold")
	}
	if !hasPrefixFold("YOUR_KEY", "your_") || hasPrefixFold("you", "your_") {
		t.Error("hasPrefixFold")
	}
}

func TestScanDoesNotAllocate(t *testing.T) {
	inputs := []string{
		"No conflicts, ready for merge",
		"OPENAI_API_KEY=sk-abc1234567890123456789012345",
		"DB_PASSWORD=hunter2hunter2",
		strings.Repeat("key=key=", 100),
	}
	for _, in := range inputs {
		if n := testing.AllocsPerRun(100, func() { Scan(in) }); n != 0 {
			t.Errorf("Scan(%.20q...) allocates %v times", in, n)
		}
	}
}

func TestScanLinearOnAdversarialInput(t *testing.T) {
	// Each "password:" starts a value that runs to the end of the string; the
	// value scan is bounded by maxValue, so this stays fast (without the bound
	// it is quadratic: 20000 values of up to 180 KB).
	in := strings.Repeat("password:", 20000)
	start := time.Now()
	if _, ok := Scan(in); ok {
		t.Errorf("Scan(repeated password:) matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Scan(repeated password:) took %v", d)
	}
}

var sink string

func BenchmarkScan(b *testing.B) {
	benches := []struct{ name, in string }{
		{"prose", "No conflicts, ready for merge. All endpoint tests pass; do not edit src/api.py (see tests/test_api.py)."},
		{"assignment-miss", "note: key = value of x, password reset flow documented, token: <redacted>"},
		{"openai-hit", "OPENAI_API_KEY=sk-abc1234567890123456789012345"},
		{"assignment-hit", "user: alice password: Zx81mQ0pLw"},
		{"prose-4KiB", strings.Repeat("All endpoint tests pass; ready for merge. ", 100)},
	}
	for _, bc := range benches {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				sink, _ = Scan(bc.in)
			}
		})
	}
}

// TestMatchAssignmentEverySeparator: matchAssignment, which finds the
// separators with IndexByte, visits every '=' and ':' in order as a loop
// over every byte does (the reference below), on random texts dense in
// names, separators and values.
func TestMatchAssignmentEverySeparator(t *testing.T) {
	ref := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c != '=' && c != ':' {
				continue
			}
			if name := nameBefore(s, i); name != "" && isSecretName(name) && secretValue(valueAfter(s, i)) {
				return true
			}
		}
		return false
	}
	parts := []string{"password", "token", "api_key", "x", " ", "=", ":", "==", ":=", "Zx81mQ0pLw", "hunter2hunter2", "\"", "'", "note", "_", ".", "<redacted>", "\n"}
	r := rand.New(rand.NewPCG(7, 8))
	hits := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		want := ref(s)
		if got := matchAssignment(s); got != want {
			t.Fatalf("matchAssignment(%q) = %v, want %v", s, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 100 {
		t.Fatalf("only %d hits: the texts do not exercise the matcher", hits)
	}
}

// TestMayNameSecretNecessary: isSecretName's quick test never rules out a
// name that its parts make a secret name: on random names made of secret
// parts, other words and separators in mixed case, whenever secretParts
// holds, mayNameSecret holds.
func TestMayNameSecretNecessary(t *testing.T) {
	words := []string{"key", "token", "secret", "password", "passwd", "passphrase", "apikey", "accesskey", "secretkey", "privatekey",
		"api", "id", "url", "db", "client", "access", "max", "monkey", "x", "Tok", "KEY", "pass", "phrase", "1", ""}
	seps := []string{"_", ".", "-", "", ""}
	r := rand.New(rand.NewPCG(5, 6))
	hits := 0
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for j := r.IntN(4); j >= 0; j-- {
			w := words[r.IntN(len(words))]
			switch r.IntN(3) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				if w != "" {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
			}
			b.WriteString(w)
			b.WriteString(seps[r.IntN(len(seps))])
		}
		name := b.String()
		if secretParts(name) {
			hits++
			if !mayNameSecret(name) {
				t.Fatalf("%q is a secret name but mayNameSecret rules it out", name)
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d secret names generated", hits)
	}
}
