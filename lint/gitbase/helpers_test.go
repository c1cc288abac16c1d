package gitbase

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain isolates every git command of the tests (and of the package
// under test) from the user's and the system's git configuration.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitbase-home-")
	if err != nil {
		panic(err)
	}
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = agentlint test\n\temail = test@example.com\n"+
		"[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n"+
		"[protocol \"file\"]\n\tallow = always\n"), 0o644); err != nil {
		panic(err)
	}
	os.Setenv("GIT_CONFIG_GLOBAL", cfg)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

func requireGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed: the append-only checks against --base need the git CLI")
	}
}

// repo is a git repository in a temporary directory, driven by the git CLI.
type repo struct {
	tb  testing.TB
	dir string
}

func newRepo(tb testing.TB) *repo {
	tb.Helper()
	requireGit(tb)
	r := &repo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q")
	return r
}

func (r *repo) git(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) path(name string) string { return filepath.Join(r.dir, filepath.FromSlash(name)) }

func (r *repo) write(name, content string) {
	r.tb.Helper()
	p := r.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

// commit stages everything and commits; it returns the commit hash.
func (r *repo) commit(msg string) string {
	r.tb.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *repo) open(rev string) *Base {
	r.tb.Helper()
	b, err := Open(r.dir, rev)
	if err != nil {
		r.tb.Fatalf("Open(%s, %s): %v", r.dir, rev, err)
	}
	r.tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			r.tb.Errorf("Close: %v", err)
		}
	})
	return b
}

// check runs Check on the file at path, as the engine does: the file opened
// from disk.
func check(tb testing.TB, b *Base, path string) *Finding {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	fd, err := b.Check(path, f)
	if err != nil {
		tb.Fatalf("Check(%s): %v", path, err)
	}
	return fd
}

// jsonl returns n vermas-style event lines, numbered from first.
func jsonl(first, n int) string {
	var sb strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&sb, `{"event_id":"evt-%012d","event_type":"work_order.updated","timestamp":"2026-01-06T12:00:00.000Z","actor":"a","data":{}}`+"\n", i)
	}
	return sb.String()
}
