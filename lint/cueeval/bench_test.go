//go:build cueengine || devtools

package cueeval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlint/agentlint/lint/repotest"
)

// BenchmarkNew measures compiling the CUE package and the model.
func BenchmarkNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchValidate(b *testing.B, kind, file string) {
	e := testEngine(b)
	raw, err := os.ReadFile(filepath.Join(repotest.Root(b), file))
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e.Validate(kind, raw, true)
	}
}

// BenchmarkValidateValid measures one valid payload (one CUE pass).
func BenchmarkValidateValid(b *testing.B) {
	benchValidate(b, "operator/assignment", "testdata/seeds/operator/assignment.json")
}
