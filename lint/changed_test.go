package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
)

// TestFileChangedDuringRun: a file replaced, written to or deleted while it
// is linted (here: when its first finding is printed) is reported as one
// envelope, MISSING_REQUIRED_INPUT, saying it changed during the run, and
// counted as unreadable (exit 2), rather than leaving findings (and SARIF
// fingerprints read back later) that match another content.
func TestFileChangedDuringRun(t *testing.T) {
	bad := `{"timestamp":"2026-02-14T19:03:40Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T1","actor":"a","action":"read","files_touched":[],"decision":"d","result":"ok","next_step":"n"}` + "\n"
	good := strings.Replace(bad, `"T1"`, `"T-1"`, 1)
	for _, c := range []struct {
		name   string
		change func(path string) error
	}{
		{"replaced", func(p string) error {
			tmp := p + ".new"
			if err := os.WriteFile(tmp, []byte(good+good), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}},
		{"appended", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString(good)
			return err
		}},
		{"deleted", os.Remove},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.jsonl")
			if err := os.WriteFile(path, []byte(bad+good), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []envelope.Envelope
			changed := false
			st, err := lintWithTimeout(t, func(yield func(Input) bool) {
				yield(Input{Path: path, Kind: kind.Lookup("operator/worklog")})
			}, LintConfig{Jobs: 1, Emit: func(e envelope.Envelope) error {
				got = append(got, e)
				if !changed {
					changed = true
					return c.change(path)
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			last := got[len(got)-1]
			if len(got) != 2 || last.Allow || last.Code != envelope.MissingRequiredInput || last.Details["file"] != path ||
				!strings.Contains(last.Reason, "changed during the run") {
				t.Fatalf("envelopes %+v", got)
			}
			if st.UnreadableFiles != 1 {
				t.Errorf("unreadable files %d, want 1", st.UnreadableFiles)
			}
		})
	}
}
