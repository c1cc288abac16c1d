package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReplayScriptFixtures keeps the copies of testdata/replay/* inside
// testdata/script/replay_*.txtar equal to the real files, so that the
// scripts run exactly the commands the README shows.
func TestReplayScriptFixtures(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "replay_*.txtar"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no replay scripts: %v", err)
	}
	n := 0
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Name, "testdata/replay/") {
				continue
			}
			n++
			real, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(f.Name)))
			if err != nil {
				t.Errorf("%s: %v", s, err)
				continue
			}
			if !bytes.Equal(real, f.Data) {
				t.Errorf("%s: the copy of %s differs from the file; copy it again", s, f.Name)
			}
		}
	}
	if n < 3 {
		t.Fatalf("only %d fixture copies checked", n)
	}
}
