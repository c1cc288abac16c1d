//go:build unix

package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestDuplicateIDFromPipe: a named pipe given by its path cannot be read
// again at an offset, so CL100 keeps whole keys there and still finds a
// repeat, naming its first line.
func TestDuplicateIDFromPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events-2026-02-14.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	data := lines(collectorRec(1, uuid(1)), collectorRec(2, uuid(2)), collectorRec(3, uuid(1)))
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(data)
		f.Close()
	}()
	var got []string
	_, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(Input{Path: path, Kind: kind.Lookup("collector/event")}) },
		LintConfig{Jobs: 2, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
			Emit: func(e envelope.Envelope) error {
				vs, _ := e.Details["violations"].([]envelope.Violation)
				for _, v := range vs {
					got = append(got, fmt.Sprintf("%d:%s:%v", v.Line, v.Rule, v.Extra["first_line"]))
				}
				return nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[3:CL100:1]" {
		t.Errorf("findings %v, want [3:CL100:1]", got)
	}
}
