package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// TestSARIFFileChanged: a JSON Lines file replaced after it was linted,
// before SARIF hashes its records for the fingerprints, gives no hash of
// the other content: the run is reported as not successful, with a
// notification naming the file.
func TestSARIFFileChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	render := func() string {
		var b bytes.Buffer
		p := &SARIF{W: &b, Run: &RunInfo{Command: "lint", Root: dir}}
		p.File(FileInfo{Path: path, Kind: "operator/worklog", Records: 1, Stat: st})
		v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "AL003", Pointer: "/a", Line: 1, Column: 6, Reason: "bad", Severity: envelope.SeverityError}
		if err := p.Record(envelope.Verdict([]envelope.Violation{v}, "", map[string]any{"file": path, "line": 1})); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if out := render(); !strings.Contains(out, `"executionSuccessful": true`) {
		t.Fatalf("unchanged file:\n%s", out)
	}
	if err := os.WriteFile(path+".new", []byte("{\"a\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	out := render()
	if !strings.Contains(out, `"executionSuccessful": false`) || !strings.Contains(out, "w.jsonl: the file changed during the run") {
		t.Errorf("replaced file:\n%s", out)
	}
}
