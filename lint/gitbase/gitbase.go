// Package gitbase checks that append-only JSON Lines logs really were only
// appended to since a git revision: `agentlint lint --base REV`
// (README, Usage), rule AL020 append-only, code NON_COMPLIANT
// (README, Codes and precedence).
// Every log that existed at REV must still start with exactly the bytes it
// had there: as committed, or as `git checkout REV` writes them (smudge
// filters, core.autocrlf), so that a Windows checkout with CRLF is not
// reported.
//
// Open resolves the repository and REV once; Check compares one file on disk
// with its version at REV. A long-lived `git cat-file --batch-check` process
// gives the blob's id and size; when the file can seek, Check first hashes
// its first size bytes as git does, so a compliant file (the common case)
// never needs the blob's content. Otherwise, or when the hash differs, a
// long-lived `git cat-file --batch` process streams the blob against the
// file, two 64 KiB buffers at a time, to find the first differing line, and
// a short-lived `git cat-file --filters` compares the checked-out form.
// Memory does not depend on file size. A run of any number of files starts
// one long-lived process when no file differs, two when some do (per
// concurrent Check), plus one short-lived process per differing file.
//
// Why the git CLI and not a Go git library: the git CLI is what a user's
// clone was made with, so shallow, partial (lazy blob fetch) and
// worktree-linked clones, alternates, pack formats and safe.directory all
// behave exactly as in `git log`; and it streams large blobs. go-git reads a
// whole blob into memory unless LargeObjectThreshold is set (go-git issue
// #104, PR #330) and resolves delta chains in memory, and it would add a large
// dependency tree to a tool that otherwise needs no network or crypto code.
//
// Files are matched to the repository by path: a file's real path (symlinks
// resolved) relative to the work tree's top level names the blob at REV.
// Files outside the work tree are not checked (Rel reports it). A renamed log
// is a new file at its new path; Missing lists the files of REV that are gone.
package gitbase

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Sentinel errors of Open, for errors.Is; the *Error that wraps them carries
// the message to print (a usage error: exit status 2, README, Codes and precedence).
var (
	// ErrGitNotFound: the git executable is not on PATH.
	ErrGitNotFound = errors.New("git not found")
	// ErrNotRepository: the directory is not inside a git work tree (or git
	// refuses it, e.g. safe.directory).
	ErrNotRepository = errors.New("not a git repository")
	// ErrUnknownRevision: REV names no commit of the repository, for example
	// because a shallow clone does not have it.
	ErrUnknownRevision = errors.New("unknown revision")
)

// Error is an error of Open: Err is one of the sentinel errors and Msg a
// complete sentence for the user that says what to fix.
type Error struct {
	Err error
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// Base is one repository at one revision. Check may be called from several
// goroutines; Close ends the git processes once every Check has returned.
type Base struct {
	rev    string   // REV as given
	commit string   // the full commit hash REV resolves to
	top    string   // real path of the work tree's top level
	git    string   // path of the git executable
	env    []string // environment of every git process

	sem      chan struct{} // one token per Check holding a git process
	mu       sync.Mutex
	idle     []*worker
	started  int // long-lived git cat-file processes started so far
	oneShots int // short-lived git processes started to compare one file
	closed   bool
}

// Finding says where a file stopped being an append-only extension of its
// version at the base revision: the first byte that differs or is missing.
type Finding struct {
	Path     string // the path given to Check
	RepoPath string // slash-separated path inside the repository
	Rev      string // REV as given to Open
	Commit   string // the full commit hash REV resolved to
	// Line is the 1-based line, numbered as at REV, holding the first byte
	// that changed or was removed; Column is that byte's 1-based byte column.
	Line   int
	Column int
	// Offset is the 0-based byte offset of that byte; BaseSize the file's
	// size in bytes at REV.
	Offset   int64
	BaseSize int64
	// Truncated is true when the file is a proper prefix of its version at
	// REV (lines removed at the end, a line cut short, or the file emptied);
	// false when a byte was rewritten.
	Truncated bool
	// Reason is one sentence for the envelope; it never quotes file content.
	Reason string
}

// Open resolves the git work tree that contains dir (a directory, or a file
// whose directory is used) and the commit that rev names, once for a whole
// run. Errors are *Error wrapping ErrGitNotFound, ErrNotRepository or
// ErrUnknownRevision; an unknown revision in a shallow clone says so and how
// to fetch more history.
func Open(dir, rev string) (*Base, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return nil, &Error{ErrUnknownRevision, fmt.Sprintf("--base %q is not a revision: name a commit, branch or tag, e.g. --base origin/main", rev)}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, &Error{ErrGitNotFound, fmt.Sprintf("--base %s needs the git CLI, and git is not installed or not on PATH", rev)}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	b := &Base{rev: rev, git: git, env: gitEnv()}
	find := dir
	if os.Getenv("GIT_DIR") != "" {
		// Discovery is off and, without GIT_WORK_TREE, the work tree is the
		// working directory (as in a hook): ask git from there.
		find = ""
	}
	out, err := b.output(find, "rev-parse", "--show-toplevel", "--is-shallow-repository")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if err != nil || len(lines) != 2 {
		return nil, &Error{ErrNotRepository, fmt.Sprintf("--base %s: %s is not inside a git work tree (%s)", rev, dir, gitMessage(err))}
	}
	if b.top, err = filepath.EvalSymlinks(lines[0]); err != nil {
		return nil, &Error{ErrNotRepository, fmt.Sprintf("--base %s: the work tree %s is not readable: %v", rev, lines[0], err)}
	}
	shallow := lines[1] == "true"
	out, err = b.output(b.top, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil && rev == "HEAD" {
		// A repository without a commit yet (the first commit of a new
		// repository, with a pre-commit hook running --base HEAD): there is
		// no history, so nothing was appended to. Compare with the empty
		// tree, where no log exists.
		if _, uerr := b.output(b.top, "symbolic-ref", "--quiet", "HEAD"); uerr == nil {
			if t, terr := b.output(b.top, "hash-object", "-t", "tree", "/dev/null"); terr == nil {
				out, err = t, nil
			}
		}
	}
	if err != nil {
		msg := fmt.Sprintf("--base %s: no commit named %q in %s", rev, rev, b.top)
		if shallow {
			msg += `: this is a shallow clone and the revision may lie beyond its history; fetch more with "git fetch --deepen=100" or "git fetch --unshallow" (GitHub actions/checkout: set "fetch-depth: 0")`
		}
		msg += `; if it names a branch of a remote, fetch that first, e.g. "git fetch origin main"`
		if m := gitMessage(err); m != "" && m != "exit status 1" {
			msg += " (" + m + ")"
		}
		return nil, &Error{ErrUnknownRevision, msg}
	}
	b.commit = strings.TrimSpace(out)
	n := runtime.GOMAXPROCS(0)
	b.sem = make(chan struct{}, n)
	return b, nil
}

// Commit returns the full hash of the commit REV resolved to (REV HEAD in a
// repository without a commit yet: the empty tree, which holds no log).
func (b *Base) Commit() string { return b.commit }

// Rel returns the slash-separated path inside the repository of the file at
// path (relative to the working directory or absolute), symlinks resolved;
// ok is false when the file is outside the work tree, which Check then does
// not check. err is set when the file cannot be resolved (it does not exist).
func (b *Base) Rel(path string) (rel string, ok bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false, err
	}
	r, err := filepath.Rel(b.top, real)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false, nil
	}
	return filepath.ToSlash(r), true, nil
}

// Check compares the file at path, whose current content current yields,
// with the file's version at REV. It returns nil when the file did not exist
// at REV (or was not a regular file there), is outside the work tree, or
// starts with exactly the bytes it had at REV, either as committed or as
// `git checkout` writes it (smudge filters, end-of-line conversion such as
// core.autocrlf); a last line that had no newline at REV may only be
// finished with LF or CRLF, not continued. Otherwise it returns the Finding
// of the form the file follows furthest.
//
// current is read from its position at the call. When it is an
// io.ReadSeeker (an *os.File), Check hashes at most the size at REV plus 2
// bytes of it and is done in the common, compliant case; when the file
// differs it seeks back and compares again (up to three passes). A reader
// that cannot seek is compared once, with the committed bytes only.
// Errors: the path cannot be resolved, current cannot be read, git failed.
func (b *Base) Check(path string, current io.Reader) (*Finding, error) {
	rel, ok, err := b.Rel(path)
	if err != nil || !ok {
		return nil, err
	}
	w, err := b.acquire()
	if err != nil {
		return nil, err
	}
	f, err := b.checkWith(w, path, rel, current)
	var cur errCurrent
	isCur := errors.As(err, &cur)
	b.release(w, err != nil && !isCur)
	if isCur {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return f, err
}

// checkWith asks for the blob's id and size at REV; when current can seek,
// it first hashes the current file's first size bytes as git would (the
// common, compliant case then never reads the blob). Otherwise, or when the
// hash differs, it streams the blob and compares byte by byte to find the
// first differing line; a difference is then checked once more against the
// checked-out form of the file.
func (b *Base) checkWith(w *worker, path, rel string, current io.Reader) (*Finding, error) {
	odd := strings.ContainsAny(rel, "\n\r") // cat-file --batch reads names by line
	var oid, typ string
	var size int64
	var err error
	if odd {
		oid, typ, size, err = b.lsTree(rel)
	} else {
		oid, typ, size, err = w.info.object(b.commit + ":" + rel)
	}
	if err != nil || typ != "blob" {
		return nil, err // missing, or not a file at REV
	}
	rs, start, seekable := seeker(current)
	if seekable {
		same, err := sameBlob(rs, oid, size, w.bufB)
		if err != nil || same {
			return nil, err
		}
		if err := rewind(rs, start); err != nil {
			return nil, err
		}
	}
	var d *diff
	if odd {
		d, _, err = b.oneShot(current, w.bufA, w.bufB, "blob", oid)
	} else {
		d, err = b.streamBlob(w, oid, size, current)
	}
	if err != nil || d == nil {
		return nil, err
	}
	raw := b.finding(path, rel, size, d)
	if !seekable {
		return raw, nil
	}
	if err := rewind(rs, start); err != nil {
		return nil, err
	}
	// As `git checkout` would write it: equal to the committed bytes unless
	// a filter or an end-of-line conversion applies to the path.
	d, size, err = b.oneShot(current, w.bufA, w.bufB, "--filters", b.commit+":"+rel)
	if err != nil || d == nil {
		return nil, err
	}
	if d.offset <= raw.Offset {
		return raw, nil
	}
	return b.finding(path, rel, size, d), nil
}

// seeker returns current as an io.ReadSeeker and its position, when it can
// seek (a regular file can; a pipe cannot).
func seeker(current io.Reader) (io.ReadSeeker, int64, bool) {
	rs, ok := current.(io.ReadSeeker)
	if !ok {
		return nil, 0, false
	}
	start, err := rs.Seek(0, io.SeekCurrent)
	return rs, start, err == nil
}

func rewind(rs io.Seeker, start int64) error {
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return errCurrent{err}
	}
	return nil
}

// lsTree returns the id, type and size of rel at REV ("" type when absent)
// with `git ls-tree`, for a path that cannot be named on a line.
func (b *Base) lsTree(rel string) (oid, typ string, size int64, err error) {
	out, err := b.output(b.top, "--literal-pathspecs", "ls-tree", "-z", "-l", "--full-tree", b.commit, "--", rel)
	if err != nil {
		return "", "", 0, fmt.Errorf("git ls-tree %q: %s", rel, gitMessage(err))
	}
	// "<mode> SP <type> SP <object> SP+ <size> TAB <path> NUL"; size "-" for a tree.
	meta, _, _ := strings.Cut(out, "\t")
	f := strings.Fields(meta)
	if len(f) != 4 || f[1] != "blob" {
		return "", "", 0, nil
	}
	size, err = strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return "", "", 0, fmt.Errorf("git ls-tree %q: %w: %q", rel, errProtocol, meta)
	}
	return f[2], f[1], size, nil
}

// Missing returns the files under dir (a directory path as the caller names
// it) that existed at REV and no longer exist on disk, each as dir joined
// with its path below dir, sorted as git sorts paths. A renamed or deleted
// log shows up here; whether that is a finding is the caller's decision.
func (b *Base) Missing(dir string) ([]string, error) {
	rel, ok, err := b.Rel(dir)
	if err != nil {
		return nil, err
	}
	args := []string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "--full-tree", b.commit}
	prefix := ""
	switch {
	case !ok && rel == "" && b.isTop(dir):
	case !ok:
		return nil, nil
	default:
		prefix = rel + "/"
		args = append(args, "--", rel)
	}
	out, err := b.output(b.top, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %s", gitMessage(err))
	}
	var gone []string
	for _, p := range strings.Split(out, "\x00") {
		if p == "" || !strings.HasPrefix(p, prefix) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(b.top, filepath.FromSlash(p))); errors.Is(err, os.ErrNotExist) {
			gone = append(gone, filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, prefix))))
		}
	}
	return gone, nil
}

func (b *Base) isTop(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	return err == nil && real == b.top
}

// Close ends the idle git processes. Call it once every Check has returned.
func (b *Base) Close() error {
	b.mu.Lock()
	idle := b.idle
	b.idle, b.closed = nil, true
	b.mu.Unlock()
	var first error
	for _, p := range idle {
		if err := p.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (b *Base) finding(path, rel string, size int64, d *diff) *Finding {
	if d == nil {
		return nil
	}
	f := &Finding{Path: path, RepoPath: rel, Rev: b.rev, Commit: b.commit, Line: d.line, Column: d.column,
		Offset: d.offset, BaseSize: size, Truncated: d.truncated}
	at := b.rev
	if c := shortHash(b.commit); !strings.HasPrefix(b.rev, c) {
		at += " (" + c + ")"
	}
	switch {
	case d.truncated && d.offset == 0:
		f.Reason = fmt.Sprintf("append-only log was emptied: it had %d bytes at %s", size, at)
	case d.truncated && d.offset == d.lineStart:
		f.Reason = fmt.Sprintf("line %d and every line after it were removed since %s: the file has %d bytes, it had %d", d.line, at, d.offset, size)
	case d.truncated:
		f.Reason = fmt.Sprintf("line %d was cut short at column %d since %s: the file has %d bytes, it had %d", d.line, d.column, at, d.offset, size)
	case d.unterminated:
		f.Reason = fmt.Sprintf("line %d was changed: it had no line ending at %s and was continued at column %d (end a last line with a newline before appending)", d.line, at, d.column)
	case d.baseByte == '\r' && d.curByte == '\n':
		f.Reason = fmt.Sprintf("line %d was changed: its line ending was CRLF at %s and is LF now", d.line, at)
	case d.baseByte == '\n' && d.curByte == '\r':
		f.Reason = fmt.Sprintf("line %d was changed: its line ending was LF at %s and is CRLF now", d.line, at)
	default:
		f.Reason = fmt.Sprintf("line %d was edited or removed since %s (first difference at column %d); existing lines of an append-only log must not change", d.line, at, d.column)
	}
	return f
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
