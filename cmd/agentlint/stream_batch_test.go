package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// streamMix is a stream of operator/assignment lines of every sort: allowed,
// blank, white space, invalid JSON, a missing member, an unknown member,
// CRLF, a wrong type.
func streamMix(t *testing.T, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(demoDir, "packets", "t12-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pk map[string]any
	if err := json.Unmarshal(raw, &pk); err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(pk)
	with := func(k string, v any) string {
		m := map[string]any{}
		for kk, vv := range pk {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	var keys []string
	for k := range pk {
		keys = append(keys, k)
	}
	var b bytes.Buffer
	for i := range n {
		switch i % 9 {
		case 0, 1, 2:
			b.Write(good)
		case 3:
		case 4:
			b.WriteString("  \t")
		case 5:
			b.WriteString(`{"packet_type":`)
		case 6:
			b.WriteString(with(keys[i%len(keys)], nil))
		case 7:
			b.WriteString(with("unknown_member", "x") + "\r")
		case 8:
			b.WriteString(with(keys[(i/9)%len(keys)], 12345))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestValidateStreamParallelSameOutput: a stream of documents decided on
// several goroutines prints exactly what one Session prints, line numbers,
// counts and exit status included, in every format and mode.
func TestValidateStreamParallelSameOutput(t *testing.T) {
	in := streamMix(t, 2000)
	saved := streamWorkers
	t.Cleanup(func() { streamWorkers = saved })
	for _, args := range [][]string{
		{"--kind", "operator/assignment"},
		{"--kind", "operator/assignment", "--strict"},
		{"--format", "text", "--kind", "operator/assignment"},
		{"--format", "sarif", "--kind", "operator/assignment"},
		{}, // the kind sniffed from the first line
	} {
		var outs [2]string
		var codes [2]int
		for i, workers := range []int{1, 3} {
			streamWorkers = func() int { return workers }
			var out, errb bytes.Buffer
			codes[i] = runApp(t, bytes.NewReader(in), &out, &errb, append([]string{"validate", "--stream", "--now", "2026-01-01T00:00:00Z"}, args...)...)
			outs[i] = out.String() + errb.String()
		}
		if outs[0] != outs[1] || codes[0] != codes[1] {
			t.Errorf("%v: 1 worker (exit %d) and 3 (exit %d) differ:\n%s", args, codes[0], codes[1], firstDiff(outs[0], outs[1]))
		}
		if codes[0] != 1 || len(args) == 2 && !strings.Contains(outs[0], `"lines":2000`) {
			t.Errorf("%v: exit %d, want 1 (and a summary of 2000 lines)", args, codes[0])
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// TestValidateStreamDocumentsCoprocess: a co-process of documents answers
// each line as soon as it is written, before standard input closes (one
// line at a time: lockstep), and a burst of lines written at once comes
// back in order, one envelope per line.
func TestValidateStreamDocumentsCoprocess(t *testing.T) {
	mix := strings.Split(strings.TrimSuffix(string(streamMix(t, 18)), "\n"), "\n")
	cmd, stdin, lines := startCoprocess(t, "validate", "--stream", "--kind", "operator/assignment")
	type env struct {
		Allow   bool
		Details map[string]any
	}
	read := func(n int) env {
		got := nextLine(t, lines, fmt.Sprintf("line %d", n))
		var e env
		if err := json.Unmarshal([]byte(got), &e); err != nil {
			t.Fatalf("line %d: %s", n, got)
		}
		if l, _ := e.Details["line"].(float64); int(l) != n {
			t.Errorf("line %d: the envelope of another line: %s", n, got)
		}
		return e
	}
	n := 0
	var allow []bool
	for _, l := range mix { // write a line, read its envelope
		n++
		if _, err := io.WriteString(stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
		allow = append(allow, read(n).Allow)
	}
	var burst strings.Builder
	for range 20 { // many lines at once: decided together, in order
		for _, l := range mix {
			burst.WriteString(l + "\n")
		}
	}
	if _, err := io.WriteString(stdin, burst.String()); err != nil {
		t.Fatal(err)
	}
	for i := range 20 * len(mix) {
		n++
		if e := read(n); e.Allow != allow[i%len(mix)] {
			t.Errorf("line %d: allow %v, but %v when it came alone", n, e.Allow, allow[i%len(mix)])
		}
	}
	stdin.Close()
	sum := nextLine(t, lines, "summary")
	if !strings.Contains(sum, fmt.Sprintf(`"lines":%d`, n)) {
		t.Errorf("summary: %s", sum)
	}
	_ = cmd.Wait()
}
