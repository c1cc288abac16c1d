package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlint/agentlint/cmd/agentlint/server"
	"github.com/agentlint/agentlint/lint"
)

// update rewrites the golden files inside testdata/script/*.txtar whose `cmp`
// fails, instead of failing:
//
//	go test ./cmd/agentlint -run TestScript -update
var update = flag.Bool("update", false, "rewrite the golden files of testdata/script/*.txtar from the actual output")

// statusFileEnv names the file in which the agentlint command of the scripts
// records its exit status for the `status` command.
const statusFileEnv = "AGENTLINT_TEST_STATUS_FILE"

// TestMain lets the test binary stand in for the agentlint command:
// testscript re-executes it under that name for `exec agentlint ...`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentlint": func() {
			if full := os.Getenv("AGENTLINT_TEST_OUTPUT_ENOSPC"); full != "" {
				// A disk that is full for the --output files whose name
				// holds the variable's value.
				outputWriter = func(w io.Writer) io.Writer {
					if f, ok := w.(interface{ Name() string }); ok && strings.Contains(filepath.Base(f.Name()), full) {
						return enospcWriter{}
					}
					return w
				}
			}
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			if f := os.Getenv(statusFileEnv); f != "" {
				_ = os.WriteFile(f, []byte(strconv.Itoa(code)), 0o666)
			}
			os.Exit(code)
		},
		// agentlint-serve, the build with the server (serve_test.go).
		"agentlint-serve": func() {
			serveImpl = server.Run // the test binary stands in for agentlint-serve (serve_engine.go)
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			if f := os.Getenv(statusFileEnv); f != "" {
				_ = os.WriteFile(f, []byte(strconv.Itoa(code)), 0o666)
			}
			os.Exit(code)
		},
	})
}

// TestScript runs the CLI scenarios of testdata/script/*.txtar, each in a
// fresh work directory $WORK with a clean environment. NO_COLOR is not set
// unless a script sets it (env NO_COLOR=1). Every script also gets a copy of
// testdata/demo in $WORK/demo ($DEMO), so that it may run from inside it
// without reading a config file or .gitignore of the repository.
//
// `stdout -count=N '\n'` asserts that the output has exactly N lines.
//
// Extra commands, besides testscript's own:
//
//	status N           the last `exec agentlint` exited with status N
//	                   (`exec` and `! exec` only tell 0 from non-zero)
//	concat OUT IN...   write the concatenation of the IN files to OUT
//	chomp FILE         remove the final newline of FILE
//
// With -short only the scripts of shortScripts run; `make test` runs them
// all.
func TestScript(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "..", "testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "testdata", "script")
	var files []string
	if testing.Short() {
		for _, name := range shortScripts {
			files = append(files, filepath.Join(dir, name+".txtar"))
		}
		t.Logf("-short: %d of the scripts of %s; `make test` runs them all", len(files), dir)
		dir = "" // testscript reads Files only without Dir
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		Files:               files,
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			// A config file above $WORK would change every verdict.
			if p := lint.FindConfig(filepath.Dir(env.WorkDir)); p != "" {
				return fmt.Errorf("stray %s above the test work directory; remove it", p)
			}
			vars := env.Vars[:0]
			for _, kv := range env.Vars {
				if !strings.HasPrefix(kv, "NO_COLOR=") {
					vars = append(vars, kv)
				}
			}
			env.Vars = vars
			dst := filepath.Join(env.WorkDir, "demo")
			if err := copyTree(demo, dst); err != nil {
				return err
			}
			env.Setenv("DEMO", dst)
			env.Setenv(statusFileEnv, filepath.Join(env.WorkDir, ".agentlint-status"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": cmdStatus,
			"concat": cmdConcat,
			"chomp":  cmdChomp,
		},
	})
}

// shortScripts are the scripts TestScript runs with -short (about 0.15 s
// per exec of agentlint, ~2 s in all): lint of the demo, one valid and one
// invalid record, a replay.
var shortScripts = []string{"demo", "validate_ok", "validate_syntax", "replay_jsonl"}

// enospcWriter fails every write as a full disk does.
type enospcWriter struct{}

func (enospcWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: status N")
	}
	f := ts.Getenv(statusFileEnv)
	got, err := os.ReadFile(f)
	if err != nil {
		ts.Fatalf("status: no `exec agentlint` since the last status check")
	}
	// Consume it, so that a later check cannot see a stale status.
	ts.Check(os.Remove(f))
	if string(got) != args[0] {
		ts.Fatalf("agentlint exited with status %s, want %s", got, args[0])
	}
}

func cmdConcat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: concat OUT IN...")
	}
	var b bytes.Buffer
	for _, in := range args[1:] {
		b.WriteString(ts.ReadFile(in))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o666))
}

func cmdChomp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chomp FILE")
	}
	s := strings.TrimSuffix(ts.ReadFile(args[0]), "\n")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(s), 0o666))
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o777)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o666)
	})
}
