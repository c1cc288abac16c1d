package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/record"
)

// update rewrites the want.json and ledger.json sections of
// testdata/replay/golden/*.txtar from the actual results:
//
//	go test ./lint/replay -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the golden files of testdata/replay/golden")

// testNow is the --now of golden cases that ask for a watchdog.
var testNow = time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)

// tester is what the helpers need of *testing.T and *rapid.T.
type tester interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// replayFiles runs a replay over in-memory files: base and the streams, in
// order.
func replayFiles(t tester, opts Options, base txtar.File, streams ...txtar.File) *Result {
	var ins []Input
	for _, f := range streams {
		ins = append(ins, Input{Name: f.Name, R: bytes.NewReader(f.Data)})
	}
	res, err := Run(Input{Name: base.Name, R: bytes.NewReader(base.Data)}, ins, opts)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return res
}

// archiveInputs splits a txtar archive into BASE (the file named base.*)
// and the streams (the other files but want.json and ledger.json, in
// order). The archive comment may set options, one per line: "now" (the
// watchdog at testNow) and "strict".
func archiveInputs(t testing.TB, a *txtar.Archive) (Options, txtar.File, []txtar.File) {
	t.Helper()
	var opts Options
	for _, l := range strings.Split(string(a.Comment), "\n") {
		switch strings.TrimSpace(l) {
		case "now":
			opts.Now = testNow
		case "strict":
			opts.Strict = true
		}
	}
	var base *txtar.File
	var streams []txtar.File
	for i, f := range a.Files {
		switch {
		case strings.HasPrefix(f.Name, "base."):
			base = &a.Files[i]
		case f.Name == "want.json" || f.Name == "ledger.json":
		default:
			streams = append(streams, f)
		}
	}
	if base == nil {
		t.Fatal("archive has no base.* file")
	}
	return opts, *base, streams
}

// ledgerBytes returns the emitted ledger, or nil when there is none.
func ledgerBytes(t tester, res *Result) []byte {
	var b bytes.Buffer
	err := res.WriteLedger(&b)
	if errors.Is(err, ErrNoLedger) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// envelopeJSON renders an envelope as indented JSON (as the CLI does, but
// readable).
func envelopeJSON(t tester, e envelope.Envelope) []byte {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// rulesOf returns "RULE pointer" for every violation of the verdict.
func rulesOf(e envelope.Envelope) []string {
	vs, _ := e.Details["violations"].([]envelope.Violation)
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule+" "+v.Pointer)
	}
	return out
}

// hasRule reports whether the verdict has a violation of rule.
func hasRule(e envelope.Envelope, rule string) bool {
	for _, r := range rulesOf(e) {
		if strings.HasPrefix(r, rule+" ") {
			return true
		}
	}
	return false
}

// readArchive reads a txtar file.
func readArchive(t testing.TB, path string) *txtar.Archive {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeSection sets (or adds) file name of the archive to data.
func writeSection(a *txtar.Archive, name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

// validateAs validates data as kind with the engine and returns the error
// violations.
func validateAs(kind string, data []byte) []string {
	vs, _ := record.NewValidator(record.Options{}, nil).Document(kind, "x.json", data)
	var out []string
	for _, v := range vs {
		if v.Severity == envelope.SeverityError {
			out = append(out, fmt.Sprintf("%s %s: %s", v.Rule, v.Pointer, v.Reason))
		}
	}
	return out
}

func goldenFiles(t tester) []string {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "replay", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	return files
}

func writeArchive(t *testing.T, path string, a *txtar.Archive) {
	t.Helper()
	if err := os.WriteFile(path, txtar.Format(a), 0o666); err != nil {
		t.Fatal(err)
	}
}
