// Package repotest finds the repository and the material beside it for
// tests: the module root, and ../shared (the seeds' reference examples and
// real producers' data), which a clone may lack. It imports only the
// standard library, so every test package can use it.
package repotest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of the module root (the directory of
// go.mod), found from this file's location, whatever the test's working
// directory. It fails the test when go.mod is not there.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("repotest: cannot locate repotest.go")
	}
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repotest: no go.mod at %s: %v", root, err)
	}
	return root
}

// Shared returns the path of ../shared/<parts...> beside the module root
// and whether it exists. Tests that compare with the reference validator
// or real producers' data skip, saying so, when it does not: a clone
// without ../shared still passes `make test`.
func Shared(t testing.TB, parts ...string) (string, bool) {
	t.Helper()
	p := filepath.Join(append([]string{filepath.Dir(Root(t)), "shared"}, parts...)...)
	_, err := os.Stat(p)
	return p, err == nil
}
