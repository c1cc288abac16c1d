package baseline

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fingerprint"
	"github.com/agentlint/agentlint/lint/gitbase"
	"github.com/agentlint/agentlint/rules"
)

// Rev judges findings against a git revision (--new-from-rev REV).
type Rev struct {
	// Base is the repository at REV.
	Base *gitbase.Base
	// LintVersion lints file, a temporary copy of a file's version at REV
	// (at the same repository path under a temporary root, so that rules
	// reading folder names see the same ones), as one input of kind with the
	// run's options, and passes each envelope to emit. Set by the command,
	// which owns the engine.
	LintVersion func(file, kind string, emit func(envelope.Envelope) error) error
	// Roots are the run's paths inside the repository (slash-separated;
	// "." for the whole tree): what LintTree lints at REV.
	Roots []string
	// LintTree lints root, a temporary directory holding the files of
	// Roots as committed at REV at their repository paths, as the run
	// lints its paths (the same arguments under root), and passes each
	// envelope to emit. Rules across files (rules.TreeRule) are judged
	// against its findings: such a finding is about several files, and is
	// new when the tree at REV did not have it.
	LintTree func(root string, emit func(envelope.Envelope) error) error

	files map[string]*revFile
	tmp   string                 // temporary root of the versions linted; "" until needed
	tree  *Set                   // fingerprints of the findings of rules across files at REV
	kind  func(string) KindFacts // the Filter's
}

// isTreeRule reports whether rule id is checked across files.
func isTreeRule(id string) bool {
	_, ok := rules.Stream(id).(rules.TreeRule)
	return ok
}

// treeNew judges a finding of a rule across files: new unless the tree at
// REV had a finding with the same fingerprint.
func (r *Rev) treeNew(fp fingerprint.Fingerprint) bool {
	if r.tree == nil {
		r.tree = NewSet()
		if err := r.lintTree(); err != nil {
			return true
		}
	}
	return !r.tree.Take(fp.Key())
}

func (r *Rev) lintTree() error {
	if r.LintTree == nil || r.Base == nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "agentlint-tree-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if err := r.Base.Extract(dir, r.Roots); err != nil {
		return err
	}
	var hl fingerprint.Lines
	defer hl.Close()
	docs := map[string]string{}
	return r.LintTree(dir, func(e envelope.Envelope) error {
		vs, _ := e.Details["violations"].([]envelope.Violation)
		file, _ := e.Details["file"].(string)
		line, _ := e.Details["line"].(int)
		if file == "" {
			return nil
		}
		kind, _ := e.Details["kind"].(string)
		record := ""
		for i := range vs {
			if !isTreeRule(vs[i].Rule) {
				continue
			}
			if record == "" {
				if line > 0 && r.kind != nil && r.kind(kind).Lines {
					record = hl.Hash(file, line)
				} else {
					if docs[file] == "" {
						docs[file] = fingerprint.File(file)
					}
					record = docs[file]
				}
			}
			r.tree.Add(fingerprint.Fingerprint{Rule: vs[i].Rule, Path: Rel(dir, file), Pointer: vs[i].Pointer, Record: record}.Key())
		}
		return nil
	})
}

// revClass is how a file's findings are judged.
type revClass uint8

const (
	revAllNew   revClass = iota // not at REV, outside the repository, standard input
	revAllOlder                 // the same bytes as at REV
	revAppended                 // an append-only log that starts with its bytes at REV
	revChanged                  // anything else: fingerprints of the version at REV
)

// revFile is the judgement of one file.
type revFile struct {
	class revClass
	lines int  // revAppended: the lines the file had at REV
	set   *Set // revChanged: the fingerprints of the findings at REV
}

// isNew judges one violation of the record at line (0: a document); fp
// returns its fingerprint.
func (r *revFile) isNew(v *envelope.Violation, line int, fp func(*envelope.Violation) fingerprint.Fingerprint) bool {
	if v.Rule == "AL020" {
		return true
	}
	switch r.class {
	case revAllOlder:
		return false
	case revAppended:
		return line == 0 || line > r.lines
	case revChanged:
		return !r.set.Take(fp(v).Key())
	}
	return true
}

// file returns the judgement of path (cached: the first envelope of a file
// decides it).
func (r *Rev) file(path, kind string, lines bool) *revFile {
	if f, ok := r.files[path]; ok {
		return f
	}
	if r.files == nil {
		r.files = map[string]*revFile{}
	}
	f := r.judge(path, kind, lines)
	r.files[path] = f
	return f
}

func (r *Rev) judge(path, kind string, lines bool) *revFile {
	all := &revFile{class: revAllNew}
	if path == "-" || r.Base == nil {
		return all
	}
	v, err := r.Base.Version(path)
	if err != nil || !v.Exists {
		return all // a file that vanished or cannot be resolved: nothing to compare
	}
	if same, err := r.Base.Identical(path, v); err == nil && same {
		return &revFile{class: revAllOlder}
	}
	if lines && slices.Contains(rules.AppendOnlyKinds, kind) {
		if f, err := os.Open(path); err == nil {
			d, err := r.Base.Check(path, f)
			f.Close()
			if err == nil && d == nil {
				var c lineCounter
				if r.Base.WriteBlob(v, &c) == nil {
					return &revFile{class: revAppended, lines: c.lines()}
				}
			}
		}
	}
	set, err := r.findingsAt(v, kind, lines)
	if err != nil {
		return all
	}
	return &revFile{class: revChanged, set: set}
}

// findingsAt lints the version v of a file and returns the fingerprints of
// its findings.
func (r *Rev) findingsAt(v gitbase.Version, kind string, lines bool) (*Set, error) {
	if r.tmp == "" {
		dir, err := os.MkdirTemp("", "agentlint-rev-")
		if err != nil {
			return nil, err
		}
		r.tmp = dir
	}
	file := filepath.Join(r.tmp, filepath.FromSlash(v.RepoPath))
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	out, err := os.OpenFile(file, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	err = r.Base.WriteBlob(v, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	defer os.Remove(file)
	if err != nil {
		return nil, err
	}
	set := NewSet()
	var hl fingerprint.Lines
	defer hl.Close()
	doc := ""
	err = r.LintVersion(file, kind, func(e envelope.Envelope) error {
		vs, _ := e.Details["violations"].([]envelope.Violation)
		line, _ := e.Details["line"].(int)
		record := ""
		switch {
		case len(vs) == 0:
			return nil
		case lines:
			record = hl.Hash(file, line)
		default:
			if doc == "" {
				doc = fingerprint.File(file)
			}
			record = doc
		}
		for i := range vs {
			set.Add(fingerprint.Fingerprint{Rule: vs[i].Rule, Path: v.RepoPath, Pointer: vs[i].Pointer, Record: record}.Key())
		}
		return nil
	})
	return set, err
}

// Close removes the temporary files.
func (r *Rev) Close() {
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
		r.tmp = ""
	}
}

// lineCounter counts the lines written to it: newlines, and one more for a
// last line without one.
type lineCounter struct {
	n    int
	last byte
	any  bool
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.n += bytes.Count(p, []byte{'\n'})
		c.last, c.any = p[len(p)-1], true
	}
	return len(p), nil
}

func (c *lineCounter) lines() int {
	if c.any && c.last != '\n' {
		return c.n + 1
	}
	return c.n
}

var _ io.Writer = (*lineCounter)(nil)
