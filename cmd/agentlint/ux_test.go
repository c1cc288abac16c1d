package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal opens a pseudo-terminal and collects what is written to its
// terminal side; the returned function closes it and returns the bytes.
func terminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&got, ptmx) // ends with EIO once tty is closed
		close(done)
	}()
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return tty, func() string {
		tty.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the pseudo-terminal did not drain")
		}
		return got.String()
	}
}

// runApp runs the command line in-process with the given streams and no
// progress delay, failing the test when it does not end in time.
func runApp(t *testing.T, stdin io.Reader, stdout, stderr io.Writer, args ...string) int {
	t.Helper()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, progressDelay: 0}
	code := make(chan int, 1)
	go func() { code <- a.run(args) }()
	select {
	case c := <-code:
		return c
	case <-time.After(60 * time.Second):
		t.Fatalf("agentlint %s did not end", strings.Join(args, " "))
		return -1
	}
}

var demoDir = filepath.Join("..", "..", "testdata", "demo")

// progressLine is what the progress display draws (files done of the
// total once the sizing walk is done, records, records per second).
var progressLine = regexp.MustCompile(`files \d+(/\d+)?, \d+ records, \d+ records/s`)

// TestProgressOnTerminal: with stderr a terminal, a lint draws its progress
// there and clears it when done (the last bytes are the ANSI "erase line"),
// and stdout gets nothing but the JSON Lines envelopes.
func TestProgressOnTerminal(t *testing.T) {
	tty, read := terminal(t)
	var stdout bytes.Buffer
	code := runApp(t, strings.NewReader(""), &stdout, tty, "lint", "--format", "json", demoDir)
	got := read()
	if code != exitDeny {
		t.Errorf("exit status %d, want %d (the demo has denied records)", code, exitDeny)
	}
	if !progressLine.MatchString(got) {
		t.Fatalf("no progress line on the terminal; got %q", got)
	}
	if !strings.HasSuffix(got, "\x1b[2K\r") {
		t.Errorf("the progress line is not cleared at the end; terminal ends with %q", got[max(0, len(got)-80):])
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("stdout has %d lines, want the envelopes and a summary", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("stdout line is not JSON: %q", l)
		}
	}
}

// TestNoProgress: no progress when stderr is a pipe, nor with --quiet at a
// terminal.
func TestNoProgress(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	runApp(t, strings.NewReader(""), &stdout, w, "lint", "--format", "json", demoDir)
	w.Close()
	piped, _ := io.ReadAll(r)
	if len(piped) != 0 {
		t.Errorf("stderr (a pipe) got %q, want nothing", piped)
	}

	tty, read := terminal(t)
	stdout.Reset()
	runApp(t, strings.NewReader(""), &stdout, tty, "lint", "--format", "json", "--quiet", demoDir)
	if got := read(); got != "" {
		t.Errorf("with --quiet the terminal got %q, want nothing", got)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 1 {
		t.Errorf("with --quiet stdout has %d lines, want the summary only", n)
	}
}

// TestFormatAutoAtTerminal: without --format, output to a terminal is text
// (`file:line:col: CODE RULE: reason`), to anything else JSON Lines.
func TestFormatAutoAtTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	file := filepath.Join(demoDir, "packets", "t13-assignment.json")
	tty, read := terminal(t)
	var stderr bytes.Buffer
	if code := runApp(t, strings.NewReader(""), tty, &stderr, "validate", file); code != exitDeny {
		t.Errorf("exit status %d, want %d", code, exitDeny)
	}
	got := read()
	if !strings.Contains(got, "t13-assignment.json:16:35: SCHEMA_INVALID OP014: ") || strings.Contains(got, `"allow"`) {
		t.Errorf("at a terminal, want text output; got %q", got)
	}

	var stdout bytes.Buffer
	runApp(t, strings.NewReader(""), &stdout, &stderr, "validate", file)
	if !strings.HasPrefix(stdout.String(), `{"allow":false,"code":"SCHEMA_INVALID"`) {
		t.Errorf("not at a terminal, want JSON; got %q", stdout.String())
	}
}

// TestValidateTerminalStdin: `validate` without a file, standard input a
// terminal, prints its usage and exits 2 instead of waiting for input.
func TestValidateTerminalStdin(t *testing.T) {
	tty, read := terminal(t)
	var stdout, stderr bytes.Buffer
	code := runApp(t, tty, &stdout, &stderr, "validate")
	read()
	if code != exitUsage {
		t.Errorf("exit status %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "Usage:\n  agentlint validate [FILE...|-] [flags]") {
		t.Errorf("stderr has no usage: %q", stderr.String())
	}
	want := `{"allow":false,"code":"MISSING_REQUIRED_INPUT","reason":"validate needs a FILE, or a payload piped into standard input (standard input is a terminal)"}` + "\n"
	if stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
}
