package rules

import (
	"reflect"
	"strings"
	"testing"
)

// famCase is one table test of the document rules of one family: a record
// of kind in file (default "test.json"), with --strict, and the findings
// expected of the rules whose ID starts with the family's prefix, each
// "ID pointer", in Run order.
type famCase struct {
	name   string
	kind   string
	file   string
	js     string
	strict bool
	want   []string
}

// famRunCases runs every document rule on each case and compares the
// findings of the rules with ID prefix.
func famRunCases(t *testing.T, prefix string, cases []famCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.file
			if file == "" {
				file = "test.json"
			}
			d := &Doc{Kind: c.kind, File: file, Raw: []byte(c.js), Value: opDecode(t, c.js),
				Options: &Options{Now: opNow, Strict: c.strict}}
			var got []string
			for _, f := range Run(d, nil) {
				if strings.HasPrefix(f.Rule, prefix) {
					got = append(got, f.Rule+" "+f.Pointer)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("findings = %q, want %q", got, c.want)
			}
		})
	}
}

// TestFamilyRuleMetadata checks the registry entries of the ledger,
// collector and idle rules: kebab-case names, one-line summaries, a source,
// and examples for every rule (a rule that compares files has golden trees
// instead, Rule.ExampleTree).
func TestFamilyRuleMetadata(t *testing.T) {
	n := 0
	for _, r := range All() {
		if !strings.HasPrefix(r.ID, "LG") && !strings.HasPrefix(r.ID, "CL") && !strings.HasPrefix(r.ID, "IL") {
			continue
		}
		n++
		if !opKebab.MatchString(r.Name) {
			t.Errorf("%s: name %q is not kebab-case", r.ID, r.Name)
		}
		if r.Summary == "" || strings.Contains(r.Summary, "\n") || r.Source == "" {
			t.Errorf("%s: needs a one-line summary and a source", r.ID)
		}
		if r.ExampleTree == "" && (r.ExampleKind == "" || r.Example == "" || r.Fixed == "") {
			t.Errorf("%s: needs ExampleKind, Example and Fixed", r.ID)
		}
	}
	if n == 0 {
		t.Fatal("no family rules registered")
	}
}
