package replay

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules"
)

// TestGolden replays every testdata/replay/golden/*.txtar archive (one per
// rule D1-D5 and per check after the last delta) and compares the envelope
// with its want.json and the emitted ledger with its ledger.json (absent:
// no ledger is written). -update rewrites both.
func TestGolden(t *testing.T) {
	for _, path := range goldenFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			a := readArchive(t, path)
			opts, base, streams := archiveInputs(t, a)
			res := replayFiles(t, opts, base, streams...)
			got := envelopeJSON(t, res.Envelope)
			ledger := ledgerBytes(t, res)
			if *update {
				writeSection(a, "want.json", got)
				a.Files = slices.DeleteFunc(a.Files, func(f txtar.File) bool { return f.Name == "ledger.json" })
				if ledger != nil {
					writeSection(a, "ledger.json", ledger)
				}
				writeArchive(t, path, a)
				return
			}
			var want, wantLedger []byte
			for _, f := range a.Files {
				switch f.Name {
				case "want.json":
					want = f.Data
				case "ledger.json":
					wantLedger = f.Data
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("envelope differs (go test -run TestGolden -update rewrites it)\n got: %s\nwant: %s", got, want)
			}
			if !bytes.Equal(ledger, wantLedger) {
				t.Errorf("emitted ledger differs\n got: %s\nwant: %s", ledger, wantLedger)
			}
			if ledger != nil {
				// The emitted ledger is a valid operator/reconcile document.
				if errs := validateAs("operator/reconcile", ledger); len(errs) > 0 {
					t.Errorf("emitted ledger does not validate: %v", errs)
				}
			}
		})
	}
}

// TestRuleExamples replays every replay rule's failing example (it must
// report that rule) and passing example (it must not).
func TestRuleExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.ExampleKind != rules.ReplayKind {
			continue
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			for _, c := range []struct {
				doc  string
				want bool
			}{{r.Example, true}, {r.Fixed, false}} {
				opts, base, streams := archiveInputs(t, txtar.Parse([]byte(c.doc)))
				res := replayFiles(t, opts, base, streams...)
				if got := hasRule(res.Envelope, r.ID); got != c.want {
					t.Errorf("has %s = %v, want %v; violations %v\n%s", r.ID, got, c.want, rulesOf(res.Envelope), c.doc)
				}
				if c.want && res.Envelope.Code != r.Code {
					t.Errorf("failing example's code = %s, want %s", res.Envelope.Code, r.Code)
				}
				if !c.want && !res.Envelope.Allow {
					t.Errorf("passing example denies: %s %v", res.Envelope.Code, rulesOf(res.Envelope))
				}
			}
		})
	}
	if n < 8 {
		t.Fatalf("only %d replay rules have examples", n)
	}
}

// statuses are the six task states of seed 001.
var statuses = []string{"todo", "in_progress", "blocked", "done", "failed", "canceled"}

// legalEdges is the task state machine of cue/README.md, written out
// here independently of rules.Transition: every edge besides the self-loops.
var legalEdges = map[string][]string{
	"todo":        {"in_progress", "blocked", "failed", "canceled"},
	"in_progress": {"done", "blocked", "failed", "canceled"},
	"blocked":     {"todo", "in_progress", "failed", "canceled"},
}

// machineBase is a ledger whose task T-1 is from (owned by agent-1) and
// depends on T-9, which is dep.
func machineBase(from, dep string) txtar.File {
	return txtar.File{Name: "base.jsonl", Data: fmt.Appendf(nil,
		`{"task_id": "T-9", "status": %q, "owner": "agent-9"}
{"task_id": "T-1", "status": %q, "owner": "agent-1", "dependencies": ["T-9"]}
`, dep, from)}
}

func machineDelta(to, owner string) txtar.File {
	return txtar.File{Name: "stream.jsonl", Data: fmt.Appendf(nil,
		`{"task_id": "T-1", "status": %q, "owner": %q, "reason": "test", "delta_id": "d-1"}`+"\n", to, owner)}
}

// TestStateMachineEdges applies one delta for every (from, to) pair of
// statuses: a legal edge or a self-loop is applied, every other pair is
// RP003 (INVALID_TRANSITION) naming from and to, and the task keeps its
// status.
func TestStateMachineEdges(t *testing.T) {
	for _, from := range statuses {
		for _, to := range statuses {
			legal := from == to || slices.Contains(legalEdges[from], to)
			t.Run(from+"->"+to, func(t *testing.T) {
				res := replayFiles(t, Options{}, machineBase(from, "done"), machineDelta(to, "agent-1"))
				e := res.Envelope
				final := e.Details["tasks"].(map[string]any)["T-1"]
				if legal {
					if !e.Allow || final != to || res.Counts.Applied != 1 {
						t.Fatalf("legal %s -> %s: allow=%v code=%s final=%v applied=%d %v", from, to, e.Allow, e.Code, final, res.Counts.Applied, rulesOf(e))
					}
					return
				}
				if e.Allow || e.Code != envelope.InvalidTransition || e.Details["rule"] != "RP003" || final != from || res.Counts.Rejected != 1 {
					t.Fatalf("illegal %s -> %s: allow=%v code=%s rule=%v final=%v %v", from, to, e.Allow, e.Code, e.Details["rule"], final, rulesOf(e))
				}
				v := e.Details["violations"].([]envelope.Violation)[0]
				if v.Extra["from"] != from || v.Extra["to"] != to || v.Pointer != "/status" || v.Line != 1 ||
					!strings.Contains(v.Reason, "from "+from+" to "+to) {
					t.Errorf("violation does not name the edge: %+v", v)
				}
			})
		}
	}
}

// TestStateMachineConditions covers the conditions besides the edges: a
// terminal self-loop may not change owner (RP004); a non-terminal refresh
// may; entering in_progress needs an owner (RP005) and every dependency
// done (RP006).
func TestStateMachineConditions(t *testing.T) {
	cases := []struct {
		name, from, dep, to, owner string
		want                       []string // rules, or nil: applied
	}{
		{"done keeps its owner", "done", "done", "done", "agent-1", nil},
		{"done changes owner", "done", "done", "done", "agent-2", []string{"RP004"}},
		{"failed changes owner", "failed", "done", "failed", "agent-2", []string{"RP004"}},
		{"canceled changes owner", "canceled", "done", "canceled", "", []string{"RP004"}},
		{"canceled is never reopened", "canceled", "done", "todo", "agent-1", []string{"RP003"}},
		{"todo owner change is a refresh", "todo", "todo", "todo", "agent-2", nil},
		{"in_progress owner change is a refresh", "in_progress", "done", "in_progress", "agent-2", nil},
		{"todo to in_progress without owner", "todo", "done", "in_progress", " ", []string{"RP005"}},
		{"blocked to in_progress without owner", "blocked", "done", "in_progress", "", []string{"RP005"}},
		{"todo to in_progress, dependency todo", "todo", "todo", "in_progress", "agent-1", []string{"RP006"}},
		{"blocked to in_progress, dependency failed", "blocked", "failed", "in_progress", "agent-1", []string{"RP006"}},
		{"no owner and dependency not done", "todo", "blocked", "in_progress", "", []string{"RP005", "RP006"}},
		{"todo to blocked, dependency todo", "todo", "todo", "blocked", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := replayFiles(t, Options{}, machineBase(c.from, c.dep), machineDelta(c.to, c.owner))
			var got []string
			for _, r := range rulesOf(res.Envelope) {
				got = append(got, strings.Fields(r)[0])
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("rules = %v, want %v", got, c.want)
			}
			final := res.Envelope.Details["tasks"].(map[string]any)["T-1"]
			if c.want == nil && (final != c.to || res.Counts.Applied != 1) {
				t.Errorf("not applied: final %v, counts %+v", final, res.Counts)
			}
			if c.want != nil && (final != c.from || res.Counts.Rejected != 1) {
				t.Errorf("not rejected once: final %v, counts %+v", final, res.Counts)
			}
		})
	}
}

// TestLongStreamPositions: JSON Lines deltas are validated in batches; a
// syntax error (line 150, in the first batch) and a schema error (line 280,
// in the second) are still reported at their own lines and columns, blank
// lines included in the count, and nothing is applied.
func TestLongStreamPositions(t *testing.T) {
	var b strings.Builder
	line := 0
	for i := range 300 {
		line++
		switch {
		case line == 100:
			b.WriteString("\n") // a blank line: lines and record positions differ from here
			line++
		}
		switch line {
		case 150:
			fmt.Fprintf(&b, `{"task_id": "T-1", "status": "blocked", "owner": "", "reason": "r", "delta_id": "d-%d",}`+"\n", i)
		case 280:
			fmt.Fprintf(&b, `{"task_id": "T-1", "status": "blocked", "reason": "r", "delta_id": "d-%d"}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"task_id": "T-1", "status": "blocked", "owner": "", "reason": "r", "delta_id": "d-%d"}`+"\n", i)
		}
	}
	res := replayFiles(t, Options{}, machineBase("todo", "done"), txtar.File{Name: "s.jsonl", Data: []byte(b.String())})
	vs := res.Envelope.Details["violations"].([]envelope.Violation)
	var got []string
	for _, v := range vs {
		got = append(got, fmt.Sprintf("%s %s %d:%d", v.Rule, v.Pointer, v.Line, v.Column))
	}
	want := []string{"AL001  150:88", "AL002 /owner 280:1"} // 88: the trailing comma, as validate reports it
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	if _, ok := res.Envelope.Details["applied"]; ok {
		t.Errorf("an invalid stream still counts applied deltas: %v", res.Envelope.Details)
	}
}

// TestLongFirstLine: a JSON Lines stream whose first delta is longer than
// the detection buffer is still read as JSON Lines.
func TestLongFirstLine(t *testing.T) {
	pad := strings.Repeat("x", 200<<10)
	stream := `{"task_id": "T-1", "status": "blocked", "owner": "", "reason": "r", "delta_id": "d-1", "x_pad": "` + pad + `"}` + "\n" +
		`{"task_id": "T-1", "status": "todo", "owner": "", "reason": "r", "delta_id": "d-2"}` + "\n"
	res := replayFiles(t, Options{}, machineBase("todo", "done"), txtar.File{Name: "s.jsonl", Data: []byte(stream)})
	if !res.Envelope.Allow || res.Counts.Applied != 2 || res.Envelope.Details["streams"].([]any)[0].(map[string]any)["form"] != string(FormDeltaLines) {
		t.Fatalf("%s %v %+v", res.Envelope.Code, rulesOf(res.Envelope), res.Counts)
	}
}

// TestManyBatchesInOrder: a stream of many batches (validated and decoded by
// workers, applied in order) gives the verdict a delta-by-delta replay
// gives: D2 against a delta several batches back (skip and RP002 with the
// first delta's position), a state-machine rejection, every finding at its
// own line with blank lines counted, and the counts.
func TestManyBatchesInOrder(t *testing.T) {
	const n = 3000
	var b strings.Builder
	line, lines := 0, map[int]int{} // delta position → line
	for i := range n {
		if i%700 == 699 {
			b.WriteString("\n")
			line++
		}
		line++
		lines[i] = line
		id, status, reason := fmt.Sprintf("d-%d", i), "blocked", fmt.Sprintf("r%d", i)
		if i%2 == 1 {
			status = "todo"
		}
		switch i {
		case 2100: // the same id and content as delta 10: skipped (D2)
			id, status, reason = "d-10", "blocked", "r10"
		case 2500: // the id of delta 20 with other content: RP002
			id = "d-20"
		case 2800: // T-1 is blocked (delta 2799 is odd: todo; 2798 blocked): todo → done is forbidden
			status = "done"
		}
		fmt.Fprintf(&b, `{"task_id": "T-1", "status": %q, "owner": "", "reason": %q, "delta_id": %q}`+"\n", status, reason, id)
	}
	res := replayFiles(t, Options{}, machineBase("todo", "done"), txtar.File{Name: "s.jsonl", Data: []byte(b.String())})
	var got []string
	for _, v := range res.Envelope.Details["violations"].([]envelope.Violation) {
		got = append(got, fmt.Sprintf("%s %d %v %v", v.Rule, v.Line, v.Extra["delta_index"], v.Extra["first_delta_index"]))
	}
	want := []string{
		fmt.Sprintf("RP002 %d 2500 20", lines[2500]),
		fmt.Sprintf("RP003 %d 2800 <nil>", lines[2800]),
	}
	slices.Sort(got) // the envelope orders violations by code
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	if c := res.Counts; c.Deltas != n || c.SkippedDuplicates != 1 || c.Rejected != 2 || c.Applied != n-3 {
		t.Errorf("counts %+v", c)
	}
}
