package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

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

// TestGroupsComplete: every function of the package that registers rules
// (calls register or registerStream) is listed once in groups, so that no
// rule is left out of the lazily built registry, and every rule applies
// only to kinds of its group's family (register panics otherwise).
func TestGroupsComplete(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || fd.Name.Name == "Register" || fd.Name.Name == "RegisterStream" {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && (id.Name == "register" || id.Name == "registerStream") {
						want[fd.Name.Name] = true
					}
				}
				return true
			})
		}
	}
	listed := map[string]int{}
	for _, g := range groups {
		for _, def := range g.defs {
			name := runtime.FuncForPC(reflect.ValueOf(def).Pointer()).Name()
			listed[name[strings.LastIndex(name, ".")+1:]]++
		}
	}
	for name := range want {
		if listed[name] != 1 {
			t.Errorf("%s registers rules but is listed %d times in groups", name, listed[name])
		}
	}
	for name := range listed {
		if !want[name] {
			t.Errorf("groups lists %s, which registers no rule", name)
		}
	}
	if len(want) == 0 {
		t.Fatal("no function registers rules")
	}
}

// TestPointerTokenEscapes: escapeToken and unescapeToken are the
// strings.Replacers they replaced, and PointerTokens undoes Ptr.
func TestPointerTokenEscapes(t *testing.T) {
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	unesc := strings.NewReplacer("~1", "/", "~0", "~")
	alphabet := "~01/a"
	var all []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		all = append(all, prefix)
		if n == 0 {
			return
		}
		for i := range alphabet {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 6)
	for _, s := range all {
		var b strings.Builder
		escapeToken(&b, s)
		if b.String() != esc.Replace(s) {
			t.Errorf("escapeToken(%q) = %q, want %q", s, b.String(), esc.Replace(s))
		}
		if toks, ok := PointerTokens("/" + s); ok && toks[len(toks)-1] != unesc.Replace(s[strings.LastIndex(s, "/")+1:]) {
			t.Errorf("PointerTokens(/%q) = %q", s, toks)
		}
		if toks, ok := PointerTokens(Ptr(s, "x")); !ok || len(toks) != 2 || toks[0] != s {
			t.Errorf("PointerTokens(Ptr(%q)) = %q, %v", s, toks, ok)
		}
	}
}
