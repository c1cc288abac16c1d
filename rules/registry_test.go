package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range pkgs["rules"].Files {
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
