package fast_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/bench"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/internal/fasttest"
	"github.com/agentlint/agentlint/lint/internal/mutate"
	"github.com/agentlint/agentlint/lint/repotest"
)

// The acceptors (accept.go) may only say "certainly valid" when the
// validator of the same kind, with the same Strict, reports no violation;
// and the spans they record must be the values at their pointers. These
// tests hold every acceptor to that on every payload of the repository's
// testdata (and ../shared when present), on a mutation corpus of valid
// payloads of every kind that has an acceptor, on generated logs and on
// hand-written edge cases, each tried as every kind in both modes. They
// also require the acceptors to be useful: the valid records of the
// generated logs are all accepted, and most valid mutations.

// acceptSeeds are valid payloads of kinds that have an acceptor, relative
// to the repository root (the first line of a .jsonl file).
var acceptSeeds = []string{
	"testdata/agreement/collector/events-2025-12-13.jsonl",
	"testdata/agreement/worklogs/T-12.jsonl",
	"testdata/agreement/ledger/g/ledger/cls/2025-11-16.jsonl",
	"testdata/agreement/ledger/agents/cls/status.json",
	"testdata/agreement/peer-02-locks-valid.json",
	"testdata/agreement/peer-04-reconcile-valid.json",
	"testdata/agreement/orchestrator-output-valid.json",
	"testdata/families/vermas/valid/.work/work_orders.jsonl",
	"testdata/families/vermas/valid/.work/messages.jsonl",
	"testdata/seeds/vermas/.work/routes.jsonl",
	"testdata/seeds/vermas/.work/processes/proc-abc123.json",
	"testdata/agreement/vermas/template.json",
}

// acceptEdges are texts around the shapes the acceptors decline or must
// read exactly: escapes, duplicates at every depth, white space, numbers,
// literals, nesting, UTF-8.
var acceptEdges = []string{
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"}`,
	` {"version":"1.0.0" , "event_type" : "hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"} `,
	"{\"version\":\"1.0.0\",\n\"event_type\":\"hook.stop\",\t\"timestamp\":\"2026-02-14T19:00:01Z\",\r\"agent_id\":\"@a\"}",
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"}x`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a",}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","version":"1.0.0"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","x_a":1,"x_a":2}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":1,"a":2}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":{"b":1,"b":1}}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":[{"b":1},{"b":1}]}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","\u0076ersion":"1.0.0"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"\u0040a","message":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","message":"\ud800"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","message":"\x"}`,
	"{\"version\":\"1.0.0\",\"event_type\":\"hook.stop\",\"timestamp\":\"2026-02-14T19:00:01Z\",\"agent_id\":\"@a\",\"message\":\"\xff\"}",
	"{\"version\":\"1.0.0\",\"event_type\":\"hook.stop\",\"timestamp\":\"2026-02-14T19:00:01Z\",\"agent_id\":\"@a\",\"message\":\"a\tb\"}",
	"{\"version\":\"1.0.0\",\"event_type\":\"hook.stop\",\"timestamp\":\"2026-02-14T19:00:01Z\",\"agent_id\":\"é\",\"message\":\"ü€😀\"}",
	"{\"version\":\"1.0.0\",\"event_type\":\"hook.stop\",\"timestamp\":\"2026-02-14T19:00:01Z\",\"agent_id\":\"@a\",\"x_é\":\"\xed\xa0\x80\"}",
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"","message":""}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","progress":1}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","progress":1.0000000000000001}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","progress":-0}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","progress":1e-400}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","progress":01}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{"duration_ms":1.0}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{"duration_ms":1e3}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{"duration_ms":-12}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":null}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{"x_t":[]},"zz":1}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","tool":{"tool_input":{"a":[1,[2,[3,{"b":[true,false,null]}]]]}}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":tru}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":nulll}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":1 }}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"a":[1,]}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"":1}}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z"}`,
	`{"version":null,"event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"}`,
	`{"version":"2.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:60Z","agent_id":"@a"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-30T19:00:01Z","agent_id":"@a"}`,
	`{"version":"1.0.0","event_type":"Hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","event_id":"6F1C2A3E-0B4D-4C8E-9A71-000000000001","status":"completed","source":"mcp"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","status":"done"}`,
	`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","correlation":{"trace_id":"t","span_id":"s","parent_span_id":"p","root_agent_id":"@r","x_c":{}}}`,
	`[]`, `[{"a":1}]`, `{}`, `null`, `"x"`, `1`, ``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`,
}

// acceptPayloads is the corpus: every source above, each once.
func acceptPayloads(t *testing.T) [][]byte {
	t.Helper()
	root := repotest.Root(t)
	seen := map[string]bool{}
	var out [][]byte
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	walk := func(dir string) {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl") {
				return nil
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.HasSuffix(p, ".json") {
				add(raw)
				return nil
			}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				add(bytes.TrimSuffix(line, []byte("\r")))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(filepath.Join(root, "testdata"))
	for _, dir := range []string{"conformance", "realdata"} {
		if p, ok := repotest.Shared(t, dir); ok {
			walk(p)
		}
	}
	for _, s := range acceptSeeds {
		raw := seedPayload(t, root, s)
		ms, err := mutate.Generate(raw, mutate.Options{Replacements: mutate.Replacements, Combinations: 300})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		add(raw)
		for _, m := range ms {
			add(m.Raw)
		}
	}
	for _, kind := range []string{bench.KindCollector, bench.KindWorklog, bench.KindLedger, bench.KindIdle, bench.KindVermas} {
		for _, line := range generated(t, kind, 3000) {
			add(line)
		}
	}
	for _, e := range acceptEdges {
		add([]byte(e))
	}
	return out
}

// seedPayload reads an acceptSeeds file (the first line of a .jsonl).
func seedPayload(t *testing.T, root, file string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".jsonl") {
		raw = bytes.SplitN(bytes.TrimSpace(raw), []byte("\n"), 2)[0]
	}
	return raw
}

// generated returns the lines of a generated log of kind.
func generated(t *testing.T, kind string, n int) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := bench.Generate(&buf, bench.Config{Kind: kind, Lines: n, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
}

// acceptKinds are the kinds with an acceptor, sorted.
func acceptKinds() []string {
	var ks []string
	for k := range fast.Acceptors {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkAccept runs kind's acceptor and validator on raw; it returns whether
// each passed and, when they contradict each other or a span is wrong, why.
func checkAccept(a *fast.Acc, d *fast.Dec, kind string, raw []byte, strict bool) (accepted, clean bool, problem string) {
	d.Strict = strict
	d.Reset(raw, 1)
	d.Validate(fast.Validators[kind])
	clean = len(d.Out) == 0
	a.Strict = strict
	acc := fast.Acceptors[kind]
	accepted = a.Accept(acc, raw)
	if !accepted {
		return
	}
	if !clean {
		return accepted, clean, fmt.Sprintf("accepted, but the validator reports %d violations, first %s %s: %s", len(d.Out), d.Out[0].Rule, d.Out[0].Pointer, d.Out[0].Reason)
	}
	if problem := checkElems(a, acc, raw); problem != "" {
		return accepted, clean, problem
	}
	for s, ptr := range acc.Fields {
		want, found := valueAt(raw, ptr)
		got := a.Got&(1<<uint(s)) != 0
		switch {
		case found && !got && acc.Cond&(1<<uint(s)) != 0 && !condComplete(a, acc, ptr):
			// A member of a conditional declaration's value that the
			// declaration holding for this record does not record.
		case got != found:
			return accepted, clean, fmt.Sprintf("slot %d %s: recorded %v, present %v", s, ptr, got, found)
		case got && string(raw[a.Spans[s].Start:a.Spans[s].End]) != string(want):
			return accepted, clean, fmt.Sprintf("slot %d %s: span %q, value %q", s, ptr, raw[a.Spans[s].Start:a.Spans[s].End], want)
		}
	}
	return accepted, clean, ""
}

// condComplete reports whether the conditional slots under ptr's
// ancestors hold every member there (fast.Acceptor.Cond): the record has
// no undeclared member and a declaration under conditions that records
// them read an ancestor.
func condComplete(a *fast.Acc, acc *fast.Acceptor, ptr string) bool {
	if a.Loose {
		return false
	}
	for s, p := range acc.Fields {
		if a.Decl&(1<<uint(s)) != 0 && strings.HasPrefix(ptr, p+"/") {
			return true
		}
	}
	return false
}

// valueAt returns the raw JSON value at a pointer of member names in raw
// (a valid JSON text) and whether there is one.
func valueAt(raw []byte, ptr string) (jsontext.Value, bool) {
	v := jsontext.Value(raw)
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		var m map[string]jsontext.Value
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, false
		}
		var ok bool
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	v = bytes.TrimSpace(v)
	return v, true
}

// TestAcceptAgreement: no acceptor accepts a payload its validator
// rejects, in either mode, and the recorded spans are exact.
func TestAcceptAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the acceptors against the validators on every mutation (~15 s) runs in `make test`")
	}
	payloads := acceptPayloads(t)
	kinds := acceptKinds()
	if len(kinds) == 0 {
		t.Fatal("no acceptor generated")
	}
	a, d := &fast.Acc{}, fast.NewDec()
	type count struct{ accepted, clean int }
	counts := map[string]*count{}
	fails := 0
	for _, raw := range payloads {
		for _, kind := range kinds {
			for _, strict := range []bool{false, true} {
				accepted, clean, problem := checkAccept(a, d, kind, raw, strict)
				if problem != "" {
					fails++
					if fails <= 20 {
						t.Errorf("%s strict=%v: %s\n\t%.300s", kind, strict, problem, raw)
					}
				}
				c := counts[kind]
				if c == nil {
					c = &count{}
					counts[kind] = c
				}
				if clean {
					c.clean++
					if accepted {
						c.accepted++
					}
				}
			}
		}
	}
	for _, kind := range kinds {
		c := counts[kind]
		t.Logf("%s: %d of %d valid payloads accepted", kind, c.accepted, c.clean)
	}
	t.Logf("%d payloads, %d kinds, both modes", len(payloads), len(kinds))
}

// TestAcceptUseful: the acceptors take the common case. Every valid line
// of the generated logs is accepted (the engine then never runs the
// validator on it), and nine of ten valid mutations of the seeds.
func TestAcceptUseful(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the acceptors on every seed and mutation (~3 s) runs in `make test`")
	}
	a, d := &fast.Acc{}, fast.NewDec()
	for _, kind := range []string{bench.KindCollector, bench.KindWorklog} {
		n := 0
		for i, line := range generated(t, kind, 3000) {
			accepted, clean, problem := checkAccept(a, d, kind, line, false)
			if problem != "" {
				t.Fatalf("%s line %d: %s", kind, i+1, problem)
			}
			if clean && !accepted {
				t.Errorf("%s line %d: valid but declined: %.200s", kind, i+1, line)
			}
			if accepted {
				n++
			}
		}
		if n < 2900 {
			t.Errorf("%s: %d of 3000 generated lines accepted", kind, n)
		}
	}
	root := repotest.Root(t)
	for _, s := range acceptSeeds {
		raw := seedPayload(t, root, s)
		kind := seedKind(raw)
		if kind == "" {
			t.Fatalf("%s: valid for no kind with an acceptor", s)
		}
		ms, err := mutate.Generate(raw, mutate.Options{Replacements: mutate.Replacements})
		if err != nil {
			t.Fatal(err)
		}
		accepted, clean := 0, 0
		for _, m := range append([]mutate.Mutation{{Raw: raw}}, ms...) {
			acc, ok, problem := checkAccept(a, d, kind, m.Raw, false)
			if problem != "" {
				t.Fatalf("%s %s: %s", s, m.Name, problem)
			}
			if ok {
				clean++
				if acc {
					accepted++
				}
			}
		}
		if accepted*10 < clean*9 {
			t.Errorf("%s (%s): %d of %d valid mutations accepted", s, kind, accepted, clean)
		}
	}
}

// seedKind returns the one kind with an acceptor whose validator finds
// nothing in raw, or "".
func seedKind(raw []byte) string {
	d := fast.NewDec()
	found := ""
	for _, k := range acceptKinds() {
		d.Reset(raw, 1)
		d.Validate(fast.Validators[k])
		if len(d.Out) == 0 {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// FuzzAccept: whatever an acceptor accepts, its validator finds nothing
// in, in both modes, and the spans are exact.
func FuzzAccept(f *testing.F) {
	for _, e := range acceptEdges {
		f.Add([]byte(e))
	}
	for _, line := range generated(&testing.T{}, bench.KindCollector, 40) {
		f.Add(line)
	}
	a, d := &fast.Acc{}, fast.NewDec()
	kinds := acceptKinds()
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, kind := range kinds {
			for _, strict := range []bool{false, true} {
				if _, _, problem := checkAccept(a, d, kind, raw, strict); problem != "" {
					t.Fatalf("%s strict=%v: %s", kind, strict, problem)
				}
			}
		}
	})
}

// TestAcceptWant: an undeclared member of the top-level object named in
// Acc.Want is recorded in its slot from the top; the same name deeper is
// not, nor a declared member.
func TestAcceptWant(t *testing.T) {
	kind := "collector/event"
	raw := []byte(`{"version":"1.0.0","event_type":"hook.stop","timestamp":"2026-02-14T19:00:01Z","agent_id":"@a","metadata":{"notes":[2]},"notes": [1, "x"] ,"x_n":{}}`)
	a := &fast.Acc{Want: []string{"absent", "notes"}}
	if !a.Accept(fast.Acceptors[kind], raw) {
		t.Fatal("declined")
	}
	if a.Got&(1<<(fast.MaxCaptures-1)) != 0 {
		t.Error("an absent wanted member was recorded")
	}
	s := fast.MaxCaptures - 2
	if a.Got&(1<<uint(s)) == 0 {
		t.Fatal("the wanted member was not recorded")
	}
	if got := string(raw[a.Spans[s].Start:a.Spans[s].End]); got != `[1, "x"]` {
		t.Errorf("recorded %q, want the top-level value", got)
	}
}

// TestAcceptConditional holds the acceptors of the test schemas of
// conditional fields (lint/internal/fasttest/cond.cue: unguarded, guarded and
// absent conditions, members declared unconditionally and under several
// conditions, checks) to their validators, on every seed of
// fasttest/testdata and its mutations (which delete, retype and change the
// discriminators), in both modes; and requires the valid ones accepted.
func TestAcceptConditional(t *testing.T) {
	dir := filepath.Join(repotest.Root(t), "lint", "internal", "fasttest", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds in %s: %v", dir, err)
	}
	a, d := &fast.Acc{}, fast.NewDec()
	checked, accepted, clean := 0, 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kind := "test/" + filepath.Base(filepath.Dir(f))
		acc := fasttest.Acceptors[kind]
		if acc == nil {
			t.Fatalf("%s: no acceptor", kind)
		}
		ms, err := mutate.Generate(raw, mutate.Options{Replacements: mutate.Replacements, Combinations: 300})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range append([]mutate.Mutation{{Name: "seed", Raw: raw}}, ms...) {
			for _, strict := range []bool{false, true} {
				d.Strict = strict
				d.Reset(m.Raw, 1)
				d.Validate(fasttest.Validators[kind])
				a.Strict = strict
				ok := a.Accept(acc, m.Raw)
				checked++
				if len(d.Out) == 0 {
					clean++
					if ok {
						accepted++
					}
				}
				if ok && len(d.Out) > 0 {
					t.Errorf("%s %s strict=%v: accepted, but the validator reports %s %s: %s\n\t%s", kind, m.Name, strict, d.Out[0].Rule, d.Out[0].Pointer, d.Out[0].Reason, m.Raw)
				}
			}
		}
	}
	if accepted*10 < clean*9 {
		t.Errorf("%d of %d valid payloads accepted", accepted, clean)
	}
	t.Logf("%d runs, %d of %d valid payloads accepted", checked, accepted, clean)
}

// TestAcceptSiblingBound: the assignment's sibling bound (seed 001
// operator contracts, the task packet: heartbeat_interval_seconds <
// timeout_seconds) is checked by the acceptor on the two literals: a
// packet that keeps it is accepted without the validator, one that breaks
// it (or whose numbers only the validator can compare) is declined and the
// validator names the violation.
func TestAcceptSiblingBound(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repotest.Root(t), "testdata", "demo", "packets", "t12-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	const hb, to = `"heartbeat_interval_seconds": 120`, `"timeout_seconds": 1200`
	if !bytes.Contains(raw, []byte(hb)) || !bytes.Contains(raw, []byte(to)) {
		t.Fatalf("the demo packet no longer holds %s and %s", hb, to)
	}
	a, d := &fast.Acc{}, fast.NewDec()
	for _, c := range []struct {
		heartbeat, timeout string
		accept             bool
	}{
		{"120", "1200", true},
		{"1199", "1200", true},
		{"119", "120", true},
		{"1200", "1200", false},
		{"1201", "1200", false},
		{"-1", "-2", false},
		{"9007199254740993", "9007199254740992", false}, // equal as float64: the literals decide
		{"9007199254740992", "9007199254740993", true},
	} {
		p := bytes.Replace(raw, []byte(hb), []byte(`"heartbeat_interval_seconds": `+c.heartbeat), 1)
		p = bytes.Replace(p, []byte(to), []byte(`"timeout_seconds": `+c.timeout), 1)
		accepted, clean, problem := checkAccept(a, d, "operator/assignment", p, false)
		if problem != "" {
			t.Errorf("heartbeat %s, timeout %s: %s", c.heartbeat, c.timeout, problem)
		}
		if accepted != c.accept || clean != c.accept {
			t.Errorf("heartbeat %s, timeout %s: accepted %v, validator clean %v; want both %v", c.heartbeat, c.timeout, accepted, clean, c.accept)
		}
	}
}

// TestAcceptMemberOrder: an acceptor reads the conditions of an object
// from its discriminators as it reads them, and pre-scans only when a
// member declared under conditions comes first (Acc.CondsFrom, Conds):
// the records of the idle, VerMAS and operator logs and of the edge cases,
// with the members of every object in random orders (discriminators first,
// last, between their conditional members), are accepted exactly when
// their validators find nothing, with exact spans, in both modes; and a
// valid record is accepted in any order.
func TestAcceptMemberOrder(t *testing.T) {
	var lines [][]byte
	for _, k := range []string{bench.KindIdle, bench.KindVermas, bench.KindWorklog, bench.KindCollector} {
		lines = append(lines, generated(t, k, 300)...)
	}
	for _, r := range []string{
		`{"schema":0,"goal":"g","mode":"issue","iteration":"3/10","progress":"p","modified_files":"m","next_step":"n","timestamp":"2024-12-21T10:30:00Z"}`,
		`{"schema":0,"event":"ANCHOR","goal":"g","mode":"issue","iteration":"3/10","progress":"p","modified_files":"m","next_step":"n","timestamp":"2024-12-21T10:30:00Z"}`,
		`{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`,
		`{"schema":0,"event":"ABORT","reason":"USER_CANCELLED","stack":[]}`,
		`{"schema":0,"event":"ABORT","reason":"COMPLETE","stack":[]}`,
		`{"schema":0,"event":"STATE","run_id":"grind-1-2","updated_at":"2024-12-21T10:30:00Z","stack":[{"id":"g","mode":"issue","iter":1,"max":2,"prompt_file":"/p","filter":"x"}]}`,
		`{"schema":0,"event":"STATE","run_id":"grind-1-2","updated_at":"2024-12-21T10:30:00Z","stack":[{"id":"g","mode":"grind","iter":1,"max":2,"prompt_file":"/p","issue_id":"a","worktree_path":"/w","branch":"b","base_ref":"m"}]}`,
		`{"schema":0,"event":"STATE","run_id":"grind-1-2","updated_at":"2024-12-21T10:30:00Z","stack":[{"id":"g","mode":7,"iter":1,"max":2,"prompt_file":"/p"}]}`,
		`{"schema":0,"event":"STATE","run_id":"grind-1-2","updated_at":"2024-12-21T10:30:00Z","stack":[{"id":"g","mode":"gr\u0069nd","iter":1,"max":2,"prompt_file":"/p","filter":"x"}]}`,
		`{"schema":0,"event":"STAT","run_id":"grind-1-2","stack":[]}`,
	} {
		lines = append(lines, []byte(r))
	}
	for _, e := range acceptEdges {
		lines = append(lines, []byte(e))
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	a, d := &fast.Acc{}, fast.NewDec()
	kinds := acceptKinds()
	accepted := 0
	for _, line := range lines {
		if !jsontext.Value(line).IsValid() {
			continue
		}
		kind := seedKind(line)
		for range 8 {
			raw := shuffleMembers(rnd, line)
			for _, k := range kinds {
				for _, strict := range []bool{false, true} {
					acc, clean, problem := checkAccept(a, d, k, raw, strict)
					if problem != "" {
						t.Fatalf("%s strict=%v: %s\n%s", k, strict, problem, raw)
					}
					if k == kind && !strict && clean && !acc && !bytes.Contains(raw, []byte(`\u`)) && !bytes.Contains(raw, []byte(` `)) {
						t.Errorf("%s: a valid record declined: %s", k, raw)
					}
					if acc {
						accepted++
					}
				}
			}
		}
	}
	if accepted < len(lines) {
		t.Errorf("%d acceptances of %d records in 8 orders: the test exercises little", accepted, len(lines))
	}
}

// shuffleMembers returns the JSON text v with the members of each of its
// objects in a random order (the values' texts otherwise as they are).
func shuffleMembers(rnd *rand.Rand, v jsontext.Value) []byte {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	switch v.Kind() {
	case '{':
		dec.ReadToken()
		var members [][]byte
		for dec.PeekKind() != '}' {
			name, _ := dec.ReadValue()
			name = bytes.Clone(name)
			val, _ := dec.ReadValue()
			members = append(members, append(append(name, ':'), shuffleMembers(rnd, bytes.Clone(val))...))
		}
		rnd.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return append(append([]byte{'{'}, bytes.Join(members, []byte(","))...), '}')
	case '[':
		dec.ReadToken()
		var elems [][]byte
		for dec.PeekKind() != ']' {
			val, _ := dec.ReadValue()
			elems = append(elems, shuffleMembers(rnd, bytes.Clone(val)))
		}
		return append(append([]byte{'['}, bytes.Join(elems, []byte(","))...), ']')
	}
	return v
}

// checkElems accepts raw, which acc accepted, again with every top-level
// array of objects wanted (Acc.WantElems) and returns why the objects and
// members recorded (Acc.Elems) are not those of raw, or "": it must accept
// raw again; per wanted member whose value is an array, one object
// recorded per element that is an object, in order (or none, when a
// declaration that does not type the elements read it), and each member
// recorded is one its definition declares, with the exact text of its
// value; an object with any member recorded has every member it holds
// that its definition declares unconditionally recorded (of the objects
// named in unconditional: a member read as undeclared, where a condition
// does not declare it, is not).
func checkElems(a *fast.Acc, acc *fast.Acceptor, raw []byte) string {
	unconditional := map[string][]string{"stack": {"id", "mode", "iter", "max", "prompt_file"}}
	if len(acc.ElemNames) == 0 {
		return ""
	}
	var want uint64
	for name := range acc.ElemNames {
		want |= 1 << uint(slices.Index(acc.Names, name))
	}
	a.WantElems = want
	ok := a.Accept(acc, raw)
	a.WantElems = 0
	if !ok {
		return "declined when recording the objects of its arrays"
	}
	for name, names := range acc.ElemNames {
		top := uint8(slices.Index(acc.Names, name))
		var objs []map[string]jsontext.Value
		if v, found := valueAt(raw, "/"+name); found && v.Kind() == '[' {
			var elems []jsontext.Value
			if err := json.Unmarshal(v, &elems); err != nil {
				return err.Error()
			}
			for _, e := range elems {
				if e = bytes.TrimSpace(e); e.Kind() == '{' {
					var m map[string]jsontext.Value
					if err := json.Unmarshal(e, &m); err != nil {
						return err.Error()
					}
					objs = append(objs, m)
				}
			}
		}
		k := -1
		recorded := map[string]bool{}
		complete := func() string {
			if k < 0 || len(recorded) == 0 {
				return ""
			}
			for _, n := range names {
				if !slices.Contains(unconditional[name], n) {
					continue
				}
				if _, present := objs[k][n]; present && !recorded[n] {
					return fmt.Sprintf("/%s/%d: member %s not recorded", name, k, n)
				}
			}
			return ""
		}
		for _, e := range a.Elems {
			if e.Top != top {
				continue
			}
			if e.Member == fast.ElemObject {
				if p := complete(); p != "" {
					return p
				}
				if k++; k >= len(objs) || raw[e.Start] != '{' {
					return fmt.Sprintf("/%s: object %d recorded, %d in the array", name, k, len(objs))
				}
				clear(recorded)
				continue
			}
			if k < 0 || int(e.Member) >= len(names) {
				return fmt.Sprintf("/%s: member %d recorded outside an object or unnamed", name, e.Member)
			}
			n := names[e.Member]
			v, present := objs[k][n]
			if got := raw[e.Start:e.End]; !present || string(got) != string(bytes.TrimSpace(v)) {
				return fmt.Sprintf("/%s/%d/%s: recorded %q, value %q", name, k, n, got, v)
			}
			recorded[n] = true
		}
		if p := complete(); p != "" {
			return p
		}
		if k >= 0 && k+1 != len(objs) {
			// (none: the array was read by a declaration that does not
			// type its elements)
			return fmt.Sprintf("/%s: %d objects recorded, %d in the array", name, k+1, len(objs))
		}
	}
	return ""
}

// TestAcceptPlainStrings holds the acceptors to their validators on the
// strings the generated code reads without scanning them as JSON (a plain
// pattern or enum up to the next quote, a UUID's closing quote where it
// is due, a member whose value may be any string): escaped forms of valid
// values (accepted after unescaping, as the validator does), a quote or a
// backslash inside, strings cut short, a record that ends inside them, and
// a duplicate member.
func TestAcceptPlainStrings(t *testing.T) {
	const rec = `{"version":"1.0.0","event_type":"hook.session_start","timestamp":"2026-02-14T19:00:00.549Z","agent_id":"@a@b","event_id":"e8fba6d5-51f1-f18d-288b-c2391bca995f","session_id":"sess-1000","source":"hook","status":"started","message":"m"}`
	var cases []string
	for _, r := range [][2]string{
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"e8fba6d5-51f1-f18d-288b-c2391bca995\u0066"`},
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"\u0065\u00388fba6d5-51f1-f18d-288b-c2391bca995f"`},
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"e8fba6d5-51f1-f18d-288b-c2391bca995"`},
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"e8fba6d5-51f1-f18d-288b-c2391bca995ff"`},
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"e8fba6d5-51f1-f18d-288b-c2391bca99\"f"`},
		{`"e8fba6d5-51f1-f18d-288b-c2391bca995f"`, `"e8fba6d5-51f1-f18d-288b-c2391bca995f\""`},
		{`"hook"`, `"ho\u006fk"`},
		{`"hook"`, `"hoo\"k"`},
		{`"hook"`, `"hook\\"`},
		{`"started"`, `"start\u0065d"`},
		{`"hook.session_start"`, `"hook.session\u005fstart"`},
		{`"hook.session_start"`, `"hook.session\"start"`},
		{`"2026-02-14T19:00:00.549Z"`, `"2026-02-14T19:00:00.549\u005a"`},
		{`"2026-02-14T19:00:00.549Z"`, `"2026-02-14T19:00:00.549Z\u0000"`},
		{`"1.0.0"`, `"1.0.\u0030"`},
		{`"sess-1000"`, `"sess-\u00e9\"1000"`},
		{`"sess-1000"`, `"sess-1000\ud800"`},
		{`"sess-1000"`, `12`},
		{`"@a@b"`, `""`},
		{`"@a@b"`, `"\u0040"`},
		{`"@a@b"`, `"\u"`},
		{`"@a@b"`, `"\"`},
		{`"@a@b"`, `" "`},
		{`"message":"m"`, `"message":"m","message":"n"`},
		{`"session_id":"sess-1000"`, `"session_id":"sess-1000","session_id":"x"`},
		{`"source":"hook"`, `"source":"hook","source":"hook"`},
	} {
		if !strings.Contains(rec, r[0]) {
			t.Fatalf("%s not in the record", r[0])
		}
		cases = append(cases, strings.Replace(rec, r[0], r[1], 1))
	}
	cases = append(cases, rec)
	for n := 1; n < len(rec); n++ {
		cases = append(cases, rec[:n])
	}
	a, d := &fast.Acc{}, fast.NewDec()
	for _, c := range cases {
		for _, strict := range []bool{false, true} {
			ok, clean, problem := checkAccept(a, d, bench.KindCollector, []byte(c), strict)
			if problem != "" {
				t.Errorf("%s (strict %v): %s", c, strict, problem)
			}
			if clean && !ok {
				t.Errorf("%s (strict %v): valid, declined", c, strict)
			}
		}
	}
}
