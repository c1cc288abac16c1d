package kind

import "testing"

// globs is a configuration that names one file's kind.
type globs map[string]string

func (g globs) KindFor(file string) *Kind { return Lookup(g[file]) }

// TestDetector: the order of cue/README.md "Detection" — --kind, the
// configuration's globs, the built-in globs, then sniffing — and which
// names are sniffed.
func TestDetector(t *testing.T) {
	result := []byte(`{"task_id":"T-1","acceptance_check":"go test"}`)
	worklog := Lookup("operator/worklog")
	cfg := globs{"notes/a.jsonl": "operator/worklog"}
	for _, c := range []struct {
		name string
		d    Detector
		path string
		head []byte
		want string
	}{
		{"forced wins over everything", Detector{Forced: worklog, Config: cfg}, "x/.work/events.jsonl", result, "operator/worklog"},
		{"config glob before built-in", Detector{Config: cfg}, "notes/a.jsonl", result, "operator/worklog"},
		{"built-in glob", Detector{}, "repo/.work/events.jsonl", result, "vermas/event"},
		{"sniffed .json", Detector{}, "packets/r.json", result, "operator/result"},
		{"stdin sniffed", Detector{Config: cfg}, "-", result, "operator/result"},
		{"other names not sniffed", Detector{}, "packets/r.txt", result, ""},
		{"SniffAny sniffs other names", Detector{SniffAny: true}, "packets/r.txt", result, "operator/result"},
		{"nothing to sniff", Detector{SniffAny: true}, "x", []byte(`{"a":1}`), ""},
	} {
		got := ""
		if k := c.d.Detect(c.path, c.head); k != nil {
			got = k.Name
		}
		if got != c.want {
			t.Errorf("%s: Detect(%q) = %q, want %q", c.name, c.path, got, c.want)
		}
	}
}

// TestCatalogue: every kind is found by name, Names is sorted and whole,
// and every JSON Lines kind has identifying keys (rule AL011 needs them).
func TestCatalogue(t *testing.T) {
	names := Names()
	if len(names) != len(All) {
		t.Fatalf("Names has %d kinds, All %d", len(names), len(All))
	}
	for i, n := range names {
		if i > 0 && names[i-1] >= n {
			t.Errorf("Names not sorted at %q", n)
		}
		k := Lookup(n)
		if k == nil || k.Name != n {
			t.Fatalf("Lookup(%q) = %v", n, k)
		}
		if k.Format == FormatJSONL && len(k.IdentifyingKeys()) == 0 {
			t.Errorf("%s: JSON Lines kind without identifying keys", n)
		}
	}
	if Lookup("no/such") != nil {
		t.Error("Lookup of an unknown kind is not nil")
	}
}
