package gitbase

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestVersion: a file's version at the revision says whether it existed,
// Identical tells an unchanged file from an appended or rewritten one, and
// WriteBlob gives back the committed bytes (what --new-from-rev compares
// findings with).
func TestVersion(t *testing.T) {
	r := newRepo(t)
	r.write("logs/a.jsonl", jsonl(1, 3))
	r.write("docs/p.json", `{"a":1}`+"\n")
	r.commit("history")
	b := r.open("HEAD")

	v, err := b.Version(r.path("logs/a.jsonl"))
	if err != nil || !v.Exists || v.RepoPath != "logs/a.jsonl" || v.Size != int64(len(jsonl(1, 3))) {
		t.Fatalf("Version of a committed file: %+v, %v", v, err)
	}
	if same, err := b.Identical(r.path("logs/a.jsonl"), v); err != nil || !same {
		t.Errorf("an unchanged file is not Identical: %v, %v", same, err)
	}
	r.write("logs/a.jsonl", jsonl(1, 4))
	if same, _ := b.Identical(r.path("logs/a.jsonl"), v); same {
		t.Errorf("an appended file is Identical")
	}
	r.write("logs/a.jsonl", jsonl(2, 3)) // the same size, other bytes
	if same, _ := b.Identical(r.path("logs/a.jsonl"), v); same {
		t.Errorf("a rewritten file of the same size is Identical")
	}
	var buf bytes.Buffer
	if err := b.WriteBlob(v, &buf); err != nil || buf.String() != jsonl(1, 3) {
		t.Errorf("WriteBlob: %q, %v; want the committed bytes", buf.String(), err)
	}

	r.write("logs/new.jsonl", jsonl(1, 1))
	if v, err := b.Version(r.path("logs/new.jsonl")); err != nil || v.Exists || v.RepoPath != "logs/new.jsonl" {
		t.Errorf("Version of a file added since: %+v, %v", v, err)
	}
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(outside, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Version(outside); err != nil || v.Exists || v.RepoPath != "" {
		t.Errorf("Version of a file outside the work tree: %+v, %v", v, err)
	}
}

// TestExtract: the files under the given paths, as committed, land under
// dst at their repository paths; paths absent at the revision are skipped;
// a symbolic link is never written.
func TestExtract(t *testing.T) {
	r := newRepo(t)
	r.write("logs/a.jsonl", jsonl(1, 2))
	r.write("other/b.json", "{}\n")
	if err := os.Symlink("/etc/passwd", r.path("logs/link.jsonl")); err != nil {
		t.Fatal(err)
	}
	r.commit("history")
	r.write("logs/a.jsonl", jsonl(1, 5)) // changed since: the committed bytes are extracted
	b := r.open("HEAD")
	dst := t.TempDir()
	if err := b.Extract(dst, []string{"logs", "gone"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dst, "logs", "a.jsonl"))
	if err != nil || string(got) != jsonl(1, 2) {
		t.Errorf("logs/a.jsonl extracted as %q, %v; want the committed bytes", got, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "logs", "link.jsonl")); err == nil {
		t.Errorf("a symbolic link was extracted")
	}
	if _, err := os.Stat(filepath.Join(dst, "other")); err == nil {
		t.Errorf("a path not asked for was extracted")
	}
}
