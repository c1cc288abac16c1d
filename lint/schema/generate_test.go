package schema

import (
	"os"
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

// TestCompileRejectsUnsupported proves the compiler fails loudly outside its
// subset instead of silently dropping a constraint.
func TestCompileRejectsUnsupported(t *testing.T) {
	cases := map[string]string{
		"regular field":   "#A: {@kind(x/a)\n a: string}",
		"default":         "#A: {@kind(x/a)\n a?: *1 | int}",
		"unknown builtin": "import \"strings\"\n#A: {@kind(x/a)\n a?: strings.HasPrefix(\"x\")}",
		"comprehension":   "#A: {@kind(x/a)\n a?: [for x in [1] {x}]}",
		"bad condition":   "#A: {@kind(x/a)\n a?: int\n if a > 1 { _c: a & int @rule(X) }}",
		"dangling ref":    "#A: {@kind(x/a)\n a?: int & <b}",
		"closed check":    "#A: {@kind(x/a)\n a?: string\n b?: [...{}]\n if a == \"x\" { _c: b & [...{c: 1}] @rule(X) }}",
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
