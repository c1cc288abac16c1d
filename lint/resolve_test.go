package lint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/kind"
)

// TestResolve: arguments resolve in order to directories and inputs with
// their kind; what names nothing readable is an *InputError naming it.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	result := write("r.json", `{"task_id":"T-1","acceptance_check":"go test"}`)
	notes := write("notes.txt", "hello")
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	det := &kind.Detector{}
	got, err := Resolve([]string{dir, result, "-"}, ResolveConfig{Detector: det, Stdin: strings.NewReader(`{"locks":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Dir != dir || got[1].Input.Kind.Name != "operator/result" || got[2].Input.Kind.Name != "operator/locks" || got[2].Input.Reader == nil {
		t.Fatalf("resolved %+v", got)
	}
	if got, err := Resolve([]string{notes}, ResolveConfig{Detector: det, SkipUnknown: true}); err != nil || len(got) != 1 || got[0].Input.Kind != nil {
		t.Fatalf("--skip-unknown: %+v, %v", got, err)
	}
	for _, c := range []struct {
		args []string
		path string
		says string
	}{
		{[]string{notes}, notes, "cannot determine the kind"},
		{[]string{filepath.Join(dir, "missing.json")}, filepath.Join(dir, "missing.json"), "no such file or directory"},
		{[]string{filepath.Join(dir, "dangling.json")}, filepath.Join(dir, "dangling.json"), "dangling symbolic link"},
		{[]string{"-", "-"}, "-", "given twice"},
	} {
		_, err := Resolve(c.args, ResolveConfig{Detector: det, Stdin: strings.NewReader(`{"locks":[]}`)})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Path != c.path || !strings.Contains(ie.Reason, c.says) {
			t.Errorf("%v: got %v, want an InputError on %s saying %q", c.args, err, c.path, c.says)
		}
	}
}
