package lint

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestQuietCountsAsPrinted: a quiet run (--quiet: findings only counted,
// their positions, reasons and details never computed) gives the summary a
// printed run gives, on every file of a known kind under testdata/.
func TestQuietCountsAsPrinted(t *testing.T) {
	var inputs []Input
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "fuzz") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		det := kind.Detector{}
		if k := det.Detect(filepath.ToSlash(p), data); k != nil {
			inputs = append(inputs, Input{Path: p, Kind: k})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 50 {
		t.Fatalf("only %d files of a known kind", len(inputs))
	}
	run := func(quiet bool) *Stats {
		st, err := Lint(func(yield func(Input) bool) {
			for _, in := range inputs {
				if !yield(in) {
					return
				}
			}
		}, LintConfig{Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}, Jobs: 2, Quiet: quiet, Out: io.Discard,
			Render: func(dst []byte, e envelope.Envelope) []byte { return append(dst, e.Reason...) }})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	printed, quiet := run(false), run(true)
	if printed.Denied == 0 || printed.Warnings == 0 {
		t.Fatalf("the printed run found nothing to compare: %+v", printed)
	}
	if !reflect.DeepEqual(printed, quiet) {
		t.Errorf("quiet run counts differ:\nprinted %+v\nquiet   %+v", printed, quiet)
	}
}
