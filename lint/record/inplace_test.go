package record

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules"
)

// Records of the idle and VerMAS logs of bench.GenerateMix, and variants.
const (
	inPlaceState = `{"schema":0,"event":"STATE","run_id":"grind-1771059600-0","updated_at":"2026-02-14T00:00:00.006Z","stack":[` +
		`{"id":"grind-1771059600-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/idle-grind-4242/prompt.txt","filter":"label:api"},` +
		`{"id":"issue-auth-7-0","mode":"issue","iter":2,"max":100,"prompt_file":"/tmp/idle-issue-4242/prompt.txt","issue_id":"auth-7",` +
		`"worktree_path":"/srv/project-a/.worktrees/idle/auth-7","branch":"idle/issue/auth-7","base_ref":"main"}]}`
	inPlaceAnchor   = `{"schema":0,"goal":"Working on issue: auth-123","mode":"issue","iteration":"3/10","progress":"p","modified_files":"m","next_step":"n","timestamp":"2024-12-21T10:30:00Z"}`
	inPlaceAssigned = `{"event_id":"evt-05BgVNOlnTru","event_type":"work_order.assigned","timestamp":"2026-02-14T09:00:00.385Z","actor":"project-a/supervisor",` +
		`"correlation_id":"sprint-9e37","caused_by":"evt-0DaBOThvysi5","data":{"work_order_id":"wo-9e3779b9","agent":"project-a/workers/slot3","assignment_path":".work/.assignment-project-a-workers-slot3"}}`
	inPlaceRead = `{"event_id":"evt-0GBWcJCJ7Opz","event_type":"mail.read","timestamp":"2026-02-14T09:00:32.471Z","actor":"project-a/supervisor",` +
		`"correlation_id":"sprint-78dd","caused_by":"evt-0DRid4dZGd7N","data":{"message_id":"msg-9ccc71e37f","reader":"project-a/supervisor","read_at":"2026-02-14T09:00:32.291Z"}}`
	inPlaceIdle = `{"event_id":"evt-02sePUoS4qNP","event_type":"agent.idle","timestamp":"2026-02-14T09:02:11.679Z","actor":"project-b/workers/slot0",` +
		`"data":{"idle_since":"2026-02-14T09:02:11.599Z","last_activity":"bash"}}`
)

// TestInPlaceAgreesWithDecoded: the idle and VerMAS document rules read a
// record their kind's acceptor accepted in place, without decoding its
// stack or data, and report a defect inside them with the rule, JSON
// Pointer, line, column, reason and details that the decoded record gives;
// a number beyond float64 inside them is still the syntax error that
// decoding reports. Each line is validated with the engine as it runs and
// with in-place reading switched off.
func TestInPlaceAgreesWithDecoded(t *testing.T) {
	r := strings.Replace
	cases := []struct {
		kind, line string
		want       string // the violations' rules and pointers
		inPlace    bool   // read in place (else decoded: a value the decoder must judge)
	}{
		{"idle/event", inPlaceState, "", true},
		{"idle/event", r(inPlaceState, `"iter":2,"max":100`, `"iter":101,"max":100`, 1), "IL015 /stack/1/iter", true},
		{"idle/event", r(inPlaceState, `"iter":2,"max":100`, `"max":100 , "iter" : 101`, 1), "IL015 /stack/1/iter", true},
		{"idle/event", r(inPlaceState, `"run_id":"grind-`, `"run_id":"loop-`, 1), "IL012 /run_id", true},
		{"idle/event", r(inPlaceState, `"run_id":"grind-`, `"run_id":"issue-`, 1), "IL012 /run_id", true},
		{"idle/event", r(inPlaceState, `"mode":"grind"`, `"mode":"gr\u0069nd"`, 1), "", true},
		{"idle/event", r(r(inPlaceState, `"mode":"grind"`, `"mode":"gr\u0069nd"`, 1), `"run_id":"grind-`, `"run_id":"loop-`, 1), "IL012 /run_id", true},
		{"idle/event", r(inPlaceState, `"stack":[{`, `"stack":[{"x":{"mode":"loop","iter":9,"max":1},`, 1), "", true},
		{"idle/event", r(inPlaceState, `"schema":0`, `"schema":1`, 1), "IL010 /schema", true},
		{"idle/event", `{"schema":0,"event":"STATE","run_id":"loop-1-2","updated_at":"2026-02-14T00:00:00Z","stack":[ ]}`, "IL009 /stack", true},
		{"idle/event", `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[],"run_id":"x"}`, "", true},
		{"idle/event", inPlaceAnchor, "", true},
		{"idle/event", r(inPlaceAnchor, `"3/10"`, `"11/10"`, 1), "IL011 /iteration", true},
		{"idle/event", r(inPlaceAnchor, `"schema":0`, `"schema":0,"event":"ANCHOR"`, 1), "", true},
		{"idle/event", r(inPlaceState, `"filter":"label:api"`, `"filter":"label:api","x":1e999`, 1), "AL001 ", false},
		{"idle/event", `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[],"run_id":-1E+999}`, "AL001 ", false},
		{"idle/event", r(inPlaceState, `"filter":"label:api"`, `"filter":"label:api","x":1e300`, 1), "", true},

		{"vermas/event", inPlaceAssigned, "", true},
		{"vermas/event", r(inPlaceAssigned, `workers-slot3"`, `workers-slot4"`, 1), "VM016 /data/assignment_path", true},
		{"vermas/event", r(inPlaceAssigned, `".work/.assignment-project-a-workers-slot3"`, `"C:\\\\w\\\\.assignment-project-a-workers-slot3"`, 1), "", true},
		{"vermas/event", r(inPlaceAssigned, `".work/.assignment-project-a-workers-slot3"`, `"C:\\\\w\\\\.assignment-project-a-workers-slot2"`, 1), "VM016 /data/assignment_path", true},
		{"vermas/event", r(inPlaceAssigned, `"evt-05BgVNOlnTru"`, `"evt-05BgVNOlnT"`, 1), "VM002 /event_id", true},
		{"vermas/event", r(inPlaceAssigned, `"work_order.assigned"`, `"work_order.archived"`, 1), "VM003 /event_type", true},
		{"vermas/event", inPlaceRead, "", true},
		{"vermas/event", r(inPlaceRead, `"read_at":"2026-02-14T09:00:32.291Z"`, `"read_at":"2026-02-14T09:00:32Z"`, 1), "VM006 /data/read_at", true},
		{"vermas/event", r(inPlaceRead, `"timestamp":"2026-02-14T09:00:32.471Z"`, `"timestamp":"2026-02-14T09:00:32+01:00"`, 1), "VM006 /timestamp", true},
		{"vermas/event", inPlaceIdle, "", true},
		{"vermas/event", r(inPlaceIdle, `.599Z"`, `Z"`, 1), "VM006 /data/idle_since", true},
		{"vermas/event", r(inPlaceIdle, `"last_activity":"bash"`, `"last_activity":"bash","n":[1,{"m":-2e999}]`, 1), "AL001 ", false},
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	for _, c := range cases {
		v := NewValidator(Options{Now: now}, nil)
		got := v.RecordLine(c.kind, "f.jsonl", []byte(c.line), 7)
		if !v.accepted {
			t.Errorf("%s: not accepted, so not read in place: %s", c.kind, c.line)
		}
		if inPlace := v.ldoc.Flat != nil; inPlace != c.inPlace {
			t.Errorf("%s: read in place %v, want %v: %s", c.kind, inPlace, c.inPlace, c.line)
		}
		var found []string
		for _, x := range got {
			found = append(found, x.Rule+" "+x.Pointer)
		}
		if s := strings.Join(found, ", "); s != c.want {
			t.Errorf("%s: violations %q, want %q: %s", c.kind, s, c.want, c.line)
		}
		inPlace := violationsText(got)
		d := NewValidator(Options{Now: now}, nil)
		d.plan(c.kind).inPlace = false
		if decoded := violationsText(d.RecordLine(c.kind, "f.jsonl", []byte(c.line), 7)); decoded != inPlace {
			t.Errorf("%s: %s\n in place: %s\n decoded:  %s", c.kind, c.line, inPlace, decoded)
		}
	}
}

func violationsText(vs []envelope.Violation) string {
	var b strings.Builder
	for _, x := range vs {
		fmt.Fprintf(&b, "%s %s %s %s %d:%d %q %v; ", x.Rule, x.Code, x.Severity, x.Pointer, x.Line, x.Column, x.Reason, x.Extra)
	}
	return b.String()
}

// TestCapturedExtractAgrees: the stream rules' values of a record its
// kind's acceptor accepted, read from the acceptor's spans (and, for the
// members of a captured object such as a VerMAS event's data, from that
// object alone), are those a scan of the whole record finds, columns
// included, so the stream rules' verdicts and positions do not depend on
// the path.
func TestCapturedExtractAgrees(t *testing.T) {
	r := strings.Replace
	records := map[string][]string{
		"idle/event": {inPlaceState, inPlaceAnchor, `{"schema":0,"event":"DONE","reason":"COMPLETE","stack":[],"run_id":"x"}`},
		"vermas/event": {
			inPlaceAssigned, inPlaceRead, inPlaceIdle,
			`{"event_id":"evt-0ANN0knXaxjo","event_type":"work_order.updated","timestamp":"2026-02-14T09:00:00.534Z","actor":"ceo","data":{"work_order_id":"wo-daa66d2c","changes":{"priority":3,"title":"Improve \"rate\" parser"}}}`,
			`{"event_id":"evt-0FZ3W8CJORbi","event_type":"work_order.status_changed","timestamp":"2026-02-14T09:00:00.831Z","actor":"a","data":{"work_order_id":"wo-9e3779b9","from_status":"open","to_status":"in_progress"}}`,
			`{"event_id":"evt-03XM0oBgCodE","event_type":"mail.sent","timestamp":"2026-02-14T09:00:27.278Z","actor":"a","data":{"message_id":"msg-9ccc71e37f","from":"x","to":"y","subject":"HELP","message_type":"HELP"}}`,
			`{"event_id":"evt-09YClTBznd7T","event_type":"process.created","timestamp":"2026-02-14T09:00:14.609Z","actor":"a","data":{"process_id":"proc-f82862fa","template":"worker-execute","work_order_id":"wo-78dde6e5"}}`,
			r(inPlaceRead, `"data":{`, `"data":{"x":{"read_at":"no"}, `, 1),
			`{"event_id":"evt-abc123def456","event_type":"foo.bar","timestamp":"2026-01-06T12:00:00.000Z","actor":"a","data":{"work_order_id":7,"changes":[1]}}`,
			// Members that another type's declaration records (its
			// conditional slots), here undeclared: found by a scan.
			`{"event_id":"evt-abc123def456","event_type":"foo.bar","timestamp":"2026-01-06T12:00:00.000Z","actor":"a","data":{"work_order_id":"wo-1","title":"T","changes":{"title":"U"}}}`,
			r(inPlaceRead, `"data":{`, `"data":{"work_order_id":"wo-1","process_id":"proc-1", `, 1),
			r(inPlaceAssigned, `"data":{`, `"data":{"changes":{"status":"open","assignee":null},"read_at":"2026-01-06T12:00:00.000Z", `, 1),
			r(inPlaceAssigned, `"correlation_id"`, `"x_note":1,"correlation_id"`, 1),
			`{"event_id":"evt-0ANN0knXaxjo","event_type":"work_order.updated","timestamp":"2026-02-14T09:00:00.534Z","actor":"ceo","data":{"work_order_id":"wo-daa66d2c","changes":{"assignee":null,"status":"closed","title":"T","x":{"title":"no"}}}}`,
		},
	}
	for kind, lines := range records {
		var fields []rules.Field
		for _, id := range rules.StreamsForKind(kind) {
			sr := rules.Stream(id)
			fs := sr.Fields()
			if kr, ok := sr.(rules.KindRule); ok {
				fs = kr.KindFields(kind)
			}
			for _, f := range fs {
				if !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
			}
		}
		x, scan := NewExtractor(kind, fields), NewExtractor("", fields)
		if len(fields) < 3 || x.slots == nil {
			t.Fatalf("%s: the stream rules' values are not read from the acceptor's spans", kind)
		}
		if kind == "vermas/event" && (x.cond == 0 || len(x.parents) != 1 || x.parents[0].scan) {
			t.Fatalf("%s: data's members are not read from their conditional slots (cond %#x, parents %+v)", kind, x.cond, x.parents)
		}
		v := NewValidator(Options{}, nil)
		got, want := make([]rules.Value, len(fields)), make([]rules.Value, len(fields))
		for _, line := range lines {
			v.RecordLine(kind, "f.jsonl", []byte(line), 1)
			acc := v.Captured()
			if acc == nil {
				t.Errorf("%s: not accepted: %s", kind, line)
				continue
			}
			x.Values([]byte(line), acc, got)
			scan.Values([]byte(line), nil, want)
			for i, f := range fields {
				g, w := got[i], want[i]
				if g.Type != w.Type || string(g.Str) != string(w.Str) || g.Num != w.Num || g.Time != w.Time || g.Column != w.Column {
					t.Errorf("%s %s in %s:\n spans %+v\n scan  %+v", kind, f.Pointer, line, g, w)
				}
			}
		}
	}
}

// TestDeclinedInPlaceAgrees: a record its kind's acceptor declines (a
// value the schema rejects, an escape in a member name or a string it
// checks, a frame of the other mode's members) is read in place too, from
// one scan of the record (docPlan.scannedFlat), and gets the violations
// the decoded record gets; one with a number beyond float64 is decoded,
// which reports it.
func TestDeclinedInPlaceAgrees(t *testing.T) {
	r := strings.Replace
	cases := []struct {
		kind, line string
		inPlace    bool
	}{
		{"idle/event", r(inPlaceState, `"2026-02-14T00:00:00.006Z"`, `"2026-02-14 00:00:00.006Z"`, 1), true},
		{"idle/event", r(inPlaceState, `"iter":2,"max":100`, `"iter":101,"max":"100"`, 1), true},
		{"idle/event", r(inPlaceState, `"run_id":"grind-`, `"r\u0075n_id":"loop-`, 1), true},
		{"idle/event", r(inPlaceState, `"stack":[{`, `"st\u0061ck":[{"x":1,`, 1), true},
		{"idle/event", r(r(inPlaceState, `"mode":"grind"`, `"mode":"gr\u0069nd"`, 1), `"updated_at":"`, `"updated_at":"x`, 1), true},
		{"idle/event", r(inPlaceState, `"mode":"grind"`, `"mode":"issue"`, 1), true},
		{"idle/event", r(r(inPlaceState, `"id":"grind-1771059600-0"`, `"id":"a\"b","x":[1,{"iter":0}]`, 1), `"schema":0`, `"schema":-1`, 1), true},
		{"idle/event", r(inPlaceState, `"schema":0`, `"schema":"0"`, 1), true},
		{"idle/event", `{"schema":0,"event":"STATE","run_id":"loop-1-2","updated_at":"x","stack":[1,{"mode":"grind","iter":5,"max":2}]}`, true},
		{"idle/event", r(inPlaceAnchor, `"3/10"`, `"11/10 "`, 1), true},
		{"idle/event", r(r(inPlaceAnchor, `"schema":0`, `"schema":0,"event":"ANCHOR"`, 1), `"2024-12-21T10:30:00Z"`, `"later"`, 1), true},
		{"idle/event", r(r(inPlaceState, `"filter":"label:api"`, `"filter":"label:api","x":1e999`, 1), `"schema":0`, `"schema":2`, 1), false},
		{"vermas/event", r(inPlaceAssigned, `"2026-02-14T09:00:00.385Z"`, `"2026-02-14 09:00:00"`, 1), true},
		{"vermas/event", r(r(inPlaceAssigned, `workers-slot3"`, `workers-slot\u0034"`, 1), `"timestamp":"`, `"timestamp":"x`, 1), true},
		{"vermas/event", r(inPlaceRead, `"read_at":"2026-02-14T09:00:32.291Z"`, `"read_at":7`, 1), true},
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	for _, c := range cases {
		v := NewValidator(Options{Now: now}, nil)
		got := violationsText(v.RecordLine(c.kind, "f.jsonl", []byte(c.line), 7))
		if v.accepted {
			t.Errorf("%s: accepted, want declined: %s", c.kind, c.line)
		}
		if inPlace := v.ldoc.Flat != nil; inPlace != c.inPlace {
			t.Errorf("%s: read in place %v, want %v: %s", c.kind, inPlace, c.inPlace, c.line)
		}
		d := NewValidator(Options{Now: now}, nil)
		d.plan(c.kind).inPlace = false
		if decoded := violationsText(d.RecordLine(c.kind, "f.jsonl", []byte(c.line), 7)); decoded != got {
			t.Errorf("%s: %s\n in place: %s\n decoded:  %s", c.kind, c.line, got, decoded)
		}
	}
}

// FuzzInPlaceAgrees: any idle or VerMAS event gets the same violations,
// rule, pointer, position, reason and details, whether the records its
// kind's acceptor accepts are read in place or decoded.
func FuzzInPlaceAgrees(f *testing.F) {
	for _, s := range []string{inPlaceState, inPlaceAnchor, strings.Replace(inPlaceState, `"iter":2,"max":100`, `"iter":101,"max":100`, 1)} {
		f.Add([]byte(s), false)
	}
	for _, s := range []string{inPlaceAssigned, inPlaceRead, inPlaceIdle, strings.Replace(inPlaceAssigned, `workers-slot3"`, `workers-slot4"`, 1)} {
		f.Add([]byte(s), true)
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	inPlace, decoded := NewValidator(Options{Now: now}, nil), NewValidator(Options{Now: now}, nil)
	for _, k := range []string{"idle/event", "vermas/event"} {
		decoded.plan(k).inPlace = false
	}
	f.Fuzz(func(t *testing.T, raw []byte, vermas bool) {
		k := "idle/event"
		if vermas {
			k = "vermas/event"
		}
		a := violationsText(inPlace.RecordLine(k, "f.jsonl", raw, 3))
		if b := violationsText(decoded.RecordLine(k, "f.jsonl", raw, 3)); a != b {
			t.Fatalf("%s %q:\n in place: %s\n decoded:  %s", k, raw, a, b)
		}
	})
}
