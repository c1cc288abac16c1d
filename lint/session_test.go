package lint_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestSessionAgreesWithLint: for every JSON Lines file of the repository's
// test data, a Session fed line by line finds exactly the violations that
// lint.Lint finds in the whole file: those of each record in that record's
// envelope (at once, not later), and those lint reports after the last
// record in the summary of Close.
func TestSessionAgreesWithLint(t *testing.T) {
	root := filepath.Join("..", "testdata")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || strings.Contains(path, "fuzz") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		k := kind.ByGlob(filepath.ToSlash(path))
		if k == nil {
			k = kind.Sniff(data)
		}
		if k == nil || k.Format != kind.FormatJSONL {
			return nil
		}
		n++
		t.Run(filepath.ToSlash(path), func(t *testing.T) { sessionAgrees(t, k, path, data) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d JSON Lines files of a known kind under %s", n, root)
	}
}

func sessionAgrees(t *testing.T, k *kind.Kind, path string, data []byte) {
	opts := record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}
	// lint: per line, the violations of every envelope about that line.
	byLine := map[int][]string{}
	var all []string
	_, err := lint.Lint(func(yield func(lint.Input) bool) {
		yield(lint.Input{Path: path, Reader: bytes.NewReader(data), Kind: k})
	}, lint.LintConfig{Options: opts, Jobs: 1, Emit: func(e envelope.Envelope) error {
		vs, _ := e.Details["violations"].([]envelope.Violation)
		for _, v := range vs {
			all = append(all, violationText(v))
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := lint.NewSession(k.Name, lint.SessionConfig{Options: opts, File: path})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	line := 0
	for _, text := range bytes.SplitAfter(data, []byte("\n")) {
		if len(text) == 0 {
			continue // after a final newline
		}
		line++
		e := s.Record(text)
		if l, _ := e.Details["line"].(int); l != line {
			t.Fatalf("line %d: envelope of line %v", line, e.Details["line"])
		}
		vs, _ := e.Details["violations"].([]envelope.Violation)
		if e.Allow == envelope.HasErrors(vs) {
			t.Errorf("line %d: allow %v with violations %v", line, e.Allow, vs)
		}
		for _, v := range vs {
			if v.Line != line && v.Line != 0 {
				t.Errorf("line %d: a violation of line %d", line, v.Line)
			}
			got = append(got, violationText(v))
			byLine[line] = append(byLine[line], violationText(v))
		}
	}
	sum := s.Close()
	vs, _ := sum.Details["violations"].([]envelope.Violation)
	for _, v := range vs {
		got = append(got, violationText(v))
	}
	slices.Sort(all)
	slices.Sort(got)
	if !slices.Equal(all, got) {
		t.Errorf("lint found\n  %s\nthe session\n  %s", strings.Join(all, "\n  "), strings.Join(got, "\n  "))
	}
	if sum.Details["lines"] != line {
		t.Errorf("summary counts %v lines, want %d", sum.Details["lines"], line)
	}
}

func violationText(v envelope.Violation) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSessionMemory: a session's memory grows with what its rules must
// remember (distinct event ids), not with lines they need not remember.
func TestSessionMemory(t *testing.T) {
	event := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"version":"1.0.0","event_id":"%08x-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"activity.progress",`+
			`"timestamp":"2025-12-13T00:01:00.000Z","agent_id":"@pm-agent"}`+"\n", i))
	}
	s, err := lint.NewSession("collector/event", lint.SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 10; i++ {
		if e := s.Record(event(i)); !e.Allow {
			t.Fatalf("event %d: %v", i, e)
		}
	}
	m0 := s.MemoryBytes()
	for i := 0; i < 5000; i++ {
		s.Record([]byte(`{"version": broken` + "\n"))
	}
	if m := s.MemoryBytes(); m > m0+4096 {
		t.Errorf("5000 lines that are not records took the session from %d to %d bytes", m0, m)
	}
	for i := 10; i < 5010; i++ {
		s.Record(event(i))
	}
	if m := s.MemoryBytes(); m < m0+5000*16 {
		t.Errorf("5000 distinct event ids took the session from %d to only %d bytes", m0, m)
	}
}
