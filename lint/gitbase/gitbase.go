// Package gitbase checks that append-only JSON Lines logs really were only
// appended to since a git revision: `agentlint lint --base REV`
// (CONTRACT.md section 6), rule AL020 append-only, code NON_COMPLIANT
// (CONTRACT.md section 3; issue 4, "Across files of one tree", Append-only).
// Every log that existed at REV must still start with exactly the bytes it
// had there.
//
// Open resolves the repository and REV once; Check compares one file on disk
// with its version at REV. A long-lived `git cat-file --batch-check` process
// gives the blob's id and size; when the file can seek, Check first hashes
// its first size bytes as git does, so a compliant file (the common case)
// never needs the blob's content. Otherwise, or when the hash differs, a
// long-lived `git cat-file --batch` process streams the blob against the
// file, two 64 KiB buffers at a time, to find the first differing line.
// Memory does not depend on file size, and a run of any number of files
// starts at most two git processes per concurrent Check (two for a
// sequential run, one when no file differs).
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
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
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
// the message to print (a usage error: exit status 2, CONTRACT.md section 2).
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

	sem     chan struct{} // one token per Check holding a git process
	mu      sync.Mutex
	idle    []*worker
	started int // git cat-file processes started so far
	closed  bool
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

// Commit returns the full hash of the commit REV resolved to.
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
// starts with exactly the bytes it had at REV; a last line that had no
// newline at REV may only be finished with LF or CRLF, not continued.
// Otherwise it returns the Finding. It reads at most the size at REV plus 2
// bytes of current, twice when current is an io.ReadSeeker (an *os.File)
// and differs: it is then read from its position at the call, hashed, and
// read again from there. Errors: the path cannot be resolved, current cannot
// be read, git failed.
func (b *Base) Check(path string, current io.Reader) (*Finding, error) {
	rel, ok, err := b.Rel(path)
	if err != nil || !ok {
		return nil, err
	}
	if strings.ContainsAny(rel, "\n\r") {
		// `cat-file --batch` reads object names by line.
		return b.checkOneShot(path, rel, current)
	}
	w, err := b.acquire()
	if err != nil {
		return nil, err
	}
	f, err := b.checkWith(w, path, rel, current)
	var cur errCurrent
	b.release(w, err != nil && !errors.As(err, &cur))
	if err != nil && errors.As(err, &cur) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return f, err
}

// checkWith asks for the blob's id and size at REV; when current can seek,
// it first hashes the current file's first size bytes as git would (the
// common, compliant case then never reads the blob); otherwise, or when the
// hash differs, it streams the blob and compares byte by byte to find the
// first differing line.
func (b *Base) checkWith(w *worker, path, rel string, current io.Reader) (*Finding, error) {
	oid, typ, size, err := w.info.object(b.commit + ":" + rel)
	if err != nil || typ != "blob" {
		return nil, err // missing, or not a file at REV
	}
	if rs, ok := current.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			same, err := sameBlob(rs, oid, size, w.bufB)
			if err != nil || same {
				return nil, err
			}
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return nil, errCurrent{err}
			}
		}
	}
	if w.blobs == nil {
		if w.blobs, err = b.startCatFile("--batch"); err != nil {
			return nil, err
		}
	}
	_, typ, bsize, err := w.blobs.object(oid)
	if err != nil {
		return nil, err
	}
	if typ != "blob" || bsize != size {
		return nil, w.blobs.fail(fmt.Errorf("%w: object %s is %s of %d bytes, want a blob of %d", errProtocol, oid, typ, bsize, size))
	}
	d, consumed, err := compare(w.blobs.out, size, current, w.bufA, w.bufB)
	var cur errCurrent
	if err != nil && !errors.As(err, &cur) {
		return nil, w.blobs.fail(err)
	}
	if derr := w.blobs.skip(size - consumed); derr != nil {
		return nil, derr
	}
	if err != nil {
		return nil, err
	}
	return b.finding(path, rel, size, d), nil
}

// sameBlob reports whether the first size bytes of r hash to the blob id
// oid (git's object id: SHA-1, or SHA-256 in a sha256 repository, of
// "blob <size>\0" and the bytes) and what follows them is nothing, or a
// newline when they do not end with one: exactly the compliant case of
// compare. As in git itself, equal ids mean equal content. false means
// "compare byte by byte"; r is then read partway.
func sameBlob(r io.Reader, oid string, size int64, buf []byte) (bool, error) {
	var h hash.Hash
	switch len(oid) {
	case 2 * sha1.Size:
		h = sha1.New()
	case 2 * sha256.Size:
		h = sha256.New()
	default:
		return false, nil
	}
	fmt.Fprintf(h, "blob %d\x00", size)
	var last byte
	for off := int64(0); off < size; {
		n := int64(len(buf))
		if size-off < n {
			n = size - off
		}
		m, err := io.ReadFull(r, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil // shorter than at REV
		}
		if err != nil {
			return false, errCurrent{err}
		}
		h.Write(buf[:m])
		last = buf[n-1]
		off += n
	}
	if hex.EncodeToString(h.Sum(buf[:0])) != oid {
		return false, nil
	}
	if size == 0 || last == '\n' {
		return true, nil
	}
	var next [2]byte
	m, err := io.ReadFull(r, next[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, errCurrent{err}
	}
	return m == 0 || next[0] == '\n' || m == 2 && next[0] == '\r' && next[1] == '\n', nil
}

// checkOneShot checks a path that cannot be named on a line of
// `cat-file --batch` with two short-lived git processes.
func (b *Base) checkOneShot(path, rel string, current io.Reader) (*Finding, error) {
	out, err := b.output(b.top, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", b.commit, "--", rel)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %s", rel, gitMessage(err))
	}
	// "<mode> SP <type> SP <object> TAB <path> NUL"
	meta, _, _ := strings.Cut(out, "\t")
	f := strings.Fields(meta)
	if len(f) != 3 || f[1] != "blob" {
		return nil, nil
	}
	cmd := exec.Command(b.git, "cat-file", "blob", f[2])
	cmd.Dir, cmd.Env = b.top, b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	blob, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	size, err := b.size(f[2])
	if err != nil {
		return nil, err
	}
	d, _, err := compare(blob, size, current, make([]byte, chunkSize), make([]byte, chunkSize))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b.finding(path, rel, size, d), nil
}

func (b *Base) size(object string) (int64, error) {
	out, err := b.output(b.top, "cat-file", "-s", object)
	if err != nil {
		return 0, fmt.Errorf("git cat-file -s %s: %s", object, gitMessage(err))
	}
	return strconv.ParseInt(strings.TrimSpace(out), 10, 64)
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

var errClosed = errors.New("gitbase: Check after Close")

// worker is what one Check holds: a `git cat-file --batch-check` process
// for ids and sizes, a `git cat-file --batch` process for contents (started
// when a file first differs) and two comparison buffers.
type worker struct {
	info  *catFile
	blobs *catFile
	bufA  []byte
	bufB  []byte
}

func (w *worker) close() error {
	err := w.info.close()
	if w.blobs != nil {
		if e := w.blobs.close(); err == nil {
			err = e
		}
	}
	return err
}

func (w *worker) kill() {
	w.info.kill()
	if w.blobs != nil {
		w.blobs.kill()
	}
}

// acquire returns an idle worker, starting one when none is idle; at most
// GOMAXPROCS work at once.
func (b *Base) acquire() (*worker, error) {
	b.sem <- struct{}{}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.sem
		return nil, errClosed
	}
	if n := len(b.idle); n > 0 {
		p := b.idle[n-1]
		b.idle = b.idle[:n-1]
		b.mu.Unlock()
		return p, nil
	}
	b.mu.Unlock()
	info, err := b.startCatFile("--batch-check")
	if err != nil {
		<-b.sem
		return nil, err
	}
	return &worker{info: info, bufA: make([]byte, chunkSize), bufB: make([]byte, chunkSize)}, nil
}

// release returns p to the idle list, or ends it when it is broken (its
// output is out of step) or the Base is closed.
func (b *Base) release(p *worker, broken bool) {
	b.mu.Lock()
	keep := !broken && !b.closed
	if keep {
		b.idle = append(b.idle, p)
	}
	b.mu.Unlock()
	if !keep {
		p.kill()
	}
	<-b.sem
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

// output runs git in dir and returns its standard output; an error carries
// git's standard error (see gitMessage).
func (b *Base) output(dir string, args ...string) (string, error) {
	cmd := exec.Command(b.git, args...)
	cmd.Dir, cmd.Env = dir, b.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &gitError{err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

type gitError struct {
	err    error
	stderr string
}

func (e *gitError) Error() string { return gitMessage(e) }
func (e *gitError) Unwrap() error { return e.err }

// gitMessage returns the first line of git's standard error without its
// "fatal: " prefix, or err's text.
func gitMessage(err error) string {
	if err == nil {
		return ""
	}
	var ge *gitError
	if errors.As(err, &ge) {
		for _, l := range strings.Split(ge.stderr, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				l = strings.TrimPrefix(l, "fatal: ")
				return strings.TrimPrefix(l, "error: ")
			}
		}
		return ge.err.Error()
	}
	return err.Error()
}

// gitEnv is the environment of every git process: the caller's, with no
// credential prompt, and with relative GIT_DIR-style paths made absolute so
// that running git in another directory (the work tree's top) means the
// same repository, as in a hook, where git sets GIT_DIR and GIT_INDEX_FILE.
func gitEnv() []string {
	env := os.Environ()
	wd, _ := os.Getwd()
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE":
			if v != "" && !filepath.IsAbs(v) && wd != "" {
				env[i] = k + "=" + filepath.Join(wd, v)
			}
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

// catFile is one `git cat-file --batch` or `--batch-check` process: object
// names go in, one per line; "<object> SP <type> SP <size> LF" (with
// --batch followed by <content> LF) or "<name> SP missing LF" come out.
type catFile struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tail
}

// startCatFile starts `git cat-file mode` (--batch or --batch-check).
func (b *Base) startCatFile(mode string) (*catFile, error) {
	b.mu.Lock()
	b.started++
	b.mu.Unlock()
	cmd := exec.Command(b.git, "cat-file", mode)
	cmd.Dir, cmd.Env = b.top, b.env
	p := &catFile{cmd: cmd, stderr: &tail{}}
	cmd.Stderr = p.stderr
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(out, chunkSize)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	return p, nil
}

// object asks for name and reads the header: its object id, type and size;
// typ is "" when the object is missing. With --batch, size bytes of content
// and a LF follow.
func (p *catFile) object(name string) (oid, typ string, size int64, err error) {
	if _, err := io.WriteString(p.in, name+"\n"); err != nil {
		return "", "", 0, p.fail(err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return "", "", 0, p.fail(err)
	}
	line = strings.TrimSuffix(line, "\n")
	if line == name+" missing" {
		return "", "", 0, nil
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return "", "", 0, p.fail(fmt.Errorf("%w: %q", errProtocol, line))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", "", 0, p.fail(fmt.Errorf("%w: %q", errProtocol, line))
	}
	if f[1] != "blob" && p.cmd.Args[len(p.cmd.Args)-1] == "--batch" {
		return f[0], f[1], size, p.skip(size)
	}
	return f[0], f[1], size, nil
}

// skip discards n bytes of content and the LF that ends it.
func (p *catFile) skip(n int64) error {
	if err := discard(p.out, n); err != nil {
		return p.fail(err)
	}
	c, err := p.out.ReadByte()
	if err != nil {
		return p.fail(err)
	}
	if c != '\n' {
		return p.fail(errProtocol)
	}
	return nil
}

// fail wraps an error of the process with what git said on standard error.
func (p *catFile) fail(err error) error {
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		return fmt.Errorf("git cat-file: %w (%s)", err, s)
	}
	return fmt.Errorf("git cat-file: %w", err)
}

func (p *catFile) close() error {
	_ = p.in.Close()
	return p.cmd.Wait()
}

func (p *catFile) kill() {
	_ = p.in.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// tail keeps the last 2 KiB written to it (a git process's standard error).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-2048:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
