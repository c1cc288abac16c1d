package record

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/kind"
)

// TestCapturedLocateAgrees: where a kind's acceptor recorded a member of a
// JSON Lines record, the validator places findings at that member from the
// recorded span (Validator.locate) instead of reading the record again;
// on every record under testdata/ that an acceptor accepts, the span's
// start is where Locate finds the member, for every member it recorded.
func TestCapturedLocateAgrees(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		det := kind.Detector{}
		k := det.Detect(filepath.ToSlash(p), data)
		if k == nil || fast.Acceptors[k.Name] == nil {
			return nil
		}
		e := NewFastEngine()
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !e.Accept(k.Name, line, false) {
				continue
			}
			for s, ptr := range fast.Acceptors[k.Name].Fields {
				if e.acc.Got&(1<<uint(s)) == 0 {
					continue
				}
				n++
				if got, want := int64(e.acc.Spans[s].Start), Locate(line, ptr); got != want {
					t.Errorf("%s: %s: span starts at %d, Locate says %d: %s", p, ptr, got, want, line)
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d captured members compared", n)
	}
	t.Logf("%d captured members", n)
}
