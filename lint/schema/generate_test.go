//go:build cueengine || devtools

package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	cuedefs "github.com/agentlint/agentlint/cue"
)

// TestGeneratedIsFresh fails when lint/fast/zz_validators.go is not what the
// generator makes of cue/*.cue today: run `make generate` and commit.
func TestGeneratedIsFresh(t *testing.T) {
	m, err := Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../fast/zz_validators.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("lint/fast/zz_validators.go is stale: run `make generate` (go generate ./lint/fast) and commit the result")
	}
}

// TestTestSchemasFresh fails when lint/internal/fasttest/zz_validators.go is
// not what the generator makes of lint/internal/fasttest/cond.cue: run
// `make generate` (go generate ./lint/fast/...) and commit.
func TestTestSchemasFresh(t *testing.T) {
	m, err := Compile(os.DirFS("../internal/fasttest"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := GeneratePackage(m, "fasttest")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../internal/fasttest/zz_validators.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("lint/internal/fasttest/zz_validators.go is stale: run `make generate` and commit the result")
	}
}

// TestCompileRejectsUnsupported proves the compiler fails loudly outside its
// subset instead of silently dropping a constraint.
func TestCompileRejectsUnsupported(t *testing.T) {
	cases := map[string]string{
		"regular field":        "#A: {@kind(x/a)\n a: string}",
		"default":              "#A: {@kind(x/a)\n a?: *1 | int}",
		"unknown builtin":      "import \"strings\"\n#A: {@kind(x/a)\n a?: strings.HasPrefix(\"x\")}",
		"comprehension":        "#A: {@kind(x/a)\n a?: [for x in [1] {x}]}",
		"bad condition":        "#A: {@kind(x/a)\n a?: int\n if a > 1 { _c: a & int @rule(X) }}",
		"dangling ref":         "#A: {@kind(x/a)\n a?: int & <b}",
		"closed check":         "#A: {@kind(x/a)\n a?: string\n b?: [...{}]\n if a == \"x\" { _c: b & [...{c: 1}] @rule(X) }}",
		"desc on two patterns": "#D: =~\"a\" & =~\"b\" @desc(\"x\")\n#A: {@kind(x/a)\n a?: #D}",
		"desc not a string":    "#D: =~\"a\" @desc(x)\n#A: {@kind(x/a)\n a?: #D}",
		// Conditional fields.
		"unguarded optional discriminator": "#A: {@kind(x/a)\n a?: string\n if a == \"x\" { b?: int }}",
		"absent with unguarded literal":    "#A: {@kind(x/a)\n a!: string\n if a == _|_ { b?: int }\n if a == \"x\" { c?: int }}",
		"literal outside the enum":         "#A: {@kind(x/a)\n a!: \"p\" | \"q\"\n if a == \"x\" { b?: int }}",
		"literal outside the pattern":      "#A: {@kind(x/a)\n a!: =~\"^[0-9]+$\"\n if a == \"x\" { b?: int }}",
		"conditional discriminator":        "#A: {@kind(x/a)\n a!: string\n if a == \"x\" { b!: string }\n if b == \"y\" { c?: int }}",
		"discriminator declared in body":   "#A: {@kind(x/a)\n a!: string\n if a == \"x\" { a!: string }}",
		"struct discriminator":             "#A: {@kind(x/a)\n a!: {...}\n if a == \"x\" { b?: int }}",
		"sibling bound in body":            "#A: {@kind(x/a)\n a!: string\n c?: int\n if a == \"x\" { b?: int & <c }}",
		"regular field in body":            "#A: {@kind(x/a)\n a!: string\n if a == \"x\" { b: int }}",
		"incompatible declarations":        "#A: {@kind(x/a)\n a!: string\n d!: int\n if a == \"x\" { d!: {...} }}",
		"guard on another field":           "#A: {@kind(x/a)\n a?: string\n c?: string\n if c != _|_ if a == \"x\" { b?: int }}",
		"not-equal literal":                "#A: {@kind(x/a)\n a!: string\n if a != \"x\" { b?: int }}",
		"declared twice in one body":       "#A: {@kind(x/a)\n a!: string\n if a == \"x\" { b?: int, b?: string }}",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			fsys := mapFS{"a.cue": "package agentlint\n" + src + "\n"}
			if _, err := Compile(fsys); err == nil {
				t.Fatalf("Compile accepted unsupported CUE:\n%s", src)
			}
		})
	}
}

// TestGeneratedFunctionsSayWhatTheyCheck holds the comments that lead from
// a generated function to the CUE definitions: every validator and acceptor
// of lint/fast/zz_validators.go names the CUE paths it checks, and every
// validator the rule IDs it reports.
func TestGeneratedFunctionsSayWhatTheyCheck(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../fast/zz_validators.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		n++
		doc := ""
		if fd.Doc != nil {
			doc = fd.Doc.Text()
		}
		name := fd.Name.Name
		if !strings.HasPrefix(doc, name+" ") || !strings.Contains(doc, " #") {
			t.Errorf("%s: the comment does not name the CUE paths it checks: %q", name, doc)
		}
		if strings.HasPrefix(name, "v") && !strings.Contains(doc, "(rules ") {
			t.Errorf("%s: the comment does not name the rules it reports: %q", name, doc)
		}
	}
	if n == 0 {
		t.Fatal("no function in lint/fast/zz_validators.go")
	}
}
