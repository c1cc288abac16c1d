//go:build devtools

package schemaexport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v5"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/internal/exportgen"
	"github.com/agentlint/agentlint/lint/schema"
	"github.com/agentlint/agentlint/lint/schemaexport"
)

var root = filepath.Join("..", "..")

// TestSchemasFresh fails when the committed schemas/ differ from what the
// CUE model and the registry give: run go generate ./lint/schemaexport.
func TestSchemasFresh(t *testing.T) {
	m, err := schema.Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	want, err := exportgen.Files(m)
	if err != nil {
		t.Fatal(err)
	}
	have, _ := filepath.Glob(filepath.Join("schemas", "*.schema.json"))
	if len(have) != len(want) {
		t.Errorf("schemas/ has %d files, the model gives %d: run go generate ./lint/schemaexport", len(have), len(want))
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join("schemas", name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("schemas/%s is stale or missing: run go generate ./lint/schemaexport", name)
		}
	}
}

// compile compiles an exported schema with santhosh-tekuri/jsonschema/v5,
// draft 2020-12 (from its $schema), formats asserted, no network.
func compile(t testing.TB, name string, src []byte) *js.Schema {
	t.Helper()
	c := js.NewCompiler()
	c.AssertFormat = true
	c.LoadURL = func(s string) (io.ReadCloser, error) { return nil, fmt.Errorf("no network: %s", s) }
	if err := c.AddResource(name, bytes.NewReader(src)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// TestDoneWhen: the exported operator/assignment
// schema accepts seed 001's minimal assignment example with a standard JSON
// Schema validator and rejects it when task.lock_scope is empty.
func TestDoneWhen(t *testing.T) {
	src, err := schemaexport.JSONSchema("operator/assignment", false)
	if err != nil {
		t.Fatal(err)
	}
	s := compile(t, "a.schema.json", src)
	seed, empty := seedAssignment(t)
	for _, c := range []struct {
		name  string
		raw   []byte
		valid bool
	}{{"seed 001 minimal assignment", seed, true}, {"task.lock_scope empty", empty, false}} {
		v, err := decode(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); (err == nil) != c.valid {
			t.Errorf("%s: valid=%v, want %v (%v)", c.name, err == nil, c.valid, err)
		}
	}
}

func seedAssignment(t testing.TB) (seed, empty []byte) {
	seed, err := os.ReadFile(filepath.Join(root, "testdata", "seeds", "operator", "assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(seed, &m); err != nil {
		t.Fatal(err)
	}
	m["task"].(map[string]any)["lock_scope"] = []any{}
	empty, _ = json.Marshal(m)
	return seed, empty
}

// TestDoneWhenAjv proves the same with a second, independent validator: ajv
// (draft 2020-12, ajv-formats), installed by scripts/tools/ajv.sh into
// .cache/tools/ajv. Skipped when node or npm is missing, when the script
// cannot install (offline), or with -short.
func TestDoneWhenAjv(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: ajv is not run")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: ajv is not run (apt-get install nodejs npm)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: ajv is not run (apt-get install npm)")
	}
	var stderr bytes.Buffer
	install := exec.Command("sh", filepath.Join(root, "scripts", "tools", "ajv.sh"))
	install.Stderr = &stderr
	out, err := install.Output()
	if err != nil {
		// npm could not install (offline clone): say so, as the tests
		// that need ../shared do.
		t.Skipf("scripts/tools/ajv.sh could not install ajv (%v): ajv is not run\n%s", err, stderr.Bytes())
	}
	modules := filepath.Join(strings.TrimSpace(string(out)), "node_modules")
	dir := t.TempDir()
	src, err := schemaexport.JSONSchema("operator/assignment", false)
	if err != nil {
		t.Fatal(err)
	}
	seed, empty := seedAssignment(t)
	for name, b := range map[string][]byte{"a.schema.json": src, "seed.json": seed, "empty.json": empty} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const script = `const Ajv2020 = require("ajv/dist/2020"), addFormats = require("ajv-formats"), fs = require("fs");
const ajv = new Ajv2020({strict: true, allErrors: true}); addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[1], "utf8")));
for (const f of process.argv.slice(2)) console.log(f, validate(JSON.parse(fs.readFileSync(f, "utf8"))) ? "valid" : "invalid " + JSON.stringify(validate.errors));`
	cmd := exec.Command("node", "-e", script, "a.schema.json", "seed.json", "empty.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ajv: %v\n%s", err, got)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 2 || lines[0] != "seed.json valid" || !strings.HasPrefix(lines[1], "empty.json invalid") || !strings.Contains(lines[1], "/task/lock_scope") {
		t.Errorf("ajv says:\n%s\nwant seed.json valid, empty.json invalid at /task/lock_scope", got)
	}
}

// TestDollarSchemaMember: the "$schema" member that points an editor at the
// schema is an undeclared member: the export accepts it, the strict export
// rejects it, as agentlint and agentlint --strict do.
func TestDollarSchemaMember(t *testing.T) {
	seed, _ := seedAssignment(t)
	var m map[string]any
	if err := json.Unmarshal(seed, &m); err != nil {
		t.Fatal(err)
	}
	m["$schema"] = schemaexport.BaseURL + schemaexport.FileName("operator/assignment", false)
	raw, _ := json.Marshal(m)
	v, _ := decode(raw)
	for _, strict := range []bool{false, true} {
		src, err := schemaexport.JSONSchema("operator/assignment", strict)
		if err != nil {
			t.Fatal(err)
		}
		err = compile(t, schemaexport.FileName("operator/assignment", strict), src).Validate(v)
		if (err == nil) == strict {
			t.Errorf("strict=%v: valid=%v, want %v (%v)", strict, err == nil, !strict, err)
		}
	}
}
