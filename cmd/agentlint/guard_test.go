package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefuseInputSpellings: every writer's guard refuses an output that is
// an input, whatever the spelling, or that is not a regular file, and
// accepts a different file.
func TestRefuseInputSpellings(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("led.jsonl", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("led.jsonl", "sym.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("led.jsonl", "hard.jsonl"); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{
		"led.jsonl", "./led.jsonl", "sub/../led.jsonl", filepath.Join(dir, "led.jsonl"),
		"sym.jsonl", "hard.jsonl", "./sub/./../sym.jsonl",
	} {
		if err := refuseInput("--out "+out, out, []string{"led.jsonl"}); err == nil {
			t.Errorf("output %s: not refused", out)
		}
	}
	// Not a regular file: a rename would replace it.
	for _, out := range []string{"sub", "/dev/null"} {
		if err := refuseInput("--out "+out, out, nil); err == nil {
			t.Errorf("output %s: not refused", out)
		}
	}
	for _, out := range []string{"other.jsonl", "sub/new.jsonl"} {
		if err := refuseInput("--out "+out, out, []string{"-", "led.jsonl", ""}); err != nil {
			t.Errorf("output %s: refused: %v", out, err)
		}
	}
}
