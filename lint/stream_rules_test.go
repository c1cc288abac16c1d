package lint

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// findingsOf lints data as one JSON Lines file of kind and returns the
// violations of the rules ids as "line:RULE" (in output order), plus the
// reasons and details of each, so that tests can check the line they name.
func findingsOf(t *testing.T, kindName, data string, ids ...string) ([]string, []envelope.Violation) {
	t.Helper()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var got []string
	var vs []envelope.Violation
	_, err := lintWithTimeout(t, func(yield func(Input) bool) {
		yield(Input{Path: "log.jsonl", Reader: strings.NewReader(data), Kind: kind.Lookup(kindName)})
	}, LintConfig{Jobs: 2, ChunkSize: 512, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
		Emit: func(e envelope.Envelope) error {
			all, _ := e.Details["violations"].([]envelope.Violation)
			for _, v := range all {
				if want[v.Rule] {
					got = append(got, fmt.Sprintf("%d:%s", v.Line, v.Rule))
					vs = append(vs, v)
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return got, vs
}

// lines joins records into a JSON Lines text.
func lines(recs ...string) string { return strings.Join(recs, "\n") + "\n" }

// collectorRec is a valid collector event; extra is inserted before
// "agent_id" (ids, correlation), ts is the seconds of 2026-02-14T09:00.
func collectorRec(sec int, extra string) string {
	return fmt.Sprintf(`{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T09:00:%02d.000Z",%s"agent_id":"@a"}`, sec, extra)
}

func uuid(n int) string { return fmt.Sprintf(`"event_id":"6f1c2a3e-0b4d-4c8e-9a71-%012d",`, n) }

func span(trace, id, parent string) string {
	s := `"correlation":{`
	if trace != "" {
		s += `"trace_id":"` + trace + `",`
	}
	s += `"span_id":"` + id + `"`
	if parent != "" {
		s += `,"parent_span_id":"` + parent + `"`
	}
	return s + "},"
}

type streamCase struct {
	name string
	data string
	want []string
}

func runStreamCases(t *testing.T, kindName string, ids []string, cases []streamCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := findingsOf(t, kindName, c.data, ids...)
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("got %v, want %v\n%s", got, c.want, c.data)
			}
		})
	}
}

func TestCollectorStreamRules(t *testing.T) {
	badTS := strings.Replace(collectorRec(9, uuid(1)), "T09:00:09", " 09:00:09", 1)
	runStreamCases(t, "collector/event", []string{"CL100", "CL101", "CL102"}, []streamCase{
		{"unique ids", lines(collectorRec(1, uuid(1)), collectorRec(2, uuid(2)), collectorRec(3, "")), nil},
		{"duplicate id", lines(collectorRec(1, uuid(1)), collectorRec(2, uuid(2)), collectorRec(3, uuid(1))), []string{"3:CL100"}},
		{"UUIDs compare without case", lines(collectorRec(1, `"event_id":"6F1C2A3E-0B4D-4C8E-9A71-00000000000A",`), collectorRec(2, `"event_id":"6f1c2a3e-0b4d-4c8e-9a71-00000000000a",`)), []string{"2:CL100"}},
		// The invalid first record still registers its id: the repeat is a duplicate.
		{"invalid record registers its id", lines(badTS, collectorRec(10, uuid(1))), []string{"2:CL100"}},
		{"non-UUID ids compare as written", lines(collectorRec(1, `"event_id":"x",`), collectorRec(2, `"event_id":"x",`), collectorRec(3, `"event_id":"X",`)), []string{"2:CL100"}},
		{"parents seen earlier", lines(collectorRec(1, span("t", "s1", "")), collectorRec(2, span("t", "s2", "s1")), collectorRec(3, span("t", "s3", "s1"))), nil},
		{"dangling parent", lines(collectorRec(1, span("t", "s1", "")), collectorRec(2, span("t", "s2", "s0"))), []string{"2:CL101"}},
		{"parent of another trace", lines(collectorRec(1, span("t1", "s1", "")), collectorRec(2, span("t2", "s2", "s1"))), []string{"2:CL101"}},
		{"parent logged later resolves", lines(collectorRec(1, span("t", "s2", "s1")), collectorRec(2, span("t", "s1", ""))), nil},
		{"own span is no parent", lines(collectorRec(1, span("t", "s1", "s1"))), []string{"1:CL101"}},
		{"events without trace_id form one trace", lines(collectorRec(1, span("", "s1", "")), collectorRec(2, span("", "s2", "s1")), collectorRec(3, span("t", "s3", "s1"))), []string{"3:CL101"}},
		// No cascade: an invalid event still registers its span.
		{"invalid record registers its span", lines(strings.Replace(collectorRec(1, span("t", "s1", "")), `"1.0.0"`, `"1.0"`, 1), collectorRec(2, span("t", "s2", "s1"))), nil},
		{"invalid record is not checked", lines(strings.Replace(collectorRec(1, span("t", "s2", "s1")), `"1.0.0"`, `"1.0"`, 1)), nil},
		{"time order", lines(collectorRec(5, ""), collectorRec(5, ""), collectorRec(4, ""), collectorRec(6, "")), []string{"3:CL102"}},
		{"invalid timestamp is not compared", lines(collectorRec(5, ""), badTS, collectorRec(6, "")), nil},
	})
}

func TestCollectorDuplicateNamesFirstLine(t *testing.T) {
	_, vs := findingsOf(t, "collector/event", lines(collectorRec(1, uuid(7)), collectorRec(2, ""), collectorRec(3, uuid(7))), "CL100")
	if len(vs) != 1 || vs[0].Extra["first_line"] != 1 || !strings.Contains(vs[0].Reason, "line 1") || vs[0].Pointer != "/event_id" {
		t.Fatalf("got %+v", vs)
	}
}

func TestTimeOrderNamesBothLines(t *testing.T) {
	_, vs := findingsOf(t, "collector/event", lines(collectorRec(8, ""), collectorRec(7, "")), "CL102")
	if len(vs) != 1 || vs[0].Line != 2 || vs[0].Extra["previous_line"] != 1 || vs[0].Severity != envelope.SeverityWarning ||
		!strings.Contains(vs[0].Reason, "09:00:07.000Z is earlier than 2026-02-14T09:00:08.000Z on line 1") {
		t.Fatalf("got %+v", vs)
	}
}

func ledgerRec(agent, ts, session string) string {
	return fmt.Sprintf(`{"ts":"%s","agent":"%s","session_id":"%s","event":"heartbeat","task_id":"system","source":"%s_agent","summary":"Heartbeat","data":{}}`,
		ts, agent, session, agent)
}

func TestLedgerStreamRules(t *testing.T) {
	const d = "2025-11-16"
	at := func(hm string) string { return d + "T" + hm + ":00+07:00" }
	runStreamCases(t, "ledger/entry", []string{"LG100", "LG101"}, []streamCase{
		{"in order", lines(ledgerRec("cls", at("02:00"), d+"_cls_001"), ledgerRec("cls", at("02:00"), d+"_cls_001"), ledgerRec("cls", at("03:00"), d+"_cls_002")), nil},
		// Offsets differ: 02:00+07:00 is 19:00Z of the day before.
		{"ts compared as instants", lines(ledgerRec("cls", at("02:00"), d+"_cls_001"), ledgerRec("cls", d+"T00:00:00Z", d+"_cls_001")), nil},
		{"ts backwards", lines(ledgerRec("cls", at("02:00"), d+"_cls_001"), ledgerRec("cls", at("01:59"), d+"_cls_001")), []string{"2:LG100"}},
		{"counter backwards", lines(ledgerRec("cls", at("02:00"), d+"_cls_002"), ledgerRec("cls", at("02:10"), d+"_cls_001")), []string{"2:LG101"}},
		{"counter backwards after a gap", lines(ledgerRec("cls", at("02:00"), d+"_cls_003"), ledgerRec("cls", at("02:10"), d+"_cls_003"), ledgerRec("cls", at("02:20"), d+"_cls_002")), []string{"3:LG101"}},
		{"agents and dates are separate", lines(ledgerRec("cls", at("02:00"), d+"_cls_002"), ledgerRec("andy", at("02:10"), d+"_andy_001"),
			ledgerRec("cls", "2025-11-17T02:20:00+07:00", "2025-11-17_cls_001")), nil},
		{"agent with underscores", lines(ledgerRec("gg_bot", at("02:00"), d+"_gg_bot_002"), ledgerRec("gg_bot", at("02:10"), d+"_gg_bot_001")), []string{"2:LG101"}},
	})
}

func idleRec(run string, frames ...string) string {
	return fmt.Sprintf(`{"schema":0,"event":"STATE","run_id":"%s","updated_at":"2026-02-14T19:00:00Z","stack":[%s]}`, run, strings.Join(frames, ","))
}

func frame(id string, iter int) string {
	mode, _, _ := strings.Cut(id, "-")
	extra := ""
	switch mode {
	case "grind":
		extra = `,"filter":"label:api"`
	case "issue":
		extra = `,"issue_id":"a-1","worktree_path":"/w","branch":"b","base_ref":"main"`
	}
	return fmt.Sprintf(`{"id":"%s","mode":"%s","iter":%d,"max":20,"prompt_file":"/p"%s}`, id, mode, iter, extra)
}

func TestIdleStreamRules(t *testing.T) {
	const run, run2 = "loop-1-1", "loop-2-2"
	done := `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[]}`
	abort := `{"schema":0,"event":"ABORT","stack":[]}`
	anchor := `{"schema":0,"goal":"g","mode":"loop","iteration":"1/2","progress":"p","modified_files":"","next_step":"n","timestamp":"2026-02-14T19:00:00Z"}`
	runStreamCases(t, "idle/event", []string{"IL100", "IL101"}, []streamCase{
		{"a run and its end", lines(idleRec(run, frame(run, 1)), anchor, idleRec(run, frame(run, 2)), done), nil},
		{"STATE after DONE", lines(idleRec(run, frame(run, 1)), done, idleRec(run, frame(run, 2))), []string{"3:IL100"}},
		{"STATE after ABORT, reported once", lines(idleRec(run, frame(run, 1)), abort, idleRec(run, frame(run, 2)), idleRec(run, frame(run, 3))), []string{"3:IL100"}},
		{"ended again", lines(idleRec(run, frame(run, 1)), done, idleRec(run, frame(run, 2)), done, idleRec(run, frame(run, 3))), []string{"3:IL100", "5:IL100"}},
		{"next run after DONE", lines(idleRec(run, frame(run, 1)), done, idleRec(run2, frame(run2, 1)), done), nil},
		{"DONE ends the latest run only", lines(idleRec(run, frame(run, 1)), idleRec(run2, frame(run2, 1)), done, idleRec(run, frame(run, 2))), nil},
		{"DONE before any STATE", lines(done, idleRec(run, frame(run, 1))), nil},
		{"iter goes back", lines(idleRec(run, frame(run, 3)), idleRec(run, frame(run, 2))), []string{"2:IL101"}},
		{"nested frame goes back", lines(idleRec("grind-1-1", frame("grind-1-1", 1), frame("issue-a-1", 4)), idleRec("grind-1-1", frame("grind-1-1", 1), frame("issue-a-1", 3))), []string{"2:IL101"}},
		{"a new frame starts its own count", lines(idleRec("grind-1-1", frame("grind-1-1", 1), frame("issue-a-1", 4)), idleRec("grind-1-1", frame("grind-1-1", 2), frame("issue-b-1", 1))), nil},
		{"runs are separate", lines(idleRec(run, frame(run, 3)), idleRec(run2, frame(run, 1))), nil},
		{"deep stacks", lines(idleRec(run, frame(run, 1), frame("loop-a", 1), frame("loop-b", 1), frame("loop-c", 9)), idleRec(run, frame(run, 1), frame("loop-a", 1), frame("loop-b", 1), frame("loop-c", 8))), []string{"2:IL101"}},
	})
}

func worklogRec(m int, result, extra string) string {
	return fmt.Sprintf(`{"timestamp":"2026-02-14T19:%02d:00Z","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12","actor":"agent-1","action":"a","files_touched":[],"decision":"d","result":%q,"next_step":"n"%s}`, m, result, extra)
}

func TestWorklogOutcomeRules(t *testing.T) {
	code := `,"code":"DEPENDENCY_NOT_MET"`
	runStreamCases(t, "operator/worklog", []string{"OP081", "OP082"}, []streamCase{
		{"free text is no outcome", lines(worklogRec(1, "2 failed: DELETE returns 200", ""), worklogRec(2, "blocked by review", "")), nil},
		{"blocked with code", lines(worklogRec(1, "blocked", code)), nil},
		{"blocked without code", lines(worklogRec(1, " Blocked ", "")), []string{"1:OP081"}},
		{"failed with an empty next_step", lines(strings.Replace(worklogRec(1, "failed", code), `"next_step":"n"`, `"next_step":" "`, 1)), []string{"1:OP081"}},
		// The blocked entry carries its code and next_step: work goes on,
		// whatever words the later results use (seed 001, Worklog Entry).
		{"blocked with code, then more work", lines(worklogRec(1, "blocked", code), worklogRec(2, "alive", "")), nil},
		{"failed with code, then free-text work", lines(worklogRec(1, "failed", code), worklogRec(2, "added 6 tests", ""), worklogRec(3, "2 failed: DELETE returns 200", "")), nil},
		{"blocked without code, then an entry with code", lines(worklogRec(1, "blocked", ""), worklogRec(2, "alive", code)), []string{"1:OP081"}},
		{"blocked with code but no next_step, then more work", lines(strings.Replace(worklogRec(1, "blocked", code), `"next_step":"n"`, `"next_step":""`, 1), worklogRec(2, "alive", "")), []string{"1:OP081", "2:OP082"}},
		{"blocked, then final entry with code", lines(worklogRec(1, "blocked", code), worklogRec(2, "alive", ""), worklogRec(3, "still blocked", code)), nil},
		{"blocked, then done", lines(worklogRec(1, "blocked", code), worklogRec(2, "in_progress", ""), worklogRec(3, "tests pass", "")), nil},
		{"blocked without code at the end: OP081 only", lines(worklogRec(1, "ok", ""), worklogRec(2, "failed", "")), []string{"2:OP081"}},
		{"both", lines(worklogRec(1, "failed", ""), worklogRec(2, "alive", "")), []string{"1:OP081", "2:OP082"}},
		// An invalid final entry that carries the code ends the log well.
		{"invalid final entry with code", lines(worklogRec(1, "blocked", code), strings.Replace(worklogRec(2, "blocked", code), "T-12", "T12", 1)), nil},
	})
}

// TestCorrelationGroups: the summary counts the distinct trace_ids of every
// collector log of the run (correlation_groups), invalid records included;
// without any, the key is absent.
func TestCorrelationGroups(t *testing.T) {
	a := lines(collectorRec(1, span("t1", "s1", "")), collectorRec(2, span("t2", "s1", "")), collectorRec(3, ""))
	b := lines(strings.Replace(collectorRec(1, span("t3", "s1", "")), `"1.0.0"`, `"1.0"`, 1), collectorRec(2, span("t1", "s2", "s1")))
	lintGroups := func(files ...namedData) any {
		st, err := lintWithTimeout(t, func(yield func(Input) bool) {
			for _, f := range files {
				yield(Input{Path: f.path, Reader: strings.NewReader(f.data), Kind: kind.Lookup("collector/event")})
			}
		}, LintConfig{Jobs: 2, Emit: func(envelope.Envelope) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return st.Summary().Details["correlation_groups"]
	}
	if got := fmt.Sprint(lintGroups(namedData{"a.jsonl", a}, namedData{"b.jsonl", b})); got != "map[trace_id:3]" {
		t.Errorf("correlation_groups = %s, want map[trace_id:3]", got)
	}
	if got := lintGroups(namedData{"c.jsonl", lines(collectorRec(1, ""))}); got != nil {
		t.Errorf("correlation_groups without traces = %v, want absent", got)
	}
}

// TestDeltaIDRepeatNamesFirstLine: OP071 and OP072 (one orchestrator
// output) name the JSON Pointer and the line of the first occurrence.
func TestDeltaIDRepeatNamesFirstLine(t *testing.T) {
	out := func(deltas ...string) string {
		return "{\n\"schema_version\": \"1.0.0\",\n\"run_id\": \"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4\",\n\"ledger_delta\": [\n" +
			strings.Join(deltas, ",\n") + "\n],\n\"assignments\": [], \"active_locks\": [], \"blockers\": [], \"next_actions\": []\n}\n"
	}
	dl := func(id, status string) string {
		return `{"task_id": "T-1", "status": "` + status + `", "owner": "a", "reason": "r", "delta_id": "` + id + `"}`
	}
	for _, c := range []struct {
		rule   string
		deltas []string
	}{
		{"OP071", []string{dl("d-1", "in_progress"), dl("d-2", "in_progress"), dl("d-1", "in_progress")}},
		{"OP072", []string{dl("d-1", "in_progress"), dl("d-2", "in_progress"), dl("d-1", "done")}},
	} {
		vs, _ := record.NewValidator(record.Options{}, nil).Document("operator/orchestrator-output", "out.json", []byte(out(c.deltas...)))
		var got []string
		for _, v := range vs {
			got = append(got, fmt.Sprintf("%s@%d first=%v %v", v.Rule, v.Line, v.Extra["first_line"], v.Extra["first_pointer"]))
		}
		want := c.rule + "@7 first=5 /ledger_delta/0/delta_id"
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: got %v, want [%s]", c.rule, got, want)
		}
	}
}

// TestIdleIterColumn: IL101 points at the iter of the frame that went back.
func TestIdleIterColumn(t *testing.T) {
	second := idleRec("grind-1-1", frame("grind-1-1", 1), frame("issue-a-1", 3))
	_, vs := findingsOf(t, "idle/event", lines(idleRec("grind-1-1", frame("grind-1-1", 1), frame("issue-a-1", 4)), second), "IL101")
	if len(vs) != 1 || vs[0].Pointer != "/stack/1/iter" || vs[0].Extra["previous_line"] != 1 {
		t.Fatalf("got %+v", vs)
	}
	if c := vs[0].Column; c < 1 || !strings.HasPrefix(second[c-1:], `3,"max"`) || strings.Index(second, `"iter":3`)+8 != c {
		t.Errorf("column %d does not point at the iter 3 of frame 1: %s", c, second)
	}
}
