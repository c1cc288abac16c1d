// Package baseline decides which findings of a lint run are new, so that a
// team whose data already holds mistakes can adopt the gate: `agentlint
// lint --new-from-rev REV` (only what the change since a git revision added
// or altered counts) and `--baseline FILE` (findings recorded by
// `--write-baseline` are left out). README, "Adopting agentlint in a
// repository that already has data", is the user's side of it.
//
// The engine still reads every record: old records are context (a new
// event that names an earlier one resolves, a new duplicate of an old id is
// found). The Filter sits between the engine and the printers: it receives
// every envelope, splits its violations into new and older ones, passes the
// new ones on, counts both, and optionally hands the older ones to printers
// that mark them (SARIF's baselineState "unchanged").
//
// Which finding is new, with --new-from-rev REV, by the file it is about:
//   - a file that did not exist at REV, is outside the repository or is
//     standard input: every finding is new;
//   - a file with exactly the bytes it had at REV: every finding is older;
//   - an append-only log (rules.AppendOnlyKinds) that still starts with the
//     bytes it had at REV: a finding on a line it had at REV is older, one
//     on an appended line new (so a cross-record finding, reported on its
//     later record, is new when that record is);
//   - any other changed file (a document, a projection, a log whose lines
//     were edited): a finding is new unless a finding with the same
//     fingerprint (lint/fingerprint: rule, path, JSON Pointer, hash of the
//     record's bytes) was found in the file's version at REV, linted on its
//     own with the run's options (a finding that only rules across files
//     give counts as new there);
//   - AL020 (append-only) is always new: it is about the change itself.
//
// Memory: a fingerprint set of the findings at REV of each changed file
// that is not an append-only extension (16 bytes and a count per finding),
// the baseline's set, and, with --write-baseline, every fingerprint of the
// run (written sorted at the end).
package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fingerprint"
)

// Set is a multiset of fingerprints, by Key: each Take consumes one
// occurrence, so two equal findings now against one then leave one new.
type Set struct {
	m    map[fingerprint.Key]int32
	size int
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{m: map[fingerprint.Key]int32{}} }

// Add adds one occurrence of k.
func (s *Set) Add(k fingerprint.Key) {
	s.m[k]++
	s.size++
}

// Take removes one occurrence of k and reports whether there was one.
func (s *Set) Take(k fingerprint.Key) bool {
	if s == nil || s.m[k] == 0 {
		return false
	}
	s.m[k]--
	s.size--
	return true
}

// Len is the number of occurrences not taken.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return s.size
}

// FileVersion is the version number of the baseline file format.
const FileVersion = 1

// fileJSON is a baseline file: {"version":1,"tool":"agentlint","findings":
// [{"rule","path","pointer","record","count"}...]}, sorted by path, rule,
// pointer and record; count is omitted when 1.
type fileJSON struct {
	Version  int     `json:"version"`
	Tool     string  `json:"tool"`
	Findings []entry `json:"findings"`
}

type entry struct {
	fingerprint.Fingerprint
	Count int `json:"count,omitempty"`
}

// Read reads a baseline file. Errors: the file cannot be read, is not a
// baseline (not JSON, another version).
func Read(path string) (*Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f fileJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s is not an agentlint baseline: %v", path, err)
	}
	if f.Version != FileVersion || f.Tool != "agentlint" {
		return nil, fmt.Errorf("%s is not an agentlint baseline of version %d (write it again with --write-baseline)", path, FileVersion)
	}
	s := NewSet()
	for _, e := range f.Findings {
		n := max(e.Count, 1)
		k := e.Key()
		for range n {
			s.Add(k)
		}
	}
	return s, nil
}

// Write writes fps as a baseline file at path: sorted, equal fingerprints
// counted once, atomically (renameio: a temporary file in the same
// directory, synced, then renamed), so that a reader never sees half a file.
func Write(path string, fps []fingerprint.Fingerprint) error {
	slices.SortFunc(fps, func(a, b fingerprint.Fingerprint) int {
		switch {
		case a == b:
			return 0
		case a.Less(b):
			return -1
		}
		return 1
	})
	f := fileJSON{Version: FileVersion, Tool: "agentlint", Findings: []entry{}}
	for _, fp := range fps {
		if n := len(f.Findings); n > 0 && f.Findings[n-1].Fingerprint == fp {
			f.Findings[n-1].Count = max(f.Findings[n-1].Count, 1) + 1
			continue
		}
		f.Findings = append(f.Findings, entry{Fingerprint: fp})
	}
	var buf bytes.Buffer
	buf.WriteString("{\"version\":1,\"tool\":\"agentlint\",\"findings\":[")
	for i, e := range f.Findings {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n")
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	buf.WriteString("\n]}\n")
	return renameio.WriteFile(path, buf.Bytes(), 0o644, renameio.WithTempDir(filepath.Dir(path)))
}

// KindFacts is what the Filter needs to know of a kind: whether its files
// are JSON Lines (a record is a line) and the reason of an allowing
// verdict.
type KindFacts struct {
	Lines    bool
	OKReason string
}

// Counts are the new findings of a run, as the summary envelope counts
// them (lint.Stats' fields of the same names), and the older ones left
// out.
type Counts struct {
	// Denied: envelopes with at least one new error; Warnings: new warnings.
	Denied, Warnings int
	// ByCode and ByRule count new violations.
	ByCode, ByRule map[string]int
	// Worst is the highest-precedence primary code of a denied envelope.
	Worst envelope.Code
	// Older: violations left out as older (at REV, or in the baseline).
	Older int
}

func (c *Counts) add(vs []envelope.Violation) {
	if c.ByCode == nil {
		c.ByCode, c.ByRule = map[string]int{}, map[string]int{}
	}
	denied := false
	for i := range vs {
		c.ByCode[string(vs[i].Code)]++
		c.ByRule[vs[i].Rule]++
		if vs[i].Severity == envelope.SeverityError {
			if !denied && (c.Worst == "" || envelope.Rank(vs[i].Code) < envelope.Rank(c.Worst)) {
				c.Worst = vs[i].Code
			}
			denied = true
		} else {
			c.Warnings++
		}
	}
	if denied {
		c.Denied++
	}
}

// Filter splits the findings of a run into new and older ones. Set the
// fields, then pass Record as the engine's envelope callback (in input
// order, from one goroutine).
type Filter struct {
	// Rev compares with a git revision (--new-from-rev); nil: no revision.
	Rev *Rev
	// Baseline leaves out the findings it holds (--baseline); nil: none.
	Baseline *Set
	// Root is the directory fingerprint paths are relative to (absolute,
	// symbolic links resolved): the repository's top level.
	Root string
	// Collect keeps every finding's fingerprint for Fingerprints
	// (--write-baseline); every finding is then older (it is recorded).
	Collect bool
	// Kind returns the facts of a kind by name.
	Kind func(name string) KindFacts
	// New receives the envelopes of the new findings (an envelope with no
	// violation, an unreadable input, is passed as it is).
	New func(envelope.Envelope) error
	// Unchanged, when non-nil, receives the envelopes of the older
	// findings (SARIF marks them baselineState "unchanged").
	Unchanged func(envelope.Envelope) error

	// Counts of the run so far.
	Counts Counts

	fps   []fingerprint.Fingerprint
	lines fingerprint.Lines
	docs  map[string]string // document path → hash of its bytes
	rels  map[string]string // path → fingerprint path
}

// Record implements the engine's envelope callback.
func (f *Filter) Record(env envelope.Envelope) error {
	vs, _ := env.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		return f.New(env)
	}
	file, _ := env.Details["file"].(string)
	kind, _ := env.Details["kind"].(string)
	facts := KindFacts{}
	if f.Kind != nil && kind != "" {
		facts = f.Kind(kind)
	}
	line, _ := env.Details["line"].(int)
	if !facts.Lines {
		line = 0 // a document: one record, the whole file
	}
	var judge *revFile
	if f.Rev != nil && file != "" {
		f.Rev.kind = f.Kind
		judge = f.Rev.file(file, kind, facts.Lines)
	}
	var record string
	recordDone := false
	fp := func(v *envelope.Violation) fingerprint.Fingerprint {
		if !recordDone {
			record, recordDone = f.recordHash(file, line), true
		}
		return fingerprint.Fingerprint{Rule: v.Rule, Path: f.rel(file), Pointer: v.Pointer, Record: record}
	}
	var nv, ov []envelope.Violation
	for i := range vs {
		v := &vs[i]
		isNew := true
		switch {
		case judge != nil && v.Rule != "AL020" && isTreeRule(v.Rule):
			isNew = f.Rev.treeNew(fp(v))
		case judge != nil:
			isNew = judge.isNew(v, line, fp)
		}
		if isNew && f.Baseline != nil && f.Baseline.Take(fp(v).Key()) {
			isNew = false
		}
		if f.Collect {
			// --write-baseline: every finding goes into the baseline
			// being written, so none is new.
			f.fps = append(f.fps, fp(v))
			isNew = false
		}
		if isNew {
			nv = append(nv, *v)
		} else {
			ov = append(ov, *v)
		}
	}
	f.Counts.add(nv)
	f.Counts.Older += len(ov)
	if len(nv) > 0 {
		if err := f.New(rebuild(env, nv, line, facts)); err != nil {
			return err
		}
	}
	if len(ov) > 0 && f.Unchanged != nil {
		return f.Unchanged(rebuild(env, ov, line, facts))
	}
	return nil
}

// rebuild is env with only the violations vs (sorted again, primary code
// and reason chosen again).
func rebuild(env envelope.Envelope, vs []envelope.Violation, line int, facts KindFacts) envelope.Envelope {
	d := make(map[string]any, len(env.Details))
	for k, v := range env.Details {
		switch k {
		case "violations", "pointer", "line", "column", "rule":
			continue
		}
		d[k] = v
	}
	if line > 0 {
		d["line"] = line
	}
	return envelope.Verdict(vs, facts.OKReason, d)
}

// recordHash is the hash of the record's bytes: line of a JSON Lines file,
// or the whole document; "" for standard input.
func (f *Filter) recordHash(file string, line int) string {
	if file == "" || file == "-" {
		return ""
	}
	if line > 0 {
		return f.lines.Hash(file, line)
	}
	if h, ok := f.docs[file]; ok {
		return h
	}
	if f.docs == nil {
		f.docs = map[string]string{}
	}
	h := fingerprint.File(file)
	f.docs[file] = h
	return h
}

// rel is the fingerprint path of file: slash-separated, relative to Root
// (symbolic links resolved); the path as given when it lies outside.
func (f *Filter) rel(file string) string {
	if r, ok := f.rels[file]; ok {
		return r
	}
	if f.rels == nil {
		f.rels = map[string]string{}
	}
	r := Rel(f.Root, file)
	f.rels[file] = r
	return r
}

// Rel returns file's path relative to root, slash-separated, symbolic
// links resolved (a file that no longer exists: its absolute path); the
// path as given, slash-separated, when it lies outside root or root is "".
func Rel(root, file string) string {
	if file == "-" || root == "" {
		return filepath.ToSlash(file)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(file)
	}
	return filepath.ToSlash(r)
}

// Fingerprints returns every finding's fingerprint seen so far (Collect).
func (f *Filter) Fingerprints() []fingerprint.Fingerprint { return f.fps }

// Close releases the files the Filter reads and the Rev's temporary files.
func (f *Filter) Close() {
	f.lines.Close()
	if f.Rev != nil {
		f.Rev.Close()
	}
}
