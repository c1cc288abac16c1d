package rules_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// collRec is one generated collector event ("" = member absent).
type collRec struct{ id, trace, span, parent string }

// genCollectorRun returns per-agent logs (name → records) shaped to reach
// every path of CL100 and CL101: event_ids repeated near and far, in
// upper and lower case, the nil UUID and non-UUID strings repeated; spans
// short, 16 lowercase hex digits, in upper case and long, repeated;
// trace_ids absent, short and longer than the trace caches hold; parents
// just before, far before and after the child in its log, in another log,
// in another trace, nowhere, and the event's own span.
func genCollectorRun(seed uint64, files []string, per int) map[string][]collRec {
	r := rand.New(rand.NewPCG(seed, 7))
	uuid := func() string {
		s := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16)
		if r.IntN(3) == 0 {
			s = strings.ToUpper(s)
		}
		return s
	}
	traces := make([]string, 400)
	for i := range traces {
		traces[i] = fmt.Sprintf("trace-%d", i)
		if i%9 == 0 {
			traces[i] = fmt.Sprintf("trace-%d-with-a-name-longer-than-the-trace-caches-hold", i)
		}
	}
	type pos struct{ f, i int }
	byTrace := map[string][]pos{}
	out := map[string][]collRec{}
	for f, name := range files {
		recs := make([]collRec, per)
		for i := range recs {
			rec := &recs[i]
			switch k := r.IntN(20); {
			case k == 0 && i > 0:
				rec.id = recs[max(0, i-1-r.IntN(5))].id
			case k == 1 && i > 0:
				rec.id = recs[r.IntN(i)].id
			case k == 2:
				rec.id = "00000000-0000-0000-0000-000000000000"
			case k == 3:
				rec.id = fmt.Sprintf("evt-%d", r.IntN(30))
			default:
				rec.id = uuid()
			}
			if r.IntN(2) == 0 {
				rec.id = strings.ToLower(rec.id)
			} else if r.IntN(2) == 0 {
				rec.id = strings.ToUpper(rec.id)
			}
			if r.IntN(12) > 0 {
				rec.trace = traces[(i/8+r.IntN(40)+f*50)%len(traces)]
			}
			switch k := r.IntN(10); {
			case k < 4:
				rec.span = fmt.Sprintf("s%d-%d", f, i)
			case k < 7:
				rec.span = fmt.Sprintf("%016x", r.Uint64())
			case k == 7:
				rec.span = fmt.Sprintf("%016X", r.Uint64())
			case k == 8:
				rec.span = fmt.Sprintf("span-with-a-long-name-%d-%d", f, i)
			default:
				if ps := byTrace[rec.trace]; len(ps) > 0 {
					p := ps[r.IntN(len(ps))]
					if p.f == f {
						rec.span = recs[p.i].span
					} else {
						rec.span = out[files[p.f]][p.i].span
					}
				} else {
					rec.span = fmt.Sprintf("s%d-%d", f, i)
				}
			}
			byTrace[rec.trace] = append(byTrace[rec.trace], pos{f, i})
		}
		out[name] = recs
	}
	at := func(p pos) collRec { return out[files[p.f]][p.i] }
	for f, name := range files {
		recs := out[name]
		for i := range recs {
			rec := &recs[i]
			ps := byTrace[rec.trace]
			pick := func(ok func(p pos) bool) string {
				for range 8 {
					if p := ps[r.IntN(len(ps))]; ok(p) {
						return at(p).span
					}
				}
				return fmt.Sprintf("nowhere-%d", r.IntN(100))
			}
			switch r.IntN(12) {
			case 0, 1:
			case 2:
				rec.parent = rec.span
			case 3, 4:
				rec.parent = pick(func(p pos) bool { return p.f == f && p.i < i && p.i >= i-20 })
			case 5, 6:
				rec.parent = pick(func(p pos) bool { return p.f == f && p.i < i-100 })
			case 7:
				rec.parent = pick(func(p pos) bool { return p.f == f && p.i > i })
			case 8:
				rec.parent = pick(func(p pos) bool { return p.f != f })
			case 9:
				rec.parent = fmt.Sprintf("nowhere-%d", r.IntN(100))
			case 10:
				rec.parent = at(pos{r.IntN(len(files)), r.IntN(per)}).span
			default:
				rec.parent = fmt.Sprintf("a-parent-that-is-nowhere-%d", r.IntN(100))
			}
		}
	}
	return out
}

// collectorJSONL writes recs as valid collector events (but for event_ids
// that are not UUIDs).
func collectorJSONL(recs []collRec) []byte {
	var b bytes.Buffer
	for _, c := range recs {
		fmt.Fprintf(&b, `{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T09:00:00.000Z","agent_id":"@a","event_id":%q,"correlation":{`, c.id)
		sep := ""
		for _, m := range [][2]string{{"trace_id", c.trace}, {"span_id", c.span}, {"parent_span_id", c.parent}} {
			if m[1] != "" {
				fmt.Fprintf(&b, `%s%q:%q`, sep, m[0], m[1])
				sep = ","
			}
		}
		b.WriteString("}}\n")
	}
	return b.Bytes()
}

// isUUID reports whether s has the 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) {
			return false
		}
	}
	return true
}

// collectorModel returns the CL100 and CL101 findings of a run of the
// logs order (paths in logs) as "file:line:rule", sorted: CL100 an
// event_id seen before in the same log (UUIDs without case, other strings
// as written), CL101 a valid event whose parent_span_id is its own span_id
// or names no span_id of its trace in any log of the run.
func collectorModel(order []string, logs map[string][]collRec) []string {
	spans := map[[2]string]bool{}
	for _, name := range order {
		for _, c := range logs[name] {
			spans[[2]string{c.trace, c.span}] = true
		}
	}
	var want []string
	for _, name := range order {
		seen := map[string]bool{}
		for i, c := range logs[name] {
			key := "raw:" + c.id
			if isUUID(c.id) {
				key = strings.ToLower(c.id)
			}
			if seen[key] {
				want = append(want, fmt.Sprintf("%s:%d:CL100", name, i+1))
			}
			seen[key] = true
			if c.parent != "" && isUUID(c.id) && (c.parent == c.span || !spans[[2]string{c.trace, c.parent}]) {
				want = append(want, fmt.Sprintf("%s:%d:CL101", name, i+1))
			}
		}
	}
	slices.Sort(want)
	return want
}

// lintCollector lints inputs as collector logs and returns the output (JSON
// Lines) and its CL100 and CL101 findings as "file:line:rule", sorted.
func lintCollector(t *testing.T, inputs []lint.Input, jobs int) ([]byte, []string) {
	t.Helper()
	var out bytes.Buffer
	_, err := lint.Lint(func(yield func(lint.Input) bool) {
		for _, in := range inputs {
			if !yield(in) {
				return
			}
		}
	}, lint.LintConfig{Jobs: jobs, ChunkSize: 8 << 10, Out: &out, Render: (&output.JSON{}).AppendRecord,
		Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var env struct {
			Details struct {
				File       string `json:"file"`
				Violations []struct {
					Rule string `json:"rule"`
					Line int    `json:"line"`
				} `json:"violations"`
			} `json:"details"`
		}
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		for _, v := range env.Details.Violations {
			if v.Rule == "CL100" || v.Rule == "CL101" {
				got = append(got, fmt.Sprintf("%s:%d:%s", filepath.Base(env.Details.File), v.Line, v.Rule))
			}
		}
	}
	slices.Sort(got)
	return out.Bytes(), got
}

// TestCollectorIDsOnDisk: with CL100 and CL101 keeping only 16 UUIDs,
// spans and trace_ids in memory (the rest in sorted runs on disk, merged,
// behind a Bloom filter for CL100; CL101's pending references in a
// temporary file, decided by the merge join; trace_ids and long span_ids
// in paged sets of one page), a run writes byte for byte what it writes
// with everything in memory, and both agree with a plain model with Go
// maps: per-agent logs whose parents are in other logs, a log linted
// twice, standard input, one and two workers; and so does a run whose
// temporary files cannot be created (the state stays in memory). No
// temporary file is left.
func TestCollectorIDsOnDisk(t *testing.T) {
	dir := t.TempDir()
	files := []string{"agent-a.jsonl", "agent-b.jsonl", "agent-c.jsonl"}
	logs := genCollectorRun(1, files, 1500)
	paths := map[string]string{}
	for _, name := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], collectorJSONL(logs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	coll := kind.Lookup("collector/event")
	for _, tc := range []struct {
		name  string
		order []string
		stdin bool
	}{
		{"per-agent logs", files, false},
		{"a log linted twice", []string{files[0], files[1], files[0], files[2]}, false},
		{"standard input", files[:1], true},
	} {
		var inputs []lint.Input
		for _, name := range tc.order {
			in := lint.Input{Path: paths[name], Kind: coll}
			if tc.stdin {
				in = lint.Input{Path: "-", Reader: bytes.NewReader(collectorJSONL(logs[name])), Kind: coll}
			}
			inputs = append(inputs, in)
		}
		want := collectorModel(tc.order, logs)
		if tc.stdin {
			for i, w := range want {
				want[i] = "-" + w[strings.IndexByte(w, ':'):]
			}
		}
		if n100, n101 := countRule(want, "CL100"), countRule(want, "CL101"); n100 < 100 || n101 < 500 {
			t.Fatalf("%s: the model expects only %d CL100 and %d CL101 findings", tc.name, n100, n101)
		}
		for _, jobs := range []int{1, 2} {
			memOut, memGot := lintCollector(t, rewind(inputs), jobs)
			if !slices.Equal(memGot, want) {
				t.Errorf("%s, -j %d, in memory: %d findings, the model %d\n%s", tc.name, jobs, len(memGot), len(want), firstDiff(memGot, want))
			}
			tmp := t.TempDir()
			// On disk, and with a directory where no temporary file can be
			// made (everything stays in memory, past the limits).
			for _, d := range []string{tmp, filepath.Join(tmp, "missing")} {
				restore := rules.SetCollectorLimits(16, 1, d)
				diskOut, diskGot := lintCollector(t, rewind(inputs), jobs)
				restore()
				if !slices.Equal(diskGot, want) {
					t.Errorf("%s, -j %d, %s: %d findings, the model %d\n%s", tc.name, jobs, d, len(diskGot), len(want), firstDiff(diskGot, want))
				}
				if !bytes.Equal(memOut, diskOut) {
					t.Errorf("%s, -j %d, %s: the output differs (%d bytes, in memory %d)", tc.name, jobs, d, len(diskOut), len(memOut))
				}
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("%s: %d files left in the temporary directory", tc.name, len(ents))
			}
		}
	}
}

// rewind returns inputs with readers at their start again.
func rewind(inputs []lint.Input) []lint.Input {
	out := slices.Clone(inputs)
	for i, in := range out {
		if r, ok := in.Reader.(*bytes.Reader); ok {
			r.Seek(0, io.SeekStart)
		}
		out[i] = in
	}
	return out
}

func countRule(fs []string, rule string) int {
	n := 0
	for _, f := range fs {
		if strings.HasSuffix(f, ":"+rule) {
			n++
		}
	}
	return n
}

// firstDiff describes the first finding in one list and not the other.
func firstDiff(got, want []string) string {
	g, w := map[string]int{}, map[string]int{}
	for _, x := range got {
		g[x]++
	}
	for _, x := range want {
		w[x]++
	}
	for _, x := range want {
		if g[x] < w[x] {
			return "missing " + x
		}
	}
	for _, x := range got {
		if w[x] < g[x] {
			return "extra " + x
		}
	}
	return ""
}
