package gitbase

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// want is the expected Finding of one case (nil: allowed).
type want struct {
	line, column int
	offset       int64
	truncated    bool
	reason       string // a substring of Reason
}

func TestCheckAppendOnly(t *testing.T) {
	big := jsonl(1, 2000) // about 230 KB: several 64 KiB chunks
	bigEdited := strings.Replace(big, "evt-000000001500", "evt-00000000150X", 1)
	lineLen := len(jsonl(1, 1))
	cases := []struct {
		name, base, current string
		want                *want
	}{
		{name: "unchanged", base: "l1\nl2\nl3\n", current: "l1\nl2\nl3\n"},
		{name: "lines appended", base: "l1\nl2\nl3\n", current: "l1\nl2\nl3\nl4\nl5\n"},
		{name: "appended line without newline", base: "l1\n", current: "l1\nl2"},
		{name: "empty at REV", base: "", current: "l1\n"},
		{name: "edited line 3", base: "l1\nl2\nl3\nl4\n", current: "l1\nl2\nlX\nl4\n",
			want: &want{line: 3, column: 2, offset: 7, reason: "line 3 was edited or removed since HEAD"}},
		{name: "edited line 3 then appended", base: "l1\nl2\nl3\nl4\n", current: "l1\nl2\nl3 \nl4\nl5\n",
			want: &want{line: 3, column: 3, offset: 8, reason: "line 3 was edited"}},
		{name: "removed middle line", base: "l1\nl2\nl3\nl4\n", current: "l1\nl3\nl4\n",
			want: &want{line: 2, column: 2, offset: 4, reason: "line 2 was edited or removed"}},
		{name: "removed last line", base: "l1\nl2\nl3\n", current: "l1\nl2\n",
			want: &want{line: 3, column: 1, offset: 6, truncated: true, reason: "line 3 and every line after it were removed since HEAD"}},
		{name: "truncated to empty", base: "l1\nl2\nl3\n", current: "",
			want: &want{line: 1, column: 1, offset: 0, truncated: true, reason: "append-only log was emptied: it had 9 bytes at HEAD"}},
		{name: "last line cut short", base: "l1\nl2\nl3\n", current: "l1\nl",
			want: &want{line: 2, column: 2, offset: 4, truncated: true, reason: "line 2 was cut short at column 2"}},
		{name: "newline of last line removed", base: "l1\nl2\n", current: "l1\nl2",
			want: &want{line: 2, column: 3, offset: 5, truncated: true, reason: "line 2 was cut short"}},
		{name: "CRLF to LF", base: "l1\r\nl2\r\n", current: "l1\nl2\n",
			want: &want{line: 1, column: 3, offset: 2, reason: "line 1 was changed: its line ending was CRLF at HEAD"}},
		{name: "LF to CRLF", base: "l1\nl2\n", current: "l1\r\nl2\r\n",
			want: &want{line: 1, column: 3, offset: 2, reason: "its line ending was LF at HEAD"}},
		{name: "unterminated last line finished with LF", base: "l1\nl2", current: "l1\nl2\nl3\n"},
		{name: "unterminated last line finished with CRLF", base: "l1\nl2", current: "l1\nl2\r\n"},
		{name: "unterminated last line continued", base: "l1\nl2", current: "l1\nl2x\n",
			want: &want{line: 2, column: 3, offset: 5, reason: "line 2 was changed: it had no line ending at HEAD"}},
		{name: "unterminated last line followed by a lone CR", base: "l1\nl2", current: "l1\nl2\r",
			want: &want{line: 2, column: 3, offset: 5, reason: "no line ending"}},
		{name: "big log appended", base: big, current: big + jsonl(2001, 3)},
		{name: "big log edited at line 1500", base: big, current: bigEdited,
			want: &want{line: 1500, column: 29, offset: int64(1499*lineLen + 28), reason: "line 1500 was edited"}},
		{name: "big log cut inside the second chunk", base: big, current: big[:100000],
			want: &want{line: 100000/lineLen + 1, column: 100000%lineLen + 1, offset: 100000, truncated: true, reason: "cut short"}},
	}
	r := newRepo(t)
	for i, c := range cases {
		r.write(name(i), c.base)
	}
	head := r.commit("base")
	for i, c := range cases {
		r.write(name(i), c.current)
	}
	b := r.open("HEAD")
	if b.Commit() != head {
		t.Fatalf("Commit() = %s, want %s", b.Commit(), head)
	}
	// Every case twice: from the file (hash first, then the blob when the
	// hash differs) and from a reader that cannot seek (the blob always).
	for _, seek := range []bool{true, false} {
		for i, c := range cases {
			t.Run(map[bool]string{true: "file/", false: "stream/"}[seek]+c.name, func(t *testing.T) {
				path := r.path(name(i))
				var got *Finding
				if seek {
					got = check(t, b, path)
				} else {
					var err error
					if got, err = b.Check(path, onlyReader{strings.NewReader(c.current)}); err != nil {
						t.Fatal(err)
					}
				}
				if c.want == nil {
					if got != nil {
						t.Fatalf("want no finding, got %+v", got)
					}
					return
				}
				if got == nil {
					t.Fatalf("want a finding at line %d, got none", c.want.line)
				}
				w := c.want
				if got.Line != w.line || got.Column != w.column || got.Offset != w.offset || got.Truncated != w.truncated {
					t.Errorf("got line %d column %d offset %d truncated %v, want line %d column %d offset %d truncated %v",
						got.Line, got.Column, got.Offset, got.Truncated, w.line, w.column, w.offset, w.truncated)
				}
				if !strings.Contains(got.Reason, w.reason) {
					t.Errorf("reason %q does not contain %q", got.Reason, w.reason)
				}
				if got.Path != path || got.RepoPath != name(i) || got.Rev != "HEAD" || got.Commit != head || got.BaseSize != int64(len(c.base)) {
					t.Errorf("finding names %q %q %q %q size %d", got.Path, got.RepoPath, got.Rev, got.Commit, got.BaseSize)
				}
			})
		}
	}
	findings := 0
	for _, c := range cases {
		if c.want != nil {
			findings++
		}
	}
	// Each finding from a file is checked once more against the checked-out
	// form, with one short-lived process.
	if b.started != 2 || b.oneShots != findings {
		t.Errorf("%d long-lived and %d short-lived git processes for %d files, want 2 (--batch-check, --batch) and %d",
			b.started, b.oneShots, 2*len(cases), findings)
	}
}

// onlyReader hides every method but Read.
type onlyReader struct{ io.Reader }

// A compliant file that can seek is checked by its hash alone: one git
// process, and the blob's content is never asked for.
func TestHashOnlyWhenCompliant(t *testing.T) {
	r := manyLogs(t, 20, 50)
	r.write("unterminated.jsonl", "l1\nl2")
	r.commit("unterminated")
	for i := range 20 {
		r.write(thousandName(i), jsonl(i, 60))
	}
	r.write("unterminated.jsonl", "l1\nl2\r\nl3\n")
	b := r.open("HEAD")
	for i := range 20 {
		if f := check(t, b, r.path(thousandName(i))); f != nil {
			t.Fatalf("%+v", f)
		}
	}
	if f := check(t, b, r.path("unterminated.jsonl")); f != nil {
		t.Fatalf("%+v", f)
	}
	if b.started != 1 || b.oneShots != 0 {
		t.Errorf("%d+%d git processes, want 1 (--batch-check only)", b.started, b.oneShots)
	}
	// A reader positioned after a prefix the caller already read: the
	// comparison starts there (here: the wrong place, so a finding).
	f, err := os.Open(r.path(thousandName(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if fd, err := b.Check(r.path(thousandName(0)), f); err != nil || fd == nil || fd.Offset != 0 {
		t.Fatalf("from offset 3: %+v, %v", fd, err)
	}
}

func name(i int) string { return "logs/case-" + string(rune('a'+i)) + ".jsonl" }

// The reason never quotes the file's content: a log may hold secrets.
func TestReasonDoesNotEchoContent(t *testing.T) {
	r := newRepo(t)
	r.write("w.jsonl", `{"token":"sk-ant-SECRET"}`+"\n")
	r.commit("base")
	r.write("w.jsonl", `{"token":"sk-ant-SECRFT"}`+"\n")
	f := check(t, r.open("HEAD"), r.path("w.jsonl"))
	if f == nil || strings.Contains(f.Reason, "SECR") {
		t.Fatalf("finding %+v", f)
	}
}

func TestFileAbsentAtRev(t *testing.T) {
	r := newRepo(t)
	r.write("old.jsonl", "l1\n")
	r.commit("base")
	r.write("new.jsonl", "anything\n")
	r.write("dir/x.jsonl", "anything\n")
	b := r.open("HEAD")
	for _, p := range []string{"new.jsonl", "dir/x.jsonl"} {
		if f := check(t, b, r.path(p)); f != nil {
			t.Errorf("%s did not exist at HEAD, got %+v", p, f)
		}
	}
}

// A path that was a directory at REV and is a file now did not exist as a
// file: nothing to compare.
func TestDirectoryAtRev(t *testing.T) {
	r := newRepo(t)
	r.write("d/inner.jsonl", "l1\n")
	r.commit("base")
	if err := os.RemoveAll(r.path("d")); err != nil {
		t.Fatal(err)
	}
	r.write("d", "now a file\n")
	b := r.open("HEAD")
	if f := check(t, b, r.path("d")); f != nil {
		t.Fatalf("got %+v", f)
	}
	// The process is still in step after skipping the tree object.
	r.write("e.jsonl", "x\n")
	if f := check(t, b, r.path("e.jsonl")); f != nil || b.started != 1 {
		t.Fatalf("got %+v after a tree, %d processes", f, b.started)
	}
}

// A rename is a new file at the new path; the old path is listed by Missing.
func TestRenamedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a renamed file (~1 s of git) runs in `make test`")
	}
	r := newRepo(t)
	r.write(".work/events.jsonl", "l1\nl2\n")
	r.write(".work/keep.jsonl", "k\n")
	r.commit("base")
	r.git("mv", ".work/events.jsonl", ".work/events-2026-01.jsonl")
	r.write(".work/events-2026-01.jsonl", "l1\nEDITED\nl3\n")
	b := r.open("HEAD")
	if f := check(t, b, r.path(".work/events-2026-01.jsonl")); f != nil {
		t.Errorf("renamed file is new at its path, got %+v", f)
	}
	gone, err := b.Missing(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(r.dir, ".work", "events.jsonl")}; !equal(gone, want) {
		t.Errorf("Missing(top) = %q, want %q", gone, want)
	}
	gone, err = b.Missing(r.path(".work"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(r.dir, ".work", "events.jsonl")}; !equal(gone, want) {
		t.Errorf("Missing(.work) = %q, want %q", gone, want)
	}
	// The same rename committed: the new path exists at the new REV, and
	// an edit after that is found.
	r.write(".work/events-2026-01.jsonl", "l1\nl2\n")
	r.commit("rename")
	r.write(".work/events-2026-01.jsonl", "l1\nEDITED\n")
	if f := check(t, r.open("HEAD"), r.path(".work/events-2026-01.jsonl")); f == nil || f.Line != 2 {
		t.Errorf("edit after a committed rename: got %+v, want line 2", f)
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// Check compares with the revision named, not with HEAD.
func TestOlderRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a check against an older revision (~1 s of git) runs in `make test`")
	}
	r := newRepo(t)
	r.write("log.jsonl", "l1\n")
	first := r.commit("one")
	r.write("log.jsonl", "l1\nl2\n")
	r.commit("two")
	r.write("log.jsonl", "l1\nX2\n")
	if f := check(t, r.open(first), r.path("log.jsonl")); f != nil {
		t.Errorf("against the first commit the file only grew, got %+v", f)
	}
	f := check(t, r.open("HEAD"), r.path("log.jsonl"))
	if f == nil || f.Line != 2 {
		t.Fatalf("against HEAD line 2 changed, got %+v", f)
	}
	r.git("tag", "v1", first)
	if b, err := Open(r.dir, "v1"); err != nil || b.Commit() != first {
		t.Fatalf("tag: %v", err)
	} else {
		b.Close()
	}
}

func TestShallowClone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a shallow clone (~2 s) runs in `make test`")
	}
	r := newRepo(t)
	r.write("log.jsonl", "l1\n")
	first := r.commit("one")
	r.write("log.jsonl", "l1\nl2\n")
	r.commit("two")
	r.write("log.jsonl", "l1\nl2\nl3\n")
	r.commit("three")

	clone := &repo{tb: t, dir: filepath.Join(t.TempDir(), "clone")}
	(&repo{tb: t, dir: r.dir}).git("clone", "-q", "--depth", "1", "file://"+r.dir, clone.dir)
	for _, rev := range []string{"HEAD~2", first} {
		_, err := Open(clone.dir, rev)
		if !errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("Open(shallow, %s) = %v, want ErrUnknownRevision", rev, err)
		}
		for _, s := range []string{"a shallow clone", "git fetch --deepen", "git fetch --unshallow", "fetch-depth: 0", rev} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("message %q does not mention %q", err, s)
			}
		}
	}
	// The revision the clone has works as anywhere else.
	clone.write("log.jsonl", "l1\nl2\n")
	f := check(t, clone.open("HEAD"), clone.path("log.jsonl"))
	if f == nil || f.Line != 3 || !f.Truncated {
		t.Fatalf("in the shallow clone: got %+v, want line 3 removed", f)
	}
	// After deepening, the old revision resolves.
	clone.git("fetch", "-q", "--unshallow")
	if f := check(t, clone.open(first), clone.path("log.jsonl")); f != nil {
		t.Fatalf("after --unshallow: got %+v", f)
	}
}

func TestOpenErrors(t *testing.T) {
	r := newRepo(t)
	r.write("log.jsonl", "l1\n")
	r.commit("one")

	_, err := Open(t.TempDir(), "HEAD")
	if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), "is not inside a git work tree") {
		t.Errorf("not a repository: %v", err)
	}
	_, err = Open(filepath.Join(t.TempDir(), "nope"), "HEAD")
	if !errors.Is(err, ErrNotRepository) {
		t.Errorf("missing directory: %v", err)
	}
	_, err = Open(r.dir, "no-such-branch")
	if !errors.Is(err, ErrUnknownRevision) || !strings.Contains(err.Error(), `no commit named "no-such-branch"`) ||
		strings.Contains(err.Error(), "shallow") {
		t.Errorf("unknown revision: %v", err)
	}
	for _, rev := range []string{"", "--all", "a\nb"} {
		if _, err := Open(r.dir, rev); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Open(%q) = %v, want ErrUnknownRevision", rev, err)
		}
	}
	// A file as dir: its directory is used.
	b, err := Open(r.path("log.jsonl"), "HEAD")
	if err != nil {
		t.Fatalf("file as dir: %v", err)
	}
	b.Close()

	t.Setenv("PATH", t.TempDir())
	_, err = Open(r.dir, "HEAD")
	if !errors.Is(err, ErrGitNotFound) || !strings.Contains(err.Error(), "git is not installed or not on PATH") {
		t.Errorf("no git: %v", err)
	}
}

func TestPaths(t *testing.T) {
	r := newRepo(t)
	r.write("with space/ev ents.jsonl", "l1\nl2\n")
	r.write(" lead.jsonl", "l1\nl2\n")
	r.write("trail.jsonl ", "l1\nl2\n")
	r.write("target.jsonl", "l1\nl2\n")
	r.write("sub/dir/deep.jsonl", "l1\n")
	r.commit("base")
	r.write("with space/ev ents.jsonl", "l1\nlX\n")
	r.write(" lead.jsonl", "l1\nlX\n")
	r.write("trail.jsonl ", "l1\nlX\n")
	r.write("target.jsonl", "l1\n")
	if err := os.Symlink("target.jsonl", r.path("link.jsonl")); err != nil {
		t.Skip("no symlinks:", err)
	}
	outside := filepath.Join(t.TempDir(), "outside.jsonl")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, r.path("out-link.jsonl")); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(r.dir, alias); err != nil {
		t.Fatal(err)
	}
	b := r.open("HEAD")

	for _, p := range []string{"with space/ev ents.jsonl", " lead.jsonl", "trail.jsonl "} {
		if f := check(t, b, r.path(p)); f == nil || f.Line != 2 || f.RepoPath != p {
			t.Errorf("path %q with spaces: got %+v", p, f)
		}
	}
	// A symlink is checked as the file it points to.
	if f := check(t, b, r.path("link.jsonl")); f == nil || f.Line != 2 || !f.Truncated || f.RepoPath != "target.jsonl" {
		t.Errorf("symlink: got %+v", f)
	}
	// Through a symlinked directory, and relative to the working directory.
	if f := check(t, b, filepath.Join(alias, "target.jsonl")); f == nil || f.RepoPath != "target.jsonl" {
		t.Errorf("through a symlinked directory: got %+v", f)
	}
	t.Chdir(r.path("sub"))
	if rel, ok, err := b.Rel(filepath.Join("dir", "deep.jsonl")); rel != "sub/dir/deep.jsonl" || !ok || err != nil {
		t.Errorf("Rel(relative path) = %q %v %v", rel, ok, err)
	}
	// Outside the work tree: not checked, and Rel says so.
	for _, p := range []string{outside, r.path("out-link.jsonl")} {
		if f := check(t, b, p); f != nil {
			t.Errorf("%s is outside the work tree, got %+v", p, f)
		}
		if _, ok, err := b.Rel(p); ok || err != nil {
			t.Errorf("Rel(%s) = %v, %v; want not ok", p, ok, err)
		}
	}
	if _, err := b.Check(r.path("gone.jsonl"), strings.NewReader("")); err == nil {
		t.Error("Check of a file that does not exist: want an error")
	}
	if b.started != 2 {
		t.Errorf("%d git processes, want 2", b.started)
	}
}

// A path `cat-file --batch` cannot take on one line goes through ls-tree.
func TestPathWithNewline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a path with a newline (~1 s of git) runs in `make test`")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no newlines in Windows file names")
	}
	r := newRepo(t)
	r.write("odd\nname.jsonl", "l1\nl2\n")
	r.write("odd\nsame.jsonl", "l1\n")
	r.commit("base")
	r.write("odd\nname.jsonl", "l1\n")
	r.write("odd\nsame.jsonl", "l1\nl2\n")
	r.write("odd\nnew.jsonl", "l1\n")
	b := r.open("HEAD")
	if f := check(t, b, r.path("odd\nname.jsonl")); f == nil || f.Line != 2 || !f.Truncated {
		t.Errorf("got %+v, want line 2 removed", f)
	}
	if f := check(t, b, r.path("odd\nsame.jsonl")); f != nil {
		t.Errorf("appended: got %+v", f)
	}
	if f := check(t, b, r.path("odd\nnew.jsonl")); f != nil {
		t.Errorf("new: got %+v", f)
	}
}

// Inside a hook git exports a relative GIT_DIR; the work tree is then the
// working directory, whatever directory Open is given.
func TestRelativeGitDirAsInAHook(t *testing.T) {
	r := newRepo(t)
	r.write("sub/log.jsonl", "l1\nl2\n")
	r.commit("base")
	r.write("sub/log.jsonl", "l1\n")
	t.Chdir(r.dir)
	t.Setenv("GIT_DIR", ".git")
	b, err := Open("sub", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if f := check(t, b, filepath.Join("sub", "log.jsonl")); f == nil || f.RepoPath != "sub/log.jsonl" || f.Line != 2 {
		t.Fatalf("got %+v", f)
	}
}

// errReader fails after n bytes.
type errReader struct {
	r io.Reader
	n int
}

func (e *errReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	if len(p) > e.n {
		p = p[:e.n]
	}
	n, err := e.r.Read(p)
	e.n -= n
	return n, err
}

type errSeeker struct {
	errReader
	s io.Seeker
}

func (e *errSeeker) Seek(off int64, whence int) (int64, error) { return e.s.Seek(off, whence) }

// A read error of the current file is returned, and the git process stays
// in step for the next file.
func TestCurrentReadError(t *testing.T) {
	r := newRepo(t)
	big := jsonl(1, 3000)
	r.write("a.jsonl", big)
	r.write("b.jsonl", "l1\nl2\n")
	r.commit("base")
	r.write("b.jsonl", "l1\n")
	b := r.open("HEAD")
	_, err := b.Check(r.path("a.jsonl"), &errReader{r: strings.NewReader(big), n: 70000})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "a.jsonl") {
		t.Fatalf("want the read error, got %v", err)
	}
	// The same from a file whose reads fail while it is hashed.
	file, err := os.Open(r.path("a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	_, err = b.Check(r.path("a.jsonl"), &errSeeker{errReader{r: file, n: 70000}, file})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("want the read error, got %v", err)
	}
	if f := check(t, b, r.path("b.jsonl")); f == nil || f.Line != 2 {
		t.Fatalf("next file: got %+v", f)
	}
	if b.started != 2 {
		t.Errorf("%d git processes, want 2", b.started)
	}
}

// 1,000 files in one run use one git process per role, and every edited file (and
// only those) is found at the edited line.
func TestThousandFilesOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a thousand files against one git process (~3 s) runs in `make test`")
	}
	const n = 1000
	r := manyLogs(t, n, 5)
	for i := range n {
		switch i % 100 {
		case 7:
			edited := strings.Replace(jsonl(i+3, 1), "updated", "UPDATED", 1)
			r.write(thousandName(i), jsonl(i, 3)+edited+jsonl(i+4, 1))
		default:
			r.write(thousandName(i), jsonl(i, 6))
		}
	}
	b := r.open("HEAD")
	var found []int
	for i := range n {
		f := check(t, b, r.path(thousandName(i)))
		if f != nil {
			if f.Line != 4 {
				t.Errorf("file %d: line %d, want 4", i, f.Line)
			}
			found = append(found, i)
		}
	}
	if len(found) != n/100 || found[0] != 7 || found[len(found)-1] != 907 {
		t.Errorf("found edits in %v", found)
	}
	if b.started != 2 || b.oneShots != len(found) {
		t.Errorf("%d long-lived and %d short-lived git processes for %d files, want 2 (--batch-check, and --batch for the edited files) and %d",
			b.started, b.oneShots, n, len(found))
	}
}

// manyLogs is a repository with n committed logs of lines lines each,
// named by thousandName.
func manyLogs(tb testing.TB, n, lines int) *repo {
	r := newRepo(tb)
	for i := range n {
		r.write(thousandName(i), jsonl(i, lines))
	}
	r.commit("base")
	return r
}

func thousandName(i int) string {
	return filepath.Join("ledger", "agent"+string(rune('a'+i%10)), "f"+strconv.Itoa(i)+".jsonl")
}

// Concurrent Checks give the same answers and start at most two processes
// per GOMAXPROCS.
func TestConcurrentChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: concurrent checks (~1-3 s) runs in `make test`")
	}
	const n = 64
	r := manyLogs(t, n, 200)
	for i := range n {
		if i%2 == 1 {
			r.write(thousandName(i), jsonl(i, 150))
		}
	}
	b := r.open("HEAD")
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Go(func() {
			data, err := os.ReadFile(r.path(thousandName(i)))
			if err != nil {
				errs[i] = err.Error()
				return
			}
			f, err := b.Check(r.path(thousandName(i)), bytes.NewReader(data))
			switch {
			case err != nil:
				errs[i] = err.Error()
			case (f != nil) != (i%2 == 1):
				errs[i] = "wrong verdict"
			case f != nil && (f.Line != 151 || !f.Truncated):
				errs[i] = "wrong line"
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("file %d: %s", i, e)
		}
	}
	if max := 2 * runtime.GOMAXPROCS(0); b.started < 2 || b.started > max {
		t.Errorf("%d git processes, want 2..%d", b.started, max)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Check(r.path(thousandName(0)), strings.NewReader("")); err == nil {
		t.Error("Check after Close: want an error")
	}
}

// With core.autocrlf=true (Git for Windows' default) a checkout writes CRLF:
// the checked-out form counts as the file's bytes at REV, and so do the
// committed bytes.
func TestCheckoutConversion(t *testing.T) {
	r := newRepo(t)
	for _, p := range []string{"appended.jsonl", "edited.jsonl", "lf.jsonl"} {
		r.write(p, "l1\nl2\nl3\n")
	}
	r.commit("base")
	r.git("config", "core.autocrlf", "true")
	for _, p := range []string{"appended.jsonl", "edited.jsonl", "lf.jsonl"} {
		if err := os.Remove(r.path(p)); err != nil {
			t.Fatal(err)
		}
	}
	r.git("checkout", "--", ".")
	if data, _ := os.ReadFile(r.path("appended.jsonl")); string(data) != "l1\r\nl2\r\nl3\r\n" {
		t.Fatalf("checkout wrote %q, want CRLF", data)
	}
	r.write("appended.jsonl", "l1\r\nl2\r\nl3\r\nl4\r\n")
	r.write("edited.jsonl", "l1\r\nlX\r\nl3\r\n")
	r.write("lf.jsonl", "l1\nl2\nl3\nl4\n")
	b := r.open("HEAD")
	if f := check(t, b, r.path("appended.jsonl")); f != nil {
		t.Errorf("appended to the checked-out form: got %+v", f)
	}
	if f := check(t, b, r.path("edited.jsonl")); f == nil || f.Line != 2 || f.Column != 2 || f.Offset != 5 || f.BaseSize != 12 {
		t.Errorf("edited: got %+v, want line 2 column 2 of the checked-out form", f)
	}
	if f := check(t, b, r.path("lf.jsonl")); f != nil {
		t.Errorf("appended to the committed bytes: got %+v", f)
	}
	// A reader that cannot seek is compared with the committed bytes only.
	f, err := b.Check(r.path("appended.jsonl"), onlyReader{strings.NewReader("l1\r\nl2\r\nl3\r\nl4\r\n")})
	if err != nil || f == nil || f.Line != 1 || !strings.Contains(f.Reason, "its line ending was LF at HEAD (") {
		t.Errorf("from a stream: got %+v, %v", f, err)
	}
}

// HEAD of a repository without a commit yet (a pre-commit hook running
// --base HEAD on the first commit): no log existed, nothing is compared,
// and no deleted log is reported. Any other unknown revision still fails.
func TestUnbornHead(t *testing.T) {
	r := newRepo(t)
	r.write("logs/new.jsonl", "anything\n")
	r.git("add", "-A")
	b := r.open("HEAD")
	if f := check(t, b, r.path("logs/new.jsonl")); f != nil {
		t.Errorf("a log in a repository without commits: %+v", f)
	}
	if m, err := b.Missing(r.dir); err != nil || len(m) != 0 {
		t.Errorf("Missing = %v, %v; want none", m, err)
	}
	if _, err := Open(r.dir, "main"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("Open(main) without commits = %v, want ErrUnknownRevision", err)
	}
}
