package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/output/sariftest"
	"github.com/agentlint/agentlint/lint/repotest"
)

// runOut runs agentlint in-process and returns stdout and the exit status.
func runOut(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	return stdout.String(), code
}

// sarifResults returns the results of the one run of a SARIF log.
func sarifResults(doc map[string]any) []any {
	run := doc["runs"].([]any)[0].(map[string]any)
	rs, _ := run["results"].([]any)
	return rs
}

// TestSARIFValidatesAgainstOfficialSchema: every SARIF log agentlint writes
// (the demo tree, a valid and an invalid tree of each family, a document
// that denies, an empty run, replay, and runs that stop on a usage error)
// validates against the official SARIF 2.1.0 schema; results and the
// invocation say what the other formats say.
func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: SARIF against the official schema (~1 s) runs in `make test`")
	}
	root := filepath.Join("..", "..", "testdata")
	empty := t.TempDir()
	badLocks := filepath.Join(t.TempDir(), "locks.json")
	if err := os.WriteFile(badLocks, []byte(`{"locks": [{"task_id": "T-1", "resource": "src"}]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		code    int
		results int // -1: at least one; -2: any number
		success bool
	}{
		{"demo", []string{"lint", "--now", "2026-02-14T20:00:00Z", filepath.Join(root, "demo")}, exitDeny, -1, true},
		{"empty run", []string{"lint", "--skip-unknown", empty}, exitOK, 0, true},
		{"empty gate", []string{"lint", empty}, exitUsage, 0, false},
		{"validate deny", []string{"validate", "--kind", "operator/locks", badLocks}, exitDeny, -1, true},
		{"replay", []string{"replay", "--ledger", filepath.Join(root, "replay", "base.json"), filepath.Join(root, "replay", "stream-a.json"), filepath.Join(root, "replay", "stream-b.json")}, exitDeny, -1, true},
		{"usage: missing file", []string{"lint", filepath.Join(empty, "nope.jsonl")}, exitUsage, 0, false},
		{"usage: bad flag", []string{"validate", "--no-such-flag"}, exitUsage, 0, false},
	}
	for _, fam := range []string{"collector", "idle", "ledger", "vermas"} {
		for _, v := range []string{"valid", "invalid"} {
			dir := filepath.Join(root, "families", fam, v)
			if ents, _ := os.ReadDir(dir); len(ents) == 0 {
				continue
			}
			want, n := -1, -2 // valid records; the trees may still have cross-file findings
			if v == "invalid" {
				want, n = exitDeny, -1
			}
			cases = append(cases, struct {
				name    string
				args    []string
				code    int
				results int
				success bool
			}{fam + " " + v, []string{"lint", "--now", "2026-02-14T20:00:00Z", dir}, want, n, true})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := runOut(t, append([]string{"--format", "sarif"}, c.args...)...)
			if c.code >= 0 && code != c.code {
				t.Fatalf("exit %d, want %d\n%.3000s", code, c.code, out)
			}
			doc := sariftest.Validate(t, []byte(out))
			rs := sarifResults(doc)
			if c.results >= 0 && len(rs) != c.results || c.results == -1 && len(rs) == 0 {
				t.Fatalf("%d results, want %d", len(rs), c.results)
			}
			run := doc["runs"].([]any)[0].(map[string]any)
			inv := run["invocations"].([]any)[0].(map[string]any)
			if inv["executionSuccessful"] != c.success {
				t.Fatalf("executionSuccessful %v, want %v", inv["executionSuccessful"], c.success)
			}
			if !c.success {
				notes := inv["toolExecutionNotifications"].([]any)
				msg := notes[0].(map[string]any)["message"].(map[string]any)["text"].(string)
				if !strings.HasPrefix(msg, "MISSING_REQUIRED_INPUT: ") {
					t.Fatalf("notification %q does not carry the envelope's code and reason", msg)
				}
			}
			rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
			explain, _ := runOut(t, "explain", "OP014")
			for _, r := range rules {
				r := r.(map[string]any)
				if r["id"] == "OP014" && r["help"].(map[string]any)["text"] != explain {
					t.Fatalf("OP014's help is not what agentlint explain OP014 prints:\n%v", r["help"])
				}
			}
			for _, r := range rs {
				r := r.(map[string]any)
				i := int(r["ruleIndex"].(float64))
				if rules[i].(map[string]any)["id"] != r["ruleId"] {
					t.Fatalf("ruleIndex %d is %v, not %v", i, rules[i].(map[string]any)["id"], r["ruleId"])
				}
				if r["partialFingerprints"].(map[string]any)["agentlintRecordHash/v1"] == nil {
					t.Fatalf("result without fingerprint: %v", r)
				}
			}
		})
	}
}

// TestSARIFFingerprintStable: adding records above a finding changes its
// line, not its fingerprint; editing the record changes it.
func TestSARIFFingerprintStable(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "events-2025-12-13.jsonl")
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "families", "collector", "invalid", "events-2025-12-13.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	valid, err := os.ReadFile(filepath.Join("..", "..", "testdata", "families", "collector", "valid", "events-2025-12-13.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	prints := func(data []byte) map[string]int {
		if err := os.WriteFile(log, data, 0o666); err != nil {
			t.Fatal(err)
		}
		out, _ := runOut(t, "--format", "sarif", "lint", "--now", "2026-02-14T20:00:00Z", log)
		m := map[string]int{}
		for _, r := range sarifResults(sariftest.Validate(t, []byte(out))) {
			r := r.(map[string]any)
			region := r["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"].(map[string]any)
			m[r["partialFingerprints"].(map[string]any)["agentlintRecordHash/v1"].(string)] = int(region["startLine"].(float64))
		}
		return m
	}
	before := prints(src)
	firstValid := valid[:bytes.IndexByte(valid, '\n')+1]
	after := prints(append(append([]byte(nil), firstValid...), src...))
	if len(before) == 0 {
		t.Fatal("no findings")
	}
	for fp, line := range before {
		if got, ok := after[fp]; !ok || got != line+1 {
			t.Fatalf("fingerprint %s at line %d: after one line was added above: %v (line %d)", fp, line, ok, got)
		}
	}
	edited := prints(bytes.Replace(src, []byte(`"`), []byte(`" `), 1))
	same := 0
	for fp := range edited {
		if _, ok := before[fp]; ok {
			same++
		}
	}
	if same == len(before) {
		t.Fatal("editing the first record changed no fingerprint")
	}
}

type junitReport struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"failure"`
			Error     *struct{} `xml:"error"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnitCounts: the JUnit report of a run reads back with encoding/xml;
// one suite per file, one test case per record (passing ones included, so
// tests equals the summary's records), one failure per denied record, and
// the counts of every element agree with its attributes.
func TestJUnitCounts(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "worklogs")
	if err := os.MkdirAll(logs, 0o777); err != nil {
		t.Fatal(err)
	}
	rec := `{"timestamp":"2026-01-01T00:00:0%dZ","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-1","actor":"a","action":"b","files_touched":[],"decision":"c","result":"d","next_step":"e"}`
	var b strings.Builder
	for i := 0; i < 6; i++ {
		if i == 2 {
			b.WriteString("\n") // a blank line: not a record
		}
		if i == 4 {
			b.WriteString(`{"timestamp":"yesterday"}` + "\n")
			continue
		}
		b.WriteString(strings.Replace(rec, "%d", string(rune('0'+i)), 1) + "\n")
	}
	if err := os.WriteFile(filepath.Join(logs, "T-1.jsonl"), []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "locks.json"), []byte(`{"locks":[]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	out, code := runOut(t, "--format", "junit", "lint", dir)
	if code != exitDeny {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var r junitReport
	if err := xml.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, out)
	}
	if len(r.Suites) != 2 || r.Tests != 7 || r.Failures != 1 || r.Errors != 0 {
		t.Fatalf("suites %d tests %d failures %d errors %d, want 2, 7 (6 records + 1 document), 1, 0\n%s", len(r.Suites), r.Tests, r.Failures, r.Errors, out)
	}
	total := 0
	for _, s := range r.Suites {
		f := 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				f++
				if c.Name != filepath.Join(logs, "T-1.jsonl")+":6" || !strings.Contains(c.Failure.Text, ":6:") {
					t.Fatalf("failure in %s, want the record on line 6 (after the blank line 3):\n%s", c.Name, c.Failure.Text)
				}
			}
		}
		if len(s.Cases) != s.Tests || f != s.Failures {
			t.Fatalf("suite %s: %d cases, %d failures; attributes say %d, %d", s.Name, len(s.Cases), f, s.Tests, s.Failures)
		}
		total += len(s.Cases)
	}
	if total != r.Tests {
		t.Fatalf("%d test cases, testsuites says %d", total, r.Tests)
	}
	for _, c := range r.Suites[1].Cases {
		if strings.HasSuffix(c.Name, ":3") {
			t.Fatalf("the blank line 3 is a test case")
		}
	}

	// A usage error is still a report, with one error.
	out, code = runOut(t, "--format", "junit", "lint", filepath.Join(dir, "nope.jsonl"))
	r = junitReport{}
	if err := xml.Unmarshal([]byte(out), &r); code != exitUsage || err != nil || r.Errors != 1 || r.Tests != 1 {
		t.Fatalf("usage error: exit %d, %v, %+v\n%s", code, err, r, out)
	}
}

// TestOutputFlag: --output writes the run in other formats beside --format,
// each file complete and equal to what --format FORMAT prints alone; a bad
// --output is a usage error before anything is written.
func TestOutputFlag(t *testing.T) {
	dir := t.TempDir()
	demo := filepath.Join("..", "..", "testdata", "demo")
	now := "2026-02-14T20:00:00Z"
	paths := map[string]string{}
	args := []string{"lint", "--format", "github", "--now", now}
	for _, f := range []string{"json", "text", "sarif", "junit", "markdown"} {
		paths[f] = filepath.Join(dir, "out."+f)
		args = append(args, "--output", f+"="+paths[f])
	}
	main, code := runOut(t, append(args, demo)...)
	if code != exitDeny {
		t.Fatalf("exit %d", code)
	}
	alone, _ := runOut(t, "lint", "--format", "github", "--now", now, demo)
	if main != alone {
		t.Fatal("--output changed what --format prints")
	}
	for f, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := runOut(t, "lint", "--format", f, "--color", "never", "--now", now, demo)
		if string(got) != want {
			t.Fatalf("--output %s differs from --format %s", f, f)
		}
	}
	// --quiet quiets --format only.
	quiet, _ := runOut(t, "lint", "--quiet", "--format", "json", "--now", now, "--output", "junit="+paths["junit"], demo)
	if strings.Count(quiet, "\n") != 1 {
		t.Fatalf("--quiet printed %d lines", strings.Count(quiet, "\n"))
	}
	junit, _ := os.ReadFile(paths["junit"])
	want, _ := runOut(t, "lint", "--format", "junit", "--now", now, demo)
	if string(junit) != want {
		t.Fatal("--quiet changed the --output file")
	}
	// A usage error: the SARIF file still says so.
	_, code = runOut(t, "lint", "--output", "sarif="+paths["sarif"], filepath.Join(dir, "nope"))
	data, _ := os.ReadFile(paths["sarif"])
	doc := sariftest.Validate(t, data)
	inv := doc["runs"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	if code != exitUsage || inv["executionSuccessful"] != false {
		t.Fatalf("usage error: exit %d, executionSuccessful %v", code, inv["executionSuccessful"])
	}
	for _, bad := range []string{"yaml=" + paths["json"], "sarif", "sarif=" + filepath.Join(dir, "no", "such", "dir", "x.sarif")} {
		out, code := runOut(t, "lint", "--output", bad, demo)
		if code != exitUsage || !strings.Contains(out, "--output") {
			t.Fatalf("--output %s: exit %d, %s", bad, code, out)
		}
	}
}

// TestSARIFMultitool: Microsoft's SARIF Multitool (the sarif-sdk's
// validator, npm @microsoft/sarif-multitool, installed by
// scripts/tools/sarif-multitool.sh into .cache/tools/) validates the demo's
// SARIF log with no error and no warning.
func TestSARIFMultitool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: Microsoft's SARIF Multitool is not installed and run")
	}
	repo := repotest.Root(t)
	var stderr bytes.Buffer
	cmd := exec.Command("sh", filepath.Join(repo, "scripts", "tools", "sarif-multitool.sh"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/tools/sarif-multitool.sh: %v\n%s", err, stderr.String())
	}
	tool := strings.TrimSpace(string(out))
	dir := t.TempDir()
	log := filepath.Join(dir, "demo.sarif")
	sarif, code := runOut(t, "lint", "--format", "sarif", "--now", "2026-02-14T20:00:00Z", filepath.Join(repo, "testdata", "demo"))
	if code != exitDeny {
		t.Fatalf("exit %d", code)
	}
	if err := os.WriteFile(log, []byte(sarif), 0o666); err != nil {
		t.Fatal(err)
	}
	// A log with a line 0 and a rule index out of range: the Multitool
	// must report it (the check can fail).
	bad := filepath.Join(dir, "bad.sarif")
	broken := regexp.MustCompile(`"startLine": \d+`).ReplaceAllString(sarif, `"startLine": 0`)
	broken = regexp.MustCompile(`"ruleIndex": \d+`).ReplaceAllString(broken, `"ruleIndex": 9999`)
	if err := os.WriteFile(bad, []byte(broken), 0o666); err != nil {
		t.Fatal(err)
	}
	if sariftest.Check([]byte(strings.Replace(sarif, `"startLine": `, `"startLine": -`, 1))) == nil {
		t.Fatal("the schema accepts a negative startLine")
	}
	mt := exec.Command(tool, "validate", log, bad, "--output", filepath.Join(dir, "validation.sarif"), "--log", "ForceOverwrite")
	mt.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	res, err := mt.CombinedOutput()
	if err != nil {
		t.Fatalf("Sarif.Multitool validate: %v\n%s", err, res)
	}
	text := string(res)
	if !strings.Contains(text, "Analysis completed successfully") || strings.Contains(text, "demo.sarif(") ||
		!strings.Contains(text, "bad.sarif(") || !strings.Contains(text, "SARIF1009") || !strings.Contains(text, "JSON1008") {
		t.Fatalf("Sarif.Multitool validate: want findings in bad.sarif only:\n%s", text)
	}
	// Its own SARIF log of the validation is valid too.
	data, err := os.ReadFile(filepath.Join(dir, "validation.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	sariftest.Validate(t, bytes.TrimPrefix(data, []byte("\ufeff")))
}
