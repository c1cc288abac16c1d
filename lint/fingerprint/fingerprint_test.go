package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestLines: a line's hash is the SHA-256 of its bytes without "\n" or
// "\r\n", whatever its length (longer than the reader's buffer too); asking
// for an earlier line reopens the file; a line past the end has none.
func TestLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte("a\r\n"+long+"\nc\r\nlast"), 0o644); err != nil {
		t.Fatal(err)
	}
	var l Lines
	defer l.Close()
	for _, c := range []struct {
		line int
		want string
	}{{1, sum("a")}, {2, sum(long)}, {4, sum("last")}, {3, sum("c")}, {1, sum("a")}, {5, ""}, {0, ""}} {
		if got := l.Hash(path, c.line); got != c.want {
			t.Errorf("line %d: %s, want %s", c.line, got, c.want)
		}
	}
	if got := File(path); got != sum("a\r\n"+long+"\nc\r\nlast") {
		t.Errorf("File: %s", got)
	}
}

// TestKey: fingerprints that differ in any field have different keys; the
// same fingerprint always the same key.
func TestKey(t *testing.T) {
	f := Fingerprint{Rule: "LG012", Path: "g/ledger/cls/a.jsonl", Pointer: "/agent", Record: sum("x")}
	same := Fingerprint{Rule: "LG012", Path: "g/ledger/cls/a.jsonl", Pointer: "/agent", Record: sum("x")}
	if f.Key() != same.Key() {
		t.Fatal("equal fingerprints have different keys")
	}
	for _, g := range []Fingerprint{
		{Rule: "LG010", Path: f.Path, Pointer: f.Pointer, Record: f.Record},
		{Rule: f.Rule, Path: "g/ledger/cls/b.jsonl", Pointer: f.Pointer, Record: f.Record},
		{Rule: f.Rule, Path: f.Path, Pointer: "/ts", Record: f.Record},
		{Rule: f.Rule, Path: f.Path, Pointer: f.Pointer, Record: sum("y")},
		{Rule: f.Rule + f.Path, Pointer: f.Pointer, Record: f.Record}, // fields are separated
	} {
		if g.Key() == f.Key() {
			t.Errorf("%+v has the key of %+v", g, f)
		}
	}
}
