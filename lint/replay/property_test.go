package replay

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"pgregory.net/rapid"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Property tests (pgregory.net/rapid): random ledgers and delta streams,
// mostly following the state machine, with duplicates, reused ids, unknown
// tasks, create-intent deltas and dependencies.

var owners = []string{"", "agent-1", "agent-2"}

// genTask is one generated ledger row.
type genTask struct {
	id, status, owner string
	deps              []string
}

// genBase draws a valid BASE of 1-5 tasks in one of the four forms. Tasks
// are named prefix-1, prefix-2, ... with prefix "T" unless given.
func genBase(t *rapid.T) (txtar.File, []genTask) {
	n := rapid.IntRange(1, 5).Draw(t, "tasks")
	var tasks []genTask
	for i := 1; i <= n; i++ {
		g := genTask{id: fmt.Sprintf("T-%d", i), status: rapid.SampledFrom(statuses).Draw(t, "status"), owner: rapid.SampledFrom(owners).Draw(t, "owner")}
		if g.status == "in_progress" && g.owner == "" {
			g.owner = "agent-1"
		}
		for _, d := range tasks {
			// A started or done task's dependencies are done (OP053).
			if rapid.Bool().Draw(t, "dep") && (d.status == "done" || (g.status != "in_progress" && g.status != "done")) {
				g.deps = append(g.deps, d.id)
			}
		}
		tasks = append(tasks, g)
	}
	form := rapid.SampledFrom([]Form{FormRowArray, FormRowLines, FormReconcile, FormHandoff}).Draw(t, "form")
	handoff := form == FormHandoff
	var rows, edges []string
	for _, g := range tasks {
		deps := g.deps
		if handoff && len(deps) > 0 && rapid.Bool().Draw(t, "dependencies array") {
			for _, d := range deps {
				edges = append(edges, fmt.Sprintf(`{"task_id": %q, "depends_on_task_id": %q}`, g.id, d))
			}
			deps = nil
		}
		row := fmt.Sprintf(`{"task_id": %q, "status": %q, "owner": %q, "dependencies": [%s]`, g.id, g.status, g.owner, quoteList(deps))
		if handoff {
			row += fmt.Sprintf(`, "title": "task %s", "lock_scope": ["src/%s"], "timeout_seconds": 1200, "heartbeat_interval_seconds": 120, "priority": "normal"`, g.id, g.id)
		}
		if rapid.Bool().Draw(t, "heartbeat") {
			row += `, "last_heartbeat_at": "2026-02-14T19:50:00Z"`
		}
		rows = append(rows, row+"}")
	}
	var data string
	switch form {
	case FormRowArray:
		data = "[\n" + strings.Join(rows, ",\n") + "\n]\n"
	case FormRowLines:
		data = strings.Join(rows, "\n") + "\n"
	case FormReconcile:
		data = `{"ledger": [` + strings.Join(rows, ",\n") + `], "active_locks": [{"task_id": "T-1", "resource": "src", "active": false}]}`
	case FormHandoff:
		data = `{"schema_version": "1.0.0", "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4", "objective": "o", "constraints": {},
"ledger": [` + strings.Join(rows, ",\n") + `], "active_locks": [], "dependencies": [` + strings.Join(edges, ", ") +
			`], "open_blockers": [], "acceptance_targets": []}`
	}
	return txtar.File{Name: "base.json", Data: []byte(data)}, tasks
}

func quoteList(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}

// genDeltas draws a stream of deltas (JSON Lines) over tasks (and two
// unknown tasks), mostly legal moves from the status the generator tracks.
// Delta ids are prefix-1, prefix-2, ...; some deltas repeat an earlier one
// exactly, a few reuse an id with other content.
func genDeltas(t *rapid.T, tasks []genTask, unknown []string, prefix string) []string {
	status := map[string]string{}
	ids := slices.Clone(unknown)
	for _, g := range tasks {
		status[g.id] = g.status
		ids = append(ids, g.id)
	}
	n := rapid.IntRange(0, 12).Draw(t, "deltas")
	var out []string
	for i := 0; i < n; i++ {
		if len(out) > 0 && rapid.IntRange(0, 9).Draw(t, "repeat") == 0 {
			out = append(out, rapid.SampledFrom(out).Draw(t, "repeated"))
			continue
		}
		task := rapid.SampledFrom(ids).Draw(t, "task")
		cur, known := status[task]
		to := rapid.SampledFrom(statuses).Draw(t, "to")
		if !known && rapid.IntRange(0, 3).Draw(t, "create") > 0 {
			to = "todo"
		} else if known && rapid.IntRange(0, 4).Draw(t, "legal") > 0 {
			to = rapid.SampledFrom(append([]string{cur}, legalEdges[cur]...)).Draw(t, "legal to")
		}
		owner := rapid.SampledFrom(owners).Draw(t, "owner")
		if to == "in_progress" && rapid.IntRange(0, 4).Draw(t, "owned") > 0 {
			owner = "agent-1"
		}
		id := fmt.Sprintf("%s-%d", prefix, i)
		if i > 0 && rapid.IntRange(0, 19).Draw(t, "reuse id") == 0 {
			id = fmt.Sprintf("%s-%d", prefix, rapid.IntRange(0, i-1).Draw(t, "reused"))
		}
		d := fmt.Sprintf(`{"task_id": %q, "status": %q, "owner": %q, "reason": "r%d", "delta_id": %q`, task, to, owner, i, id)
		switch rapid.IntRange(0, 5).Draw(t, "optional") {
		case 0:
			d += `, "last_heartbeat_at": "2026-02-14T19:5` + fmt.Sprint(i%10) + `:00Z"`
		case 1:
			d += fmt.Sprintf(`, "retry_after_ms": %d, "timed_out": true`, i*100)
		}
		out = append(out, d+"}")
		if !known && to == "todo" {
			known = true
		}
		if known {
			status[task] = to
		}
	}
	return out
}

func jsonl(name string, lines []string) txtar.File {
	data := strings.Join(lines, "\n")
	if len(lines) > 0 {
		data += "\n"
	}
	return txtar.File{Name: name, Data: []byte(data)}
}

// verdictOf is what the properties compare: allow, code, the violations
// (rule, task_id and, withDelta, delta_id) and the final statuses.
func verdictOf(e envelope.Envelope, withDelta bool) string {
	vs, _ := e.Details["violations"].([]envelope.Violation)
	var parts []string
	for _, v := range vs {
		p := fmt.Sprintf("%s/%v", v.Rule, v.Extra["task_id"])
		if withDelta {
			p += fmt.Sprintf("/%v", v.Extra["delta_id"])
		}
		parts = append(parts, p)
	}
	slices.Sort(parts)
	return fmt.Sprintf("%v %s %v tasks=%v", e.Allow, e.Code, parts, e.Details["tasks"])
}

// TestPropertyTwiceIsOnce (D2): replaying a stream followed by itself gives
// the verdict, violations and ledger of replaying it once; the second copy
// is skipped whole.
func TestPropertyTwiceIsOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, tasks := genBase(t)
		s := genDeltas(t, tasks, []string{"T-8", "T-9"}, "d")
		once := replayFiles(t, Options{}, base, jsonl("s.jsonl", s))
		twice := replayFiles(t, Options{}, base, jsonl("s.jsonl", append(slices.Clone(s), s...)))
		if a, b := envelopeJSON(t, once.Envelope), envelopeJSON(t, twice.Envelope); !bytes.Equal(stripCounts(a), stripCounts(b)) {
			t.Fatalf("verdicts differ\nonce:  %s\ntwice: %s", a, b)
		}
		if want := once.Counts.SkippedDuplicates + once.Counts.Deltas; twice.Counts.SkippedDuplicates != want || twice.Counts.Applied != once.Counts.Applied {
			t.Fatalf("counts: once %+v, twice %+v", once.Counts, twice.Counts)
		}
		if !bytes.Equal(ledgerBytes(t, once), ledgerBytes(t, twice)) {
			t.Fatal("ledgers differ")
		}
	})
}

// stripCounts blanks the count members of an envelope's JSON.
func stripCounts(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		t := bytes.TrimSpace(l)
		if bytes.HasPrefix(t, []byte(`"deltas"`)) || bytes.HasPrefix(t, []byte(`"skipped_duplicates"`)) || bytes.HasPrefix(t, []byte(`"reason"`)) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte{'\n'})
}

// TestPropertySplitIsOne (D1): replaying a stream's first part, then the
// rest against the emitted ledger, ends where replaying the whole stream
// ends: same verdict, violations, statuses and ledger.
func TestPropertySplitIsOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, tasks := genBase(t)
		s := genDeltas(t, tasks, []string{"T-8", "T-9"}, "d")
		k := rapid.IntRange(0, len(s)).Draw(t, "split")
		first := replayFiles(t, Options{}, base, jsonl("s.jsonl", s[:k]))
		if !first.Envelope.Allow {
			return // no ledger to continue from
		}
		mid := txtar.File{Name: "mid.json", Data: ledgerBytes(t, first)}
		second := replayFiles(t, Options{}, mid, jsonl("s.jsonl", s[k:]))
		whole := replayFiles(t, Options{}, base, jsonl("s.jsonl", s))
		if a, b := verdictOf(second.Envelope, true), verdictOf(whole.Envelope, true); a != b {
			t.Fatalf("split at %d: %s\nwhole: %s", k, a, b)
		}
		if !bytes.Equal(ledgerBytes(t, second), ledgerBytes(t, whole)) {
			t.Fatalf("ledgers differ\nsplit: %s\nwhole: %s", ledgerBytes(t, second), ledgerBytes(t, whole))
		}
	})
}

// TestPropertyPermuteStreams (D5): the order of two streams never changes
// the verdict; independent streams (disjoint tasks and ids) never conflict
// and give the same ledger in either order.
func TestPropertyPermuteStreams(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, tasks := genBase(t)
		independent := rapid.Bool().Draw(t, "independent")
		ta, tb := tasks, tasks
		ua, ub := []string{"T-8"}, []string{"T-8", "T-9"}
		if independent {
			ta, tb = nil, nil
			for i, g := range tasks {
				if i%2 == 0 {
					ta = append(ta, g)
				} else {
					tb = append(tb, g)
				}
			}
			ua, ub = []string{"T-8"}, []string{"T-9"}
		}
		a := jsonl("a.jsonl", genDeltas(t, ta, ua, "a"))
		b := jsonl("b.jsonl", genDeltas(t, tb, ub, "b"))
		ab := replayFiles(t, Options{}, base, a, b)
		ba := replayFiles(t, Options{}, base, b, a)
		if x, y := verdictOf(ab.Envelope, false), verdictOf(ba.Envelope, false); x != y {
			t.Fatalf("a, b: %s\nb, a: %s", x, y)
		}
		if independent {
			if hasRule(ab.Envelope, "RP007") {
				t.Fatalf("independent streams conflict: %v", rulesOf(ab.Envelope))
			}
			if !bytes.Equal(ledgerBytes(t, ab), ledgerBytes(t, ba)) {
				t.Fatalf("ledgers differ\na, b: %s\nb, a: %s", ledgerBytes(t, ab), ledgerBytes(t, ba))
			}
		}
	})
}

// TestPropertyRoundTrip: an emitted ledger is a valid operator/reconcile
// document, and read back as BASE and replayed with no stream it is written
// back byte for byte.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, tasks := genBase(t)
		res := replayFiles(t, Options{}, base, jsonl("s.jsonl", genDeltas(t, tasks, []string{"T-9"}, "d")))
		if !res.Envelope.Allow {
			return
		}
		l1 := ledgerBytes(t, res)
		if errs := validateAs("operator/reconcile", l1); len(errs) > 0 {
			t.Fatalf("emitted ledger does not validate: %v\n%s", errs, l1)
		}
		again := replayFiles(t, Options{}, txtar.File{Name: "l1.json", Data: l1})
		if !again.Envelope.Allow {
			t.Fatalf("emitted ledger denied as BASE: %s", envelopeJSON(t, again.Envelope))
		}
		if l2 := ledgerBytes(t, again); !bytes.Equal(l1, l2) {
			t.Fatalf("round trip changed the ledger\nfirst:  %s\nsecond: %s", l1, l2)
		}
	})
}
