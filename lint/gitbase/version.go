package gitbase

import (
	"archive/tar"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is a file's version at the revision, as `agentlint lint
// --new-from-rev REV` compares findings with it (README, "Adopting agentlint
// in a repository that already has data").
type Version struct {
	// RepoPath is the slash-separated path inside the repository; "" when
	// the file is outside the work tree.
	RepoPath string
	// Exists: the path was a regular file (a blob) at the revision.
	Exists bool
	// OID is the blob's object id and Size its size in bytes (Exists only).
	OID  string
	Size int64
}

// Top returns the real path of the work tree's top level.
func (b *Base) Top() string { return b.top }

// Version returns the version at the revision of the file at path
// (relative to the working directory or absolute; symbolic links resolved).
// Errors: the path cannot be resolved, git failed.
func (b *Base) Version(path string) (Version, error) {
	rel, ok, err := b.Rel(path)
	if err != nil || !ok {
		return Version{}, err
	}
	v := Version{RepoPath: rel}
	var typ string
	if strings.ContainsAny(rel, "\n\r") {
		v.OID, typ, v.Size, err = b.lsTree(rel)
	} else {
		var w *worker
		if w, err = b.acquire(); err != nil {
			return v, err
		}
		v.OID, typ, v.Size, err = w.info.object(b.commit + ":" + rel)
		b.release(w, err != nil)
	}
	if err != nil {
		return v, err
	}
	v.Exists = typ == "blob"
	return v, nil
}

// Identical reports whether the file at path holds now exactly the bytes
// of v (git's object id of its content equals v.OID: the file is the same
// size and hashes the same). It reads at most v.Size bytes of the file.
func (b *Base) Identical(path string, v Version) (bool, error) {
	if !v.Exists {
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != v.Size {
		return false, err
	}
	h := blobHash(v.OID, v.Size)
	if h == nil {
		return false, nil
	}
	if _, err := io.CopyN(h, f, v.Size); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == v.OID, nil
}

// WriteBlob writes the bytes of v, as committed, to w (`git cat-file blob`,
// streamed: memory does not depend on the blob's size).
func (b *Base) WriteBlob(v Version, w io.Writer) error {
	if !v.Exists {
		return fmt.Errorf("%s did not exist at %s", v.RepoPath, b.rev)
	}
	cmd := exec.Command(b.git, "cat-file", "blob", v.OID)
	cmd.Dir, cmd.Env = b.top, b.env
	stderr := &tail{}
	cmd.Stdout, cmd.Stderr = w, stderr
	if err := cmd.Run(); err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			return fmt.Errorf("git cat-file blob %s: %w (%s)", v.OID, err, s)
		}
		return fmt.Errorf("git cat-file blob %s: %w", v.OID, err)
	}
	return nil
}

// Extract writes the regular files under each of rels (slash-separated
// paths inside the repository; "" or "." for the whole tree) as they were
// committed at the revision into the directory dst, at their repository
// paths, streamed from `git archive`. Paths absent at the revision are
// skipped; symbolic links and anything that would land outside dst are
// never written. Errors: git failed, dst cannot be written.
func (b *Base) Extract(dst string, rels []string) error {
	var specs []string
	for _, rel := range rels {
		if rel == "" || rel == "." {
			specs = []string{"."}
			break
		}
		if _, err := b.output(b.top, "--literal-pathspecs", "cat-file", "-e", b.commit+":"+rel); err != nil {
			continue // not at the revision
		}
		specs = append(specs, rel)
	}
	if len(specs) == 0 {
		return nil
	}
	cmd := exec.Command(b.git, append([]string{"--literal-pathspecs", "archive", "--format=tar", b.commit, "--"}, specs...)...)
	cmd.Dir, cmd.Env = b.top, b.env
	stderr := &tail{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting git archive: %w", err)
	}
	xerr := untar(out, dst)
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if xerr != nil {
		return xerr
	}
	if werr != nil {
		return fmt.Errorf("git archive: %w (%s)", werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// untar writes the regular files of a tar stream under dst.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			continue
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}
