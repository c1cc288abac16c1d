package rules

import "testing"

// TestRegistryWellFormed: every field a document rule (Rule.Fields) or a
// stream rule (StreamRule.Fields) declares is a JSON Pointer of member
// names, the form the engine's shallow decoder and field extraction read.
// Register and RegisterStream leave this check to the test so that no
// process start pays for it.
func TestRegistryWellFormed(t *testing.T) {
	if len(All()) == 0 {
		t.Fatal("the registry is empty")
	}
	for _, r := range All() {
		for _, f := range r.Fields {
			if _, ok := PointerTokens(f); !ok {
				t.Errorf("rule %s: field %q is not a JSON Pointer of member names", r.ID, f)
			}
		}
		if s := Stream(r.ID); s != nil {
			for _, f := range s.Fields() {
				if _, ok := PointerTokens(f.Pointer); !ok {
					t.Errorf("rule %s: stream field %q is not a JSON Pointer of member names", r.ID, f.Pointer)
				}
			}
		}
	}
}
