package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/repotest"

	"go.yaml.in/yaml/v3"
)

// preCommitHook is one hook of .pre-commit-hooks.yaml, the fields we check.
type preCommitHook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	RequireSerial bool   `yaml:"require_serial"`
}

func readHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repotest.Root(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	m := map[string]preCommitHook{}
	for _, h := range hooks {
		m[h.ID] = h
	}
	return m
}

// TestPreCommitHooksFiles holds the `files` regex of every hook in
// .pre-commit-hooks.yaml equal to the built-in globs (kind.ByGlob) and
// the sniffed extensions (.json, .jsonl) on paths made from each glob and on
// near misses: every file that has or may have a kind is passed. The
// whole-tree hooks also run when .agentlint.toml changes. pre-commit
// matches with Python's re.search; the regexes use only the syntax that
// Python and Go's RE2 read alike.
func TestPreCommitHooksFiles(t *testing.T) {
	hooks := readHooks(t)
	var paths []string
	for _, k := range kind.All {
		for _, g := range k.Globs {
			for _, pre := range []string{"", "proj/", "a/b/"} {
				for _, star := range []string{"x", "", "T-1.2"} {
					p := pre + strings.TrimPrefix(g, "**/")
					p = strings.ReplaceAll(p, "[0-9]", "7")
					if p = strings.ReplaceAll(p, "*", star); !strings.Contains(p, "//") {
						paths = append(paths, p)
					}
				}
			}
		}
	}
	paths = append(paths, "worklogs/a/b.jsonl", "worklogs/a.json", "worklogs.jsonl", ".work/events.json", ".work/x/events.jsonl",
		"ledger/a/2026-1-01.jsonl", "ledger/2026-01-01.jsonl", "g/ledger/a/b/2026-01-01.jsonl", "g/ledger/a/2026-01-01.jsonl.bak",
		"agents/status.json", "agents/a/b/status.json", ".work/templates/x/y.toml", ".work/processes/p.toml",
		"xevents-1.jsonl", "a/events.jsonl", "decisions.jsonl", ".work/assignment-x", "README.md", "agentlint.toml")
	want := map[string]string{
		"agentlint": "golang", "agentlint-tree": "golang", "agentlint-system": "system", "agentlint-tree-system": "system",
	}
	for id, lang := range want {
		h, ok := hooks[id]
		if !ok {
			t.Errorf("no hook %s", id)
			continue
		}
		if h.Language != lang || !h.RequireSerial {
			t.Errorf("%s: language %s, require_serial %v; want %s, true", id, h.Language, h.RequireSerial, lang)
		}
		tree := strings.Contains(id, "tree")
		if tree != (h.PassFilenames != nil && !*h.PassFilenames) {
			t.Errorf("%s: pass_filenames %v", id, h.PassFilenames)
		}
		if !strings.Contains(h.Entry, "--new-from-rev HEAD") || !strings.Contains(h.Entry, "--force-exclude") ||
			tree != strings.HasSuffix(h.Entry, " .") || !strings.Contains(h.Entry, "--skip-unknown") {
			t.Errorf("%s: entry %q", id, h.Entry)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Errorf("%s: files: %v", id, err)
			continue
		}
		for _, p := range paths {
			// A file with a kind by a built-in glob, or any other JSON or
			// JSON Lines file, whose first record is sniffed.
			sniffed := strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")
			if got, kind := re.MatchString(p), kind.ByGlob(p) != nil || sniffed; got != kind {
				t.Errorf("%s: files matches %s: %v, but it has a kind by a built-in glob or is sniffed: %v", id, p, got, kind)
			}
		}
		for _, p := range []string{".agentlint.toml", "sub/.agentlint.toml"} {
			if re.MatchString(p) != tree {
				t.Errorf("%s: files matches %s: %v", id, p, !tree)
			}
		}
	}
}

// TestPreCommit runs the real pre-commit (installed by
// scripts/tools/pre-commit.sh from Debian's package) with this repository
// as a hook repository: a snapshot of the work tree committed to a
// temporary git repository, since pre-commit clones a repository at a rev
// and builds the golang hooks with `go install ./...` (in its own
// PRE_COMMIT_HOME, with this module cache: nothing is downloaded). In a
// fresh project that uses the hooks agentlint and agentlint-tree:
//
//   - the first commit (no HEAD yet) of good data passes;
//   - a worklog line with a schema error is blocked and the finding shown;
//   - an edited line of a committed worklog is blocked (AL020, --base HEAD);
//   - a status file naming a task that no ledger entry has is blocked by
//     the whole-tree hook (LG102), while the per-file hook, which is passed
//     only the status file, reports nothing;
//   - appending a good line commits.
//
// Then `pre-commit run --all-files` on a copy of testdata/demo fails with
// the demo's findings: the whole-tree hooks (golang, and system with
// pre-commit's build on PATH) print exactly what `agentlint lint --format
// text .` prints there, and the per-file hooks fail too.
//
// About 15-30 s with a warm Go build cache (pre-commit links the
// repository's commands); skipped with -short.
func TestPreCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pre-commit and go install (-short)")
	}
	root := repotest.Root(t)
	for _, tool := range []string{"git", "go", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: %v", tool, err)
		}
	}
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "tools", "pre-commit.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/tools/pre-commit.sh: %v\n%s", err, errText(err))
	}
	preCommit := strings.TrimSpace(string(out))
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}

	tmp := t.TempDir()
	gitcfg := filepath.Join(tmp, "gitconfig")
	writeTestFile(t, gitcfg, "[user]\n\tname = agentlint test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"+
		"[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n[protocol \"file\"]\n\tallow = always\n")
	env := []string{
		"GIT_CONFIG_GLOBAL=" + gitcfg, "GIT_CONFIG_NOSYSTEM=1",
		"PRE_COMMIT_HOME=" + filepath.Join(tmp, "pre-commit-home"),
		"GOMODCACHE=" + strings.TrimSpace(string(modcache)), // pre-commit sets GOPATH to its environment: keep the module cache
		"NO_COLOR=1", "TERM=dumb",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"), k == "PRE_COMMIT_HOME", k == "GOMODCACHE", k == "NO_COLOR", k == "TERM":
		default:
			env = append(env, kv)
		}
	}
	sh := func(dir string, name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		b, err := cmd.CombinedOutput()
		t.Logf("%s %s: %.1f s", filepath.Base(name), strings.Join(args, " "), time.Since(start).Seconds())
		return string(b), err
	}
	must := func(dir string, name string, args ...string) string {
		t.Helper()
		out, err := sh(dir, name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}

	// The hook repository: the work tree as it is (tracked and untracked,
	// not ignored files), committed.
	hookRepo := filepath.Join(tmp, "hookrepo")
	files := strings.Split(strings.TrimRight(must(root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(hookRepo, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	must(hookRepo, "git", "init", "-q")
	must(hookRepo, "git", "add", "-A")
	must(hookRepo, "git", "commit", "-q", "--no-verify", "-m", "snapshot of the work tree")
	rev := strings.TrimSpace(must(hookRepo, "git", "rev-parse", "HEAD"))
	config := func(args string, ids ...string) string {
		c := "repos:\n  - repo: " + hookRepo + "\n    rev: " + rev + "\n    hooks:\n"
		for _, id := range ids {
			c += "      - id: " + id + "\n" + args
		}
		return c
	}

	// A project that uses the hooks.
	proj := filepath.Join(tmp, "proj")
	must(tmp, "git", "init", "-q", proj)
	writeTestFile(t, filepath.Join(proj, ".pre-commit-config.yaml"), config("", "agentlint", "agentlint-tree"))
	must(proj, preCommit, "install")
	mustCopyTree(t, filepath.Join(root, "testdata", "stream", "ledger", "LG102", "pass"), proj)
	os.Remove(filepath.Join(proj, "want.txt"))
	demoLog, err := os.ReadFile(filepath.Join(root, "testdata", "demo", "worklogs", "T-12.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(demoLog), "\n")
	worklog := filepath.Join(proj, "worklogs", "T-12.jsonl")
	writeTestFile(t, worklog, lines[0])

	commit := func(msg string) (string, error) {
		t.Helper()
		must(proj, "git", "add", "-A")
		return sh(proj, "git", "commit", "-q", "-m", msg)
	}
	blocked := func(msg string, want ...string) {
		t.Helper()
		out, err := commit(msg)
		if err == nil {
			t.Fatalf("commit %q was not blocked:\n%s", msg, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("commit %q: the output lacks %q:\n%s", msg, w, out)
			}
		}
		must(proj, "git", "reset", "-q", "--hard", "HEAD")
	}

	if out, err := commit("first data"); err != nil {
		t.Fatalf("the first commit of good data was blocked: %v\n%s", err, out)
	} else if !regexp.MustCompile(`agentlint \(whole tree\)\.+Passed`).MatchString(out) || !regexp.MustCompile(`agentlint\.+Passed`).MatchString(out) {
		t.Errorf("the hooks did not run and pass on the first commit:\n%s", out)
	}

	// A schema error in an appended line.
	writeTestFile(t, worklog, lines[0]+strings.Replace(lines[1], `"timestamp":"2026-02-14T19:03:40Z"`, `"timestamp":"2026-02-14 19:03:40"`, 1))
	blocked("bad timestamp", "worklogs/T-12.jsonl:2:14: SCHEMA_INVALID", "- hook id: agentlint\n")

	// An edited line of the committed worklog.
	writeTestFile(t, worklog, strings.Replace(lines[0], "lock granted", "lock refused", 1)+lines[1])
	blocked("history rewritten", "worklogs/T-12.jsonl:1:", "NON_COMPLIANT AL020")

	// A status file naming a task that no ledger entry has: only the
	// whole-tree hook sees the ledger.
	status := filepath.Join(proj, "agents", "cls", "status.json")
	b, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, status, strings.Replace(string(b), `"wo-123"`, `"wo-999"`, 1))
	must(proj, "git", "add", "-A")
	pout, err := sh(proj, preCommit, "run", "agentlint")
	if err != nil || strings.Contains(pout, "LG102") {
		t.Errorf("the per-file hook, passed agents/cls/status.json only, failed or reported LG102 (%v):\n%s", err, pout)
	}
	blocked("dangling task", `agents/cls/status.json:5:19: LEDGER_INCONSISTENT LG102: last_task_id "wo-999"`, "- hook id: agentlint-tree\n")

	// Appending a good line commits.
	writeTestFile(t, worklog, lines[0]+lines[1])
	if out, err := commit("one more line"); err != nil {
		t.Fatalf("appending a good line was blocked: %v\n%s", err, out)
	}

	// History that holds mistakes (committed past the hooks): lines 5 and 7
	// of the demo's worklog (a secret, a bad task id) and a packet whose
	// heartbeat is not below its timeout.
	history := strings.Join(lines[:5], "") + lines[6]
	writeTestFile(t, worklog, history)
	packet, err := os.ReadFile(filepath.Join(root, "testdata", "demo", "packets", "t13-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(proj, "packets", "t13.json"), string(packet))
	writeTestFile(t, filepath.Join(proj, ".agentlint.toml"), "exclude = [\"legacy/**\"]\n")
	must(proj, "git", "add", "-A")
	must(proj, "git", "commit", "-q", "--no-verify", "-m", "history with mistakes")

	// A good line appended to the log with old mistakes commits, under both
	// hooks, although the tree holds them.
	writeTestFile(t, worklog, history+lines[7])
	if out, err := commit("good line after old mistakes"); err != nil {
		t.Fatalf("appending a good line to a log with old mistakes was blocked: %v\n%s", err, out)
	}

	// A bad line appended: blocked with exactly the new finding, by both
	// hooks; the old ones are not shown.
	writeTestFile(t, worklog, history+lines[7]+strings.Replace(lines[8], `"timestamp":"2026-02-14T19:26:30Z"`, `"timestamp":"2026-02-14 19:26:30"`, 1))
	must(proj, "git", "add", "-A")
	bout, err := sh(proj, "git", "commit", "-q", "-m", "bad line after old mistakes")
	if err == nil {
		t.Fatalf("a bad line appended to a log with old mistakes was not blocked:\n%s", bout)
	}
	for _, id := range []string{"agentlint", "agentlint-tree"} {
		if !strings.Contains(bout, "- hook id: "+id+"\n- exit code: 1\n\nworklogs/T-12.jsonl:8:14: SCHEMA_INVALID ") {
			t.Errorf("hook %s did not block the bad line with exactly its finding:\n%s", id, bout)
		}
	}
	for _, old := range []string{"OP040", "OP005", "OP014"} {
		if strings.Contains(bout, old+":") {
			t.Errorf("an old finding (%s) was reported for a commit that did not touch it:\n%s", old, bout)
		}
	}
	must(proj, "git", "reset", "-q", "--hard", "HEAD")

	// A bad packet in a folder no built-in glob names: found by sniffing,
	// blocked by both hooks.
	writeTestFile(t, filepath.Join(proj, "packets", "t16.json"), string(packet))
	must(proj, "git", "add", "-A")
	bout, err = sh(proj, "git", "commit", "-q", "-m", "bad packet")
	if err == nil || strings.Count(bout, "packets/t16.json:16:35: SCHEMA_INVALID OP014: ") != 2 {
		t.Errorf("a bad packet in packets/ was not blocked by both hooks (%v):\n%s", err, bout)
	}
	must(proj, "git", "reset", "-q", "--hard", "HEAD")
	os.Remove(filepath.Join(proj, "packets", "t16.json"))

	// A file the config excludes is skipped by both hooks.
	writeTestFile(t, filepath.Join(proj, "legacy", "t17.json"), string(packet))
	if out, err := commit("excluded packet"); err != nil {
		t.Errorf("an excluded file was checked by a hook: %v\n%s", err, out)
	}

	// The demo tree: every hook fails, the whole-tree hook with exactly
	// the findings of agentlint lint on the tree.
	demo := filepath.Join(tmp, "demo")
	must(tmp, "git", "init", "-q", demo)
	mustCopyTree(t, filepath.Join(root, "testdata", "demo"), demo)
	// A whole audit: no revision (--new-from-rev=), every finding.
	writeTestFile(t, filepath.Join(demo, ".pre-commit-config.yaml"), config("        args: [--now, '2026-02-14T20:00:00Z', --new-from-rev=]\n",
		"agentlint", "agentlint-tree", "agentlint-system", "agentlint-tree-system"))
	// The language: system hooks run the agentlint on PATH: the one
	// pre-commit built for the golang hooks.
	bins, _ := filepath.Glob(filepath.Join(tmp, "pre-commit-home", "*", "golangenv-*", "bin", "agentlint"))
	if len(bins) != 1 {
		t.Fatalf("pre-commit's golang environment: agentlint binaries %v, want one", bins)
	}
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + filepath.Dir(bins[0]) + string(os.PathListSeparator) + v
		}
	}
	must(demo, "git", "add", "-A")
	must(demo, "git", "commit", "-q", "--no-verify", "-m", "demo")
	dout, err := sh(demo, preCommit, "run", "--all-files")
	if err == nil {
		t.Fatalf("pre-commit run --all-files passed on the demo:\n%s", dout)
	}
	t.Chdir(demo)
	var direct bytes.Buffer
	if code := run([]string{"lint", "--format", "text", "--now", "2026-02-14T20:00:00Z", "."}, nil, &direct, &direct); code != exitDeny {
		t.Fatalf("agentlint lint on the demo: exit %d\n%s", code, direct.String())
	}
	for _, id := range []string{"agentlint-tree", "agentlint-tree-system"} {
		if !strings.Contains(dout, "- hook id: "+id+"\n- exit code: 1\n\n"+direct.String()) {
			t.Errorf("pre-commit run --all-files on the demo: %s does not show the whole-tree findings:\n%s\n--- agentlint lint .:\n%s", id, dout, direct.String())
		}
	}
	for _, w := range []string{"- hook id: agentlint\n- exit code: 1\n", "- hook id: agentlint-system\n- exit code: 1\n", "worklogs/T-12.jsonl:", "OP081"} {
		if !strings.Contains(dout, w) {
			t.Errorf("pre-commit run --all-files on the demo: no %q:\n%s", w, dout)
		}
	}
}

// writeTestFile writes content to path, creating its directory.
func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustCopyTree is copyTree (script_test.go) that fails the test on error.
func mustCopyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
}

// errText returns the standard error of a failed command, if any.
func errText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
