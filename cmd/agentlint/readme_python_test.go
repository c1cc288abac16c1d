package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmePython runs the Python snippet of the README section
// "Orchestrators: validate without a process per packet" exactly as
// written, with the system python3, against this build of agentlint (on
// PATH, see TestMain), and compares what it prints with the README's text
// block after it.
func TestReadmePython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's Python orchestrator (~3 s) runs in `make test`")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: the README's Python snippet is not run")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, want := readmeBlocks(t, string(readme))
	dir := t.TempDir()
	script := filepath.Join(dir, "snippet.py")
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, script)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 snippet.py: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if string(out) != want {
		t.Errorf("the snippet printed\n%s\nthe README says\n%s", out, want)
	}
}

// readmeBlocks returns the python block after the readme-python marker and
// the text block after it.
func readmeBlocks(t *testing.T, readme string) (code, output string) {
	t.Helper()
	block := func(s, fence string) (string, string) {
		i := strings.Index(s, fence)
		if i < 0 {
			t.Fatalf("README: no %q block after the readme-python marker", fence)
		}
		s = s[i+len(fence):]
		j := strings.Index(s, "```")
		if j < 0 {
			t.Fatalf("README: unterminated %q block", fence)
		}
		return s[:j], s[j+3:]
	}
	i := strings.Index(readme, "<!-- readme-python")
	if i < 0 {
		t.Fatal("README: no readme-python marker")
	}
	code, rest := block(readme[i:], "```python\n")
	output, _ = block(rest, "```text\n")
	return code, output
}
