package lint

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentlint/agentlint/lint/internal/gitignore"
)

// Walker lists the files under a directory for `agentlint lint`, in a
// deterministic order: depth first, the entries of each directory sorted by
// name (byte order). It skips:
//
//   - `.git` entries;
//   - what `.gitignore` files ignore: the walked directory's and its
//     subdirectories' (nested files, scoped to their directory, later and
//     deeper patterns winning, `!` re-including), and, when the directory
//     lies inside a git working tree, the `.gitignore` files of its ancestors
//     up to the tree's root and `.git/info/exclude`; the user's global
//     excludes file is not read, so that every machine lints the same files.
//     A directory named explicitly is walked even when an ancestor's
//     `.gitignore` ignores it;
//   - what the config file's `exclude` globs match (files and directories);
//   - files that are neither regular files nor symbolic links to one
//     (sockets, pipes, devices);
//   - symbolic links whose target, all links resolved, lies outside the
//     walked directory (a link to /, to a parent, to a file beside the tree):
//     a walk never leaves the directory it was given. Links that resolve
//     inside it are followed; a path named on the command line is the
//     user's choice and is followed wherever it points;
//   - directories seen before, by device and inode: a symbolic link to a
//     directory is followed once, so that link loops end.
//
// A symbolic link whose target does not exist (or that loops on itself) is
// an Input with Err set, as is a directory that cannot be read: the run
// reports it as an envelope in its place and goes on.
type Walker struct {
	// Config supplies the exclude globs; nil for none.
	Config *Config
	// ReportSkipped makes the walk also yield what it leaves out (but .git),
	// as inputs with Skipped set to the reason: ignored by .gitignore,
	// excluded by the config, not a regular file (`agentlint lint
	// --verbose`).
	ReportSkipped bool
}

// Reasons the walker leaves a path out (Input.Skipped).
const (
	ReasonIgnored  = "ignored by a .gitignore file"
	ReasonExcluded = "excluded by the config's exclude globs"
	ReasonSpecial  = "not a regular file"
	ReasonOutside  = "symbolic link to a path outside the walked directory"
)

// Walk yields every file to lint under the directory root, in order, until
// yield returns false; it returns false then.
func (w *Walker) Walk(root string, yield func(Input) bool) bool {
	fi, err := os.Stat(root)
	if err != nil {
		return yield(Input{Path: root, Err: err, Root: root})
	}
	rel, patterns := ancestorPatterns(root)
	ws := &walkState{w: w, root: root, yield: yield, seen: map[fileID]bool{}, real: realPath(root)}
	if id, ok := idOf(root, fi); ok {
		ws.seen[id] = true
	}
	return ws.dir(root, rel, patterns)
}

type walkState struct {
	w     *Walker
	root  string // the directory walked (Input.Root)
	yield func(Input) bool
	seen  map[fileID]bool
	real  string // root, absolute, every symbolic link resolved ("" unknown)
}

// realPath is p absolute with every symbolic link resolved; "" when it
// cannot be resolved.
func realPath(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if r, err = filepath.Abs(r); err != nil {
		return ""
	}
	return r
}

// inside reports whether the symbolic link p resolves to the walked
// directory or a path under it.
func (s *walkState) inside(p string) bool {
	r := realPath(p)
	if r == "" || s.real == "" {
		return false
	}
	rel, err := filepath.Rel(s.real, r)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// dir walks one directory whose path components relative to the ignore base
// are rel, with the patterns of its ancestors.
func (s *walkState) dir(path string, rel []string, patterns []gitignore.Pattern) bool {
	if ig := filepath.Join(path, ".gitignore"); s.ignoreFileInside(ig) {
		patterns = append(patterns[:len(patterns):len(patterns)], readIgnoreFile(ig, rel)...)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return s.yield(Input{Path: path, Err: err, Root: s.root})
	}
	m := gitignore.NewMatcher(patterns)
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		p := filepath.Join(path, name)
		r := append(rel[:len(rel):len(rel)], name)
		typ := e.Type()
		var fi fs.FileInfo
		if typ&fs.ModeSymlink != 0 {
			fi, err = os.Stat(p)
			if err != nil {
				if !s.yield(Input{Path: p, Err: symlinkError(p, err), Root: s.root}) {
					return false
				}
				continue
			}
			typ = fi.Mode().Type()
		}
		isDir := typ.IsDir()
		reason := ""
		switch {
		case fi != nil && !s.inside(p):
			reason = ReasonOutside
		case m.Match(r, isDir):
			reason = ReasonIgnored
		case s.w.Config.Excluded(p):
			reason = ReasonExcluded
		case !isDir && !typ.IsRegular():
			reason = ReasonSpecial
		}
		if reason != "" {
			if s.w.ReportSkipped && !s.yield(Input{Path: p, Skipped: reason}) {
				return false
			}
			continue
		}
		if !isDir {
			if !s.yield(Input{Path: p, Root: s.root}) {
				return false
			}
			continue
		}
		if fi == nil {
			if fi, err = os.Stat(p); err != nil {
				if !s.yield(Input{Path: p, Err: err, Root: s.root}) {
					return false
				}
				continue
			}
		}
		if id, ok := idOf(p, fi); ok {
			if s.seen[id] {
				continue
			}
			s.seen[id] = true
		}
		if !s.dir(p, r, patterns) {
			return false
		}
	}
	return true
}

// ignoreFileInside reports whether the .gitignore file p may be read: it
// is not a symbolic link out of the walked directory.
func (s *walkState) ignoreFileInside(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	return fi.Mode()&fs.ModeSymlink == 0 || s.inside(p)
}

// symlinkError explains a symbolic link that cannot be followed.
func symlinkError(p string, err error) error {
	target, lerr := os.Readlink(p)
	if lerr != nil {
		return err
	}
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("symbolic link loop (%s -> %s); remove the link or exclude it", p, target)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dangling symbolic link (%s -> %s: no such file or directory); fix or remove the link, or exclude it", p, target)
	}
	return err
}

// ancestorPatterns finds the base that .gitignore patterns are relative to
// (the root of the git working tree holding dir, or dir itself outside one)
// and returns dir's path components relative to it and the patterns of
// .git/info/exclude and of the ancestors' .gitignore files, from the base
// down to dir's parent. When those patterns ignore dir itself, they are
// dropped: the user named dir.
func ancestorPatterns(dir string) (rel []string, ps []gitignore.Pattern) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil
	}
	var base string
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			base = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, nil
		}
		d = parent
	}
	r, err := filepath.Rel(base, abs)
	if err != nil || r == "." {
		return nil, readIgnoreFile(filepath.Join(base, ".git", "info", "exclude"), nil)
	}
	rel = strings.Split(filepath.ToSlash(r), "/")
	ps = readIgnoreFile(filepath.Join(base, ".git", "info", "exclude"), nil)
	for i := 0; i < len(rel); i++ {
		ps = append(ps, readIgnoreFile(filepath.Join(base, filepath.Join(rel[:i]...), ".gitignore"), rel[:i])...)
	}
	if gitignore.NewMatcher(ps).Match(rel, true) {
		ps = nil
	}
	return rel, ps
}

// readIgnoreFile parses a .gitignore file (gitignore(5)): blank lines and
// lines starting with # are skipped; patterns are scoped to domain (the
// path components of the file's directory). A missing or unreadable file has
// no patterns.
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
