package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/repotest"

	"go.yaml.in/yaml/v3"

	"github.com/agentlint/agentlint/lint/output/sariftest"
)

// actionMeta is the part of action.yml (a composite action) that the
// simulated runner reads.
type actionMeta struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	Uses  string            `yaml:"uses"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

// actionRun is what one simulated run of the action gave.
type actionRun struct {
	stdout  map[string]string // by step id (or name)
	outputs map[string]string // the action's outputs
	failed  string            // the step that failed, "" when none
	status  int               // its exit status
	with    map[string]map[string]string
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runAction runs the steps of the composite action action.yml as GitHub's
// runner does, in a simulated environment: env holds GITHUB_WORKSPACE (the
// working directory), GITHUB_STEP_SUMMARY, RUNNER_TEMP and the rest; the
// `run:` steps run with `bash --noprofile --norc -eo pipefail` (GitHub's
// shell: bash), each with a fresh GITHUB_OUTPUT file whose key=value lines
// become steps.<id>.outputs; `${{ inputs.* }}`, `${{ steps.*.outputs.* }}`
// and `${{ github.action_path }}` are substituted, and `if:` conditions of
// the form inputs.NAME == 'value' are evaluated. `uses:` steps
// (actions/setup-go, actions/cache) are not run: Go is on PATH, and their
// `with:` values are resolved and kept for the test to check. A step that
// fails ends the run, as on GitHub. Any other expression fails the test.
func runAction(t *testing.T, root string, inputs map[string]string, env []string) actionRun {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionMeta
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	for k := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
	}
	input := func(k string) string {
		if v, ok := inputs[k]; ok {
			return v
		}
		in, ok := a.Inputs[k]
		if !ok {
			t.Fatalf("action.yml names input %q, which it does not declare", k)
		}
		return in.Default
	}
	steps := map[string]map[string]string{}
	eval := func(s string) string {
		return exprRE.ReplaceAllStringFunc(s, func(m string) string {
			e := exprRE.FindStringSubmatch(m)[1]
			switch parts := strings.Split(e, "."); {
			case len(parts) == 2 && parts[0] == "inputs":
				return input(parts[1])
			case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
				return steps[parts[1]][parts[3]]
			case e == "github.action_path":
				return root
			}
			t.Fatalf("action.yml: the simulated runner does not know the expression %q", m)
			return ""
		})
	}
	cond := func(s string) bool {
		if s == "" {
			return true
		}
		m := regexp.MustCompile(`^inputs\.([a-z-]+) == '([^']*)'$`).FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			t.Fatalf("action.yml: the simulated runner does not know the condition %q", s)
		}
		return input(m[1]) == m[2]
	}
	tmp := t.TempDir()
	var workspace string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GITHUB_WORKSPACE="); ok {
			workspace = v
		}
	}
	r := actionRun{stdout: map[string]string{}, outputs: map[string]string{}, with: map[string]map[string]string{}}
	for i, st := range a.Runs.Steps {
		id := st.ID
		if id == "" {
			id = st.Name
		}
		if !cond(st.If) {
			continue
		}
		if st.Uses != "" {
			with := map[string]string{}
			for k, v := range st.With {
				with[k] = eval(v)
			}
			r.with[st.Uses] = with
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("action.yml step %d: shell %q, want bash", i, st.Shell)
		}
		script := filepath.Join(tmp, "step"+strconv.Itoa(i)+".sh")
		out := filepath.Join(tmp, "output"+strconv.Itoa(i))
		writeTestFile(t, script, eval(st.Run))
		writeTestFile(t, out, "")
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workspace
		cmd.Env = append(append([]string{}, env...), "GITHUB_ACTION_PATH="+root, "GITHUB_OUTPUT="+out)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r.stdout[id] = stdout.String()
		ob, rerr := os.ReadFile(out)
		if rerr != nil {
			t.Fatal(rerr)
		}
		steps[st.ID] = map[string]string{}
		for _, line := range strings.Split(strings.TrimRight(string(ob), "\n"), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				steps[st.ID][k] = v
			}
		}
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("step %s: %v", id, err)
			}
			r.failed, r.status = id, ee.ExitCode()
			t.Logf("step %s failed (exit %d); stderr:\n%s", id, r.status, stderr.String())
			break
		}
	}
	for k, o := range a.Outputs {
		r.outputs[k] = eval(o.Value)
	}
	return r
}

// githubEnv is the simulated runner's environment: the process's, without
// any GITHUB_ or RUNNER_ variable of its own, plus the given ones.
func githubEnv(vars map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || k == "CI" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// TestAction runs action.yml's steps (runAction) on a pull request of a
// repository whose main branch holds the demo tree with its 21 mistakes;
// the branch edits a committed line of an append-only worklog and appends a
// bad ledger entry, with new-from-rev auto, sarif and the job summary on:
// the step fails with exit 1; its annotations are exactly those of
// `agentlint lint --format github --new-from-rev origin/main`, the pull
// request's two findings and nothing older; the outputs denied, warnings
// and older-findings are the summary envelope's and exit-code is 1; the job
// summary keeps what earlier steps wrote and gains the Markdown summary,
// headed by the verdict in words, with links to the lines at GITHUB_SHA;
// the SARIF file validates against the official schema, its results marked
// new (the annotations) or unchanged (the older findings). A clean tree with
// the summary and the cache off passes with zero counts and leaves the job
// summary alone; on a push, only what the pushed commits changed since the
// event's "before" commit counts; a revision that does not resolve fails
// with exit-code 2.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentlint as the action does (-short)")
	}
	root := repotest.Root(t)
	tmp := t.TempDir()
	gitcfg := filepath.Join(tmp, "gitconfig")
	writeTestFile(t, gitcfg, "[user]\n\tname = agentlint test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"+
		"[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n")
	t.Setenv("GIT_CONFIG_GLOBAL", gitcfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}

	// The repository of the pull request, cloned from one holding the demo
	// (with its 21 planted mistakes) on main; the branch edits the first
	// line of worklogs/T-12.jsonl (AL020) and appends a ledger entry of
	// another agent (LG012). Only those two are the pull request's.
	upstream := filepath.Join(tmp, "upstream")
	git(tmp, "init", "-q", upstream)
	mustCopyTree(t, filepath.Join(root, "testdata", "demo"), upstream)
	git(upstream, "add", "-A")
	git(upstream, "commit", "-q", "-m", "demo")
	ws := filepath.Join(tmp, "workspace")
	git(tmp, "clone", "-q", upstream, ws)
	git(ws, "checkout", "-q", "-b", "pr")
	worklog := filepath.Join(ws, "worklogs", "T-12.jsonl")
	b, err := os.ReadFile(worklog)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, worklog, strings.Replace(string(b), "lock granted", "lock refused", 1))
	ledger := filepath.Join(ws, "g", "ledger", "cls", "2026-02-14.jsonl")
	lb, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, ledger, string(lb)+`{"ts":"2026-02-14T16:55:00+07:00","agent":"andy","session_id":"2026-02-14_andy_001","event":"heartbeat","task_id":"system","source":"andy_agent","summary":"Heartbeat","data":{}}`+"\n")
	git(ws, "commit", "-q", "-am", "rewrite history, append another agent's entry")
	sha := git(ws, "rev-parse", "HEAD")

	summary := filepath.Join(tmp, "step_summary.md")
	const earlier = "## an earlier step\n\n"
	writeTestFile(t, summary, earlier)
	gh := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_STEP_SUMMARY": summary, "RUNNER_TEMP": filepath.Join(tmp, "runner"), "RUNNER_OS": "Linux",
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo/agents", "GITHUB_SHA": sha, "GITHUB_ACTIONS": "true", "CI": "true",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "pr",
	}
	if err := os.MkdirAll(gh["RUNNER_TEMP"], 0o755); err != nil {
		t.Fatal(err)
	}
	const now = "2026-02-14T20:00:00Z"
	// new-from-rev is auto: the pull request's base, origin/main.
	r := runAction(t, root, map[string]string{"args": "--now " + now, "sarif": "reports/agentlint.sarif"}, githubEnv(gh))

	sf, err := os.ReadFile(filepath.Join(ws, "reports", "agentlint.sarif"))
	if err != nil {
		t.Fatalf("no SARIF file: %v", err)
	}
	sariftest.Validate(t, sf) // the official SARIF 2.1.0 JSON Schema (run from the module)

	// What agentlint itself says on the tree, run here with the same
	// environment (the Markdown links read GITHUB_*).
	for k, v := range gh {
		t.Setenv(k, v)
	}
	t.Chdir(ws)
	direct := func(format string) string {
		var out bytes.Buffer
		if code := run([]string{"lint", "--format", format, "--now", now, "--new-from-rev", "origin/main", "--max-warnings", "-1", "."}, nil, &out, &out); code != exitDeny {
			t.Fatalf("agentlint lint --format %s: exit %d\n%s", format, code, out.String())
		}
		return out.String()
	}
	annotations := direct("github")
	jsonOut := strings.Split(strings.TrimRight(direct("json"), "\n"), "\n")
	var sum struct {
		Details struct {
			Denied   int `json:"denied"`
			Warnings int `json:"warnings"`
			Older    int `json:"older_findings"`
		} `json:"details"`
	}
	if err := json.Unmarshal([]byte(jsonOut[len(jsonOut)-1]), &sum); err != nil {
		t.Fatal(err)
	}

	if r.failed != "lint" || r.status != 1 {
		t.Fatalf("the action: step %q failed with exit %d; want the lint step, exit 1", r.failed, r.status)
	}
	if got := r.stdout["lint"]; got != annotations {
		t.Errorf("the action's annotations differ from agentlint lint --format github:\n--- action\n%s--- agentlint\n%s", got, annotations)
	}
	// The pull request's two findings are the only annotations.
	if n := countLines(annotations, "::error file=", "::warning file="); n != 2 ||
		!strings.Contains(annotations, "::error file=worklogs/T-12.jsonl,line=1,") || !strings.Contains(annotations, "AL020 NON_COMPLIANT") ||
		!strings.Contains(annotations, "::error file=g/ledger/cls/2026-02-14.jsonl,line=6,") || !strings.Contains(annotations, "LG012 LEDGER_INCONSISTENT") {
		t.Errorf("the annotations are not exactly the pull request's AL020 and LG012:\n%s", annotations)
	}
	want := map[string]string{"denied": strconv.Itoa(sum.Details.Denied), "warnings": strconv.Itoa(sum.Details.Warnings),
		"older-findings": strconv.Itoa(sum.Details.Older), "exit-code": "1"}
	for k, v := range want {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, r.outputs[k], v)
		}
	}
	if sum.Details.Denied != 2 || sum.Details.Warnings != 0 || sum.Details.Older != 21 {
		t.Errorf("the pull request: denied %d, warnings %d, older %d; want 2, 0 and the demo's 21", sum.Details.Denied, sum.Details.Warnings, sum.Details.Older)
	}
	sb, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if md := direct("markdown"); string(sb) != earlier+md {
		t.Errorf("the job summary is not the earlier text plus agentlint's Markdown summary:\n%s\n--- want after the earlier text\n%s", sb, md)
	}
	if !strings.Contains(string(sb), "## agentlint lint: ❌ 2 new records denied: 2 new findings; 21 findings older than origin/main left out\n") {
		t.Errorf("the job summary's headline does not state the verdict in words:\n%s", sb)
	}
	if strings.Contains(string(sb), "OP081") || strings.Contains(string(sb), "MISSING\\_REQUIRED\\_INPUT") {
		t.Errorf("the job summary shows findings older than the pull request:\n%s", sb)
	}
	link := "https://github.com/octo/agents/blob/" + sha + "/worklogs/T-12.jsonl#L1"
	if !strings.Contains(string(sb), link) {
		t.Errorf("the job summary has no link %s:\n%s", link, sb)
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				BaselineState string `json:"baselineState"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sf, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Fatalf("SARIF: %v, version %q, %d runs", err, sarif.Version, len(sarif.Runs))
	}
	states := map[string]int{}
	for _, res := range sarif.Runs[0].Results {
		states[res.BaselineState]++
	}
	if states["new"] != 2 || states["unchanged"] != sum.Details.Older || len(states) != 2 {
		t.Errorf("SARIF baselineState counts %v; want new 2 (the annotations) and unchanged %d", states, sum.Details.Older)
	}
	cache := r.with["actions/cache@v4"]
	if !strings.HasPrefix(cache["key"], "agentlint-Linux-go") || !strings.HasPrefix(cache["key"], cache["restore-keys"]) ||
		len(strings.Fields(cache["path"])) != 2 {
		t.Errorf("actions/cache gets key %q, restore-keys %q, path %q", cache["key"], cache["restore-keys"], cache["path"])
	}

	// A clean tree, on a push without a commit before it (no revision):
	// passes, zero counts, no job summary, no cache step.
	clean := filepath.Join(tmp, "clean")
	git(tmp, "init", "-q", clean)
	mustCopyTree(t, filepath.Join(root, "testdata", "stream", "ledger", "LG102", "pass"), clean)
	gh["GITHUB_WORKSPACE"], gh["GITHUB_BASE_REF"], gh["GITHUB_HEAD_REF"], gh["GITHUB_EVENT_NAME"] = clean, "", "", "push"
	writeTestFile(t, summary, earlier)
	r = runAction(t, root, map[string]string{"summary": "false", "cache": "false", "max-warnings": "0"}, githubEnv(gh))
	if r.failed != "" || r.outputs["denied"] != "0" || r.outputs["warnings"] != "0" || r.outputs["exit-code"] != "0" ||
		countLines(r.stdout["lint"], "::error", "::warning") != 0 || !strings.HasPrefix(r.stdout["lint"], "::notice title=agentlint::OK") {
		t.Errorf("a clean tree: failed step %q, outputs %v, annotations %q", r.failed, r.outputs, r.stdout["lint"])
	}
	if _, ok := r.with["actions/cache@v4"]; ok {
		t.Errorf("cache false: actions/cache still runs")
	}
	if sb, _ := os.ReadFile(summary); string(sb) != earlier {
		t.Errorf("summary false: the job summary changed:\n%s", sb)
	}

	// A push: only what the pushed commits changed since the commit before
	// them (the event's "before") is judged.
	git(clean, "add", "-A")
	git(clean, "commit", "-q", "-m", "clean data")
	mustCopyTree(t, filepath.Join(root, "testdata", "demo", "packets"), filepath.Join(clean, "old"))
	git(clean, "add", "-A")
	git(clean, "commit", "-q", "--no-verify", "-m", "packets with mistakes")
	before2 := git(clean, "rev-parse", "HEAD")
	mustCopyTree(t, filepath.Join(root, "testdata", "demo", "packets"), filepath.Join(clean, "new"))
	git(clean, "add", "-A")
	git(clean, "commit", "-q", "-m", "the same packets again")
	event := filepath.Join(tmp, "event.json")
	writeTestFile(t, event, "{\n  \"after\": \""+git(clean, "rev-parse", "HEAD")+"\",\n  \"before\": \""+before2+"\",\n  \"ref\": \"refs/heads/main\"\n}\n")
	gh["GITHUB_EVENT_PATH"] = event
	r = runAction(t, root, map[string]string{"summary": "false", "cache": "false"}, githubEnv(gh))
	if r.failed != "lint" || r.outputs["denied"] != "3" || r.outputs["older-findings"] != "3" || strings.Contains(r.stdout["lint"], "file=old/") {
		t.Errorf("a push: failed step %q, outputs %v; want the 3 denied packets of new/ and the 3 of old/ left out:\n%s", r.failed, r.outputs, r.stdout["lint"])
	}

	// A revision that does not resolve: exit 2.
	r = runAction(t, root, map[string]string{"new-from-rev": "no-such-branch"}, githubEnv(gh))
	if r.failed != "lint" || r.status != 2 || r.outputs["exit-code"] != "2" || r.outputs["denied"] != "0" {
		t.Errorf("base no-such-branch: failed step %q exit %d, outputs %v; want lint, 2", r.failed, r.status, r.outputs)
	}
}

// countLines counts the lines of s that start with one of prefixes.
func countLines(s string, prefixes ...string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		for _, p := range prefixes {
			if strings.HasPrefix(sc.Text(), p) {
				n++
				break
			}
		}
	}
	return n
}

// actionlintModule is the actionlint the tests run (go run, from the Go
// module proxy; the build is cached by Go).
const actionlintModule = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// TestActionlint runs actionlint on the workflows of .github/workflows and
// on testdata/action/workflow.yml, the README's workflow (uses: ./, so that
// actionlint checks its inputs and outputs against action.yml): no finding.
// The same workflow with a misspelt input must give one, so the test would
// see action.yml and the workflow disagree. The README shows the fixture,
// with the action named by its repository.
func TestActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("go run actionlint (-short)")
	}
	root := repotest.Root(t)
	workflows, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil || len(workflows) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	fixture := filepath.Join("testdata", "action", "workflow.yml")
	actionlint := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("go", append([]string{"run", actionlintModule, "-no-color"}, args...)...)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	args := []string{fixture}
	for _, w := range workflows {
		rel, _ := filepath.Rel(root, w)
		args = append(args, rel)
	}
	if out, err := actionlint("", args...); err != nil {
		t.Errorf("actionlint %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(filepath.Join(root, fixture))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "max-warnings:", "max-warning:", 1)
	if out, err := actionlint(bad, "-stdin-filename", fixture, "-"); err == nil || !strings.Contains(out, `input "max-warning" is not defined in action "agentlint"`) {
		t.Errorf("actionlint did not check the workflow's inputs against action.yml (%v):\n%s", err, out)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if shown := strings.Replace(string(b), "uses: ./\n", "uses: agentlint/agentlint@main\n", 1); !strings.Contains(string(readme), shown) {
		t.Errorf("README.md does not show %s with uses: agentlint/agentlint@main:\n%s", fixture, shown)
	}
}
