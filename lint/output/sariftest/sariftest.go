// Package sariftest checks SARIF logs in tests: against the official OASIS
// SARIF 2.1.0 JSON Schema (sarif-schema-2.1.0.json, errata 01) with our JSON
// Schema library (github.com/santhosh-tekuri/jsonschema/v5, formats
// asserted), and by reading them back with a second SARIF object model
// (github.com/owenrumney/go-sarif/v3).
//
// The schema is not committed: it is the verbatim text that the Go module
// github.com/owenrumney/go-sarif/v3 (MIT; pinned and checksummed by go.sum)
// ships in pkg/report/v210/sarif/schema.go, read from the module cache
// (`go list -m`, downloaded by the Go module proxy like any dependency).
package sariftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	v3 "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// SchemaID is the $id of the official schema.
const SchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

var (
	once   sync.Once
	schema *js.Schema
	text   []byte
	errS   error
)

// SchemaText returns the official SARIF 2.1.0 JSON Schema.
func SchemaText() ([]byte, error) {
	load()
	return text, errS
}

func load() {
	once.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
		if err != nil {
			errS = fmt.Errorf("go list -m github.com/owenrumney/go-sarif/v3: %v", err)
			return
		}
		src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go"))
		if err != nil {
			errS = err
			return
		}
		const open = "const schema = `"
		i := bytes.Index(src, []byte(open))
		j := bytes.LastIndexByte(src, '`')
		if i < 0 || j <= i {
			errS = fmt.Errorf("go-sarif/v3 schema.go: no schema constant")
			return
		}
		text = src[i+len(open) : j]
		if !bytes.Contains(text, []byte(`"id": "`+SchemaID+`"`)) {
			errS = fmt.Errorf("go-sarif/v3 schema.go: not the official schema %s", SchemaID)
			return
		}
		c := js.NewCompiler()
		c.AssertFormat = true
		if err := c.AddResource(SchemaID, bytes.NewReader(text)); err != nil {
			errS = err
			return
		}
		schema, errS = c.Compile(SchemaID)
	})
}

// Check returns why data is not a SARIF log that the official schema
// accepts, or nil.
func Check(data []byte) error {
	load()
	if errS != nil {
		return fmt.Errorf("SARIF schema: %v", errS)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("SARIF log is not JSON: %v", err)
	}
	if err := schema.Validate(doc); err != nil {
		return fmt.Errorf("SARIF log does not validate against sarif-schema-2.1.0.json: %#v", err)
	}
	return nil
}

// Validate fails t unless data is a SARIF log that the official schema
// accepts and go-sarif/v3 reads back with one run; it returns the log
// decoded generically.
func Validate(t testing.TB, data []byte) map[string]any {
	t.Helper()
	if err := Check(data); err != nil {
		t.Fatal(err)
	}
	var doc any
	_ = json.Unmarshal(data, &doc)
	rep, err := v3.FromBytes(data)
	if err != nil {
		t.Fatalf("go-sarif/v3 cannot read the log: %v", err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("SARIF log has %d runs, want 1", len(rep.Runs))
	}
	return doc.(map[string]any)
}
