package gitbase

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

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

// streamBlob compares current with the content of blob oid (size bytes),
// streamed from the worker's `git cat-file --batch` process, started on
// first use.
func (b *Base) streamBlob(w *worker, oid string, size int64, current io.Reader) (*diff, error) {
	if w.blobs == nil {
		var err error
		if w.blobs, err = b.startCatFile("--batch"); err != nil {
			return nil, err
		}
	}
	_, typ, bsize, err := w.blobs.object(oid)
	if err != nil {
		return nil, err
	}
	if typ != "blob" || bsize != size {
		return nil, w.blobs.fail(fmt.Errorf("%w: object %s is %q of %d bytes, want a blob of %d", errProtocol, oid, typ, bsize, size))
	}
	d, consumed, err := compare(w.blobs.out, size, current, w.bufA, w.bufB)
	var cur errCurrent
	if err != nil && !errors.As(err, &cur) {
		return nil, w.blobs.fail(err)
	}
	if serr := w.blobs.skip(size - consumed); serr != nil {
		return nil, serr
	}
	return d, err
}

// oneShot compares current with the standard output of
// `git cat-file args...` (one process, read to its end) and returns the
// output's size.
func (b *Base) oneShot(current io.Reader, bufA, bufB []byte, args ...string) (*diff, int64, error) {
	cmd := exec.Command(b.git, append([]string{"cat-file"}, args...)...)
	cmd.Dir, cmd.Env = b.top, b.env
	stderr := &tail{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	b.mu.Lock()
	b.oneShots++
	b.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("starting git cat-file: %w", err)
	}
	d, consumed, err := compare(out, -1, current, bufA, bufB)
	rest, derr := io.Copy(io.Discard, out)
	werr := cmd.Wait()
	var cur errCurrent
	switch {
	case errors.As(err, &cur):
		return nil, 0, err
	case err == nil && derr != nil:
		err = derr
	case err == nil && werr != nil:
		err = werr
	}
	if err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			return nil, 0, fmt.Errorf("git cat-file %s: %w (%s)", strings.Join(args, " "), err, s)
		}
		return nil, 0, fmt.Errorf("git cat-file %s: %w", strings.Join(args, " "), err)
	}
	return d, consumed + rest, nil
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
	// contents: --batch, which follows each header with the content.
	contents bool
}

// startCatFile starts `git cat-file mode` (--batch or --batch-check).
func (b *Base) startCatFile(mode string) (*catFile, error) {
	b.mu.Lock()
	b.started++
	b.mu.Unlock()
	cmd := exec.Command(b.git, "cat-file", mode)
	cmd.Dir, cmd.Env = b.top, b.env
	p := &catFile{cmd: cmd, stderr: &tail{}, contents: mode == "--batch"}
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
	if f[1] != "blob" && p.contents {
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
