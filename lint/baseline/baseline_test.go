package baseline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/fingerprint"
)

// TestWriteRead: a baseline is written sorted, equal fingerprints counted
// once with their number, and read back as a multiset: each Take consumes
// one occurrence.
func TestWriteRead(t *testing.T) {
	a := fingerprint.Fingerprint{Rule: "OP005", Path: "worklogs/T-1.jsonl", Pointer: "/task_id", Record: "aa"}
	b := fingerprint.Fingerprint{Rule: "AL002", Path: "a.jsonl", Pointer: "/data", Record: "bb"}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := Write(path, []fingerprint.Fingerprint{a, b, a}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"tool":"agentlint","findings":[
{"rule":"AL002","path":"a.jsonl","pointer":"/data","record":"bb"},
{"rule":"OP005","path":"worklogs/T-1.jsonl","pointer":"/task_id","record":"aa","count":2}
]}
`
	if string(data) != want {
		t.Errorf("baseline file:\n%s\nwant:\n%s", data, want)
	}
	set, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 3 || !set.Take(a.Key()) || !set.Take(a.Key()) || set.Take(a.Key()) || !set.Take(b.Key()) || set.Len() != 0 {
		t.Errorf("the set read back is not {a, a, b}")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("files beside the baseline (a temporary file left?): %v", ents)
	}
}

// TestReadNotBaseline: a file that is not a baseline of this version is an
// error that says so.
func TestReadNotBaseline(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"packet.json": `{"packet_type":"assignment"}`, "text.json": "not json", "v2.json": `{"version":2,"tool":"agentlint","findings":[]}`} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "not an agentlint baseline") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
