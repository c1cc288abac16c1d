package lint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// vmFindings lints data as one file of kind (named name) and returns one
// line per violation of a VM1nn rule: "line:col RULE pointer: reason".
func vmFindings(t *testing.T, kindName, name, data string, opts record.Options) []string {
	t.Helper()
	return vmFindingsOf(t, Input{Path: name, Reader: strings.NewReader(data), Kind: kind.Lookup(kindName)}, 512, opts)
}

// vmFindingsOf lints in with read buffers of chunk bytes and returns
// vmFindings' lines.
func vmFindingsOf(t *testing.T, in Input, chunk int, opts record.Options) []string {
	t.Helper()
	var got []string
	_, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(in) },
		LintConfig{Jobs: 2, ChunkSize: chunk, Options: opts, Emit: func(e envelope.Envelope) error {
			vs, _ := e.Details["violations"].([]envelope.Violation)
			for _, v := range vs {
				if strings.HasPrefix(v.Rule, "VM1") {
					got = append(got, fmt.Sprintf("%d:%d %s %s: %s", v.Line, v.Column, v.Rule, v.Pointer, v.Reason))
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// vmE returns an event line: id is the event_id's suffix (evt-vm + 10
// characters), sec the second after 09:00:00, extra members before data.
func vmE(id string, sec int, typ, extra, data string) string {
	return fmt.Sprintf(`{"event_id":"evt-vm%010s","event_type":%q,"timestamp":"2026-02-14T09:%02d:%02d.000Z","actor":"ceo",%s"data":%s}`+"\n",
		id, typ, sec/60, sec%60, extra, data)
}

func vmCreatedData(wo string, prio int) string {
	return fmt.Sprintf(`{"work_order_id":%q,"title":"Title of %s","issue_type":"task","priority":%d,"created_by":"ceo"}`, wo, wo, prio)
}

func vmStatusData(wo, from, to string) string {
	return fmt.Sprintf(`{"work_order_id":%q,"from_status":%q,"to_status":%q}`, wo, from, to)
}

func checkFindings(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestVermasReplay: the work-order history of an event log, replayed as
// cue/README.md, Decisions, "VerMAS work-order history" decides: created → open; assigned keeps the status; updated
// applies changes.status; status_changed checks from_status (VM112) and
// moves to to_status; closed → closed. Events for a work order never
// created are VM110, a second creation VM111.
func TestVermasReplay(t *testing.T) {
	log := vmE("1", 0, "work_order.created", "", vmCreatedData("wo-a1", 2)) +
		vmE("2", 1, "work_order.assigned", "", `{"work_order_id":"wo-a1","agent":"w/slot0","assignment_path":".work/.assignment-w-slot0"}`) +
		vmE("3", 2, "work_order.status_changed", "", vmStatusData("wo-a1", "assigned", "in_progress")) + // still open
		vmE("4", 3, "work_order.updated", "", `{"work_order_id":"wo-a1","changes":{"status":"assigned","assignee":null}}`) +
		vmE("5", 4, "work_order.status_changed", "", vmStatusData("wo-a1", "assigned", "in_progress")) +
		vmE("6", 5, "work_order.closed", "", `{"work_order_id":"wo-a1","reason":"done"}`) +
		vmE("7", 6, "work_order.status_changed", "", vmStatusData("wo-a1", "in_progress", "open")) + // closed
		vmE("8", 7, "verify.verdict", "", `{"work_order_id":"wo-b2","verdict":"FAIL","criteria_passed":1,"criteria_failed":1,"reasoning":"r"}`) +
		vmE("9", 8, "work_order.created", "", vmCreatedData("wo-a1", 1)) +
		vmE("10", 9, "work_order.created", "", vmCreatedData("wo-b2", 1)) +
		vmE("11", 10, "verify.started", "", `{"work_order_id":"wo-b2","process_id":"proc-v1"}`)
	got := vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{})
	checkFindings(t, "replay", got,
		`3:172 VM112 /data/from_status: from_status "assigned", but work order "wo-a1" is "open" (set on line 1)`,
		`7:172 VM112 /data/from_status: from_status "in_progress", but work order "wo-a1" is "closed" (set on line 6)`,
		`8:139 VM110 /data/work_order_id: verify.verdict for work order "wo-b2", which no earlier work_order.created of this log created`,
		`9:143 VM111 /data/work_order_id: work order "wo-a1" was already created on line 1`)
}

// TestVermasLogIDs: duplicate event ids name the first line (VM100),
// caused_by names an earlier event (VM104, its own id is not earlier),
// timestamps going backwards are a warning naming both lines (VM105).
func TestVermasLogIDs(t *testing.T) {
	log := vmE("1", 5, "work_order.created", "", vmCreatedData("wo-a1", 2)) +
		vmE("2", 4, "work_order.updated", `"caused_by":"evt-vm0000000001",`, `{"work_order_id":"wo-a1","changes":{"priority":1}}`) +
		vmE("1", 6, "work_order.updated", `"caused_by":"evt-vm0000000003",`, `{"work_order_id":"wo-a1","changes":{"priority":0}}`) +
		vmE("4", 7, "work_order.updated", `"caused_by":"evt-vm0000000004",`, `{"work_order_id":"wo-a1","changes":{"priority":0}}`)
	got := vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{})
	checkFindings(t, "ids", got,
		`2:78 VM105 /timestamp: timestamp 2026-02-14T09:00:04.000Z is earlier than 2026-02-14T09:00:05.000Z of the event on line 1 (events.jsonl is append-only)`,
		`3:13 VM100 /event_id: event_id "evt-vm0000000001" is already on line 1`,
		`3:131 VM104 /caused_by: caused_by "evt-vm0000000003" names no earlier event of this log`,
		`4:131 VM104 /caused_by: caused_by "evt-vm0000000004" names no earlier event of this log`)
}

// TestVermasNoCascade: records that failed per-record validation register
// the ids they carry (event ids, created work orders), are not reported as
// duplicates, and make the fields they touch unknown, so one mistake gives
// one finding.
func TestVermasNoCascade(t *testing.T) {
	log := vmE("1", 0, "work_order.created", "", vmCreatedData("wo-a1", 7)) + // invalid: priority 7
		vmE("2", 1, "work_order.updated", `"caused_by":"evt-vm0000000001",`, `{"work_order_id":"wo-a1","changes":{"title":"T"}}`) +
		vmE("3", 2, "work_order.status_changed", "", vmStatusData("wo-a1", "open", "done")) + // invalid: to_status
		vmE("4", 3, "work_order.status_changed", "", vmStatusData("wo-a1", "in_progress", "closed")) + // not checked
		vmE("1", 4, "work_order.assigned", "", `{"work_order_id":"wo-a1","agent":"w/slot0"}`) + // invalid, duplicate id: not reported
		vmE("5", 2, "agent.idle", "", `{"idle_since":"2026-02-14T09:00:00.000Z"}`) + // invalid, earlier timestamp: not compared
		`["not", "an", "object"]` + "\n" +
		vmE("6", 5, "work_order.status_changed", "", vmStatusData("wo-a1", "open", "in_progress")) // closed → VM112
	got := vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{})
	checkFindings(t, "no cascade", got,
		`8:172 VM112 /data/from_status: from_status "open", but work order "wo-a1" is "closed" (set on line 4)`)
}

// TestVermasRuleOff: the rules of the shared check are switched off one by
// one; the others still report.
func TestVermasRuleOff(t *testing.T) {
	log := vmE("1", 5, "work_order.created", "", vmCreatedData("wo-a1", 2)) +
		vmE("1", 4, "work_order.updated", "", `{"work_order_id":"wo-b2","changes":{"priority":1}}`)
	got := vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{Severity: map[string]string{"VM100": "off", "VM105": "error"}})
	checkFindings(t, "VM100 off", got,
		`2:78 VM105 /timestamp: timestamp 2026-02-14T09:00:04.000Z is earlier than 2026-02-14T09:00:05.000Z of the event on line 1 (events.jsonl is append-only)`,
		`2:143 VM110 /data/work_order_id: work_order.updated for work order "wo-b2", which no earlier work_order.created of this log created`)
	got = vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{Severity: map[string]string{"VM105": "off", "VM110": "off"}})
	checkFindings(t, "VM105 and VM110 off", got,
		`2:13 VM100 /event_id: event_id "evt-vm0000000001" is already on line 1`)
}

func vmWO(id, status string, deps ...string) string {
	var ds []string
	for _, d := range deps {
		typ := ""
		if t, target, ok := strings.Cut(d, ":"); ok {
			typ, d = `"type":"`+t+`",`, target
		}
		ds = append(ds, `{"depends_on_id":"`+d+`",`+typ+`"created_at":"2026-02-14T09:00:00.000Z","created_by":"ceo"}`)
	}
	return `{"id":"` + id + `","title":"t","status":"` + status + `","priority":2,"issue_type":"task","created_at":"2026-02-14T09:00:00.000Z",` +
		`"updated_at":"2026-02-14T09:00:00.000Z","created_by":"ceo","dependencies":[` + strings.Join(ds, ",") + "]}\n"
}

// TestVermasDependencies: a blocks dependency (type absent means blocks)
// of an in_progress or closed work order must be closed, whether its line
// comes before or after; other types are not checked; unknown targets are
// VM121; cycles of every type but related are VM122, once each, named
// from their first work order.
func TestVermasDependencies(t *testing.T) {
	data := vmWO("wo-a", "in_progress", "wo-b", "blocks:wo-c", "related:wo-d", "parent-child:wo-d") + // wo-b open, wo-c closed
		vmWO("wo-b", "open", "wo-x") +
		vmWO("wo-c", "closed") +
		vmWO("wo-d", "closed", "related:wo-a") + // related both ways: no cycle
		vmWO("wo-e", "open", "wo-f") +
		vmWO("wo-f", "open", "discovered-from:wo-g") +
		vmWO("wo-g", "open", "parent-child:wo-e") + // e → f → g → e
		vmWO("wo-h", "open", "wo-h") +
		`{"id":"wo-i","status":"in_progress","dependencies":[{"depends_on_id":"wo-b"}]}` + "\n" + // invalid: not checked
		vmWO("wo-j", "closed", "wo-i") // wo-i's status is unknown
	got := vmFindings(t, "vermas/work-order", "work_orders.jsonl", data, record.Options{})
	checkFindings(t, "dependencies", got,
		`1:214 VM120 /dependencies/0/depends_on_id: work order "wo-a" is in_progress, but it is blocked by "wo-b", which is open (line 2)`,
		`2:207 VM121 /dependencies/0/depends_on_id: dependency "wo-x" of work order "wo-b" is not a work order of this file`,
		`5:207 VM122 /dependencies/0/depends_on_id: work orders depend on each other in a cycle: wo-e → wo-f → wo-g → wo-e`,
		`8:207 VM122 /dependencies/0/depends_on_id: work orders depend on each other in a cycle: wo-h → wo-h`)
}

// TestVermasProjectionNoCascade: a .work/ whose events hold an invalid
// creation and an invalid update: the projection is compared on the fields
// that the valid events set only, and an invalid projection line is not
// compared but counts as present.
func TestVermasProjectionNoCascade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".work")
	events := vmE("1", 0, "work_order.created", "", vmCreatedData("wo-a1", 9)) + // invalid: fields unknown
		vmE("2", 1, "work_order.status_changed", "", vmStatusData("wo-a1", "open", "in_progress")) + // not checked: status unknown
		vmE("3", 2, "work_order.created", "", vmCreatedData("wo-b2", 2)) +
		vmE("4", 3, "work_order.updated", "", `{"work_order_id":"wo-b2","changes":{"priority":"high"}}`) + // invalid: priority unknown
		vmE("5", 4, "work_order.created", "", vmCreatedData("wo-c3", 2))
	wos := strings.Replace(vmWO("wo-a1", "in_progress"), `"title":"t"`, `"title":"Title of wo-a1"`, 1) +
		strings.Replace(vmWO("wo-b2", "closed"), `"priority":2`, `"priority":4`, 1) + // status differs, priority unknown
		`{"id":"wo-c3","title":"broken"}` + "\n" // invalid: counts as present
	writeFile(t, dir, "events.jsonl", events)
	writeFile(t, dir, "work_orders.jsonl", wos)
	got := lintTreeText(t, filepath.Dir(dir))
	var vm []string
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, " VM1") {
			vm = append(vm, l)
		}
	}
	checkFindings(t, "projection", vm,
		`.work/work_orders.jsonl:2:36: LEDGER_INCONSISTENT VM130: work order "wo-b2" differs from the replay of .work/events.jsonl: `+
			`status "closed" here, "open" in events.jsonl (line 3); title "t" here, "Title of wo-b2" in events.jsonl (line 3) [/status]`)
}

// TestVermasDemoPlants: the VerMAS story of the demo tree gives no finding
// of a cross-record rule except the mistakes planted in it (one per group
// of cue/README.md's decisions across records, listed in the report for the demo's README).
func TestVermasDemoPlants(t *testing.T) {
	got := lintTreeText(t, filepath.Join("..", "testdata", "demo"))
	var vm []string
	for _, l := range strings.Split(got, "\n") {
		if i := strings.Index(l, " VM1"); i >= 0 {
			vm = append(vm, l[:i+6])
		}
	}
	checkFindings(t, "demo", vm, vmDemoPlants...)
}

// vmDemoPlants are the cross-record mistakes planted in testdata/demo/.work
// (file:line:col: CODE RULE, paths relative to .work's parent).
var vmDemoPlants = []string{
	".work/events.jsonl:13:146: LEDGER_INCONSISTENT VM104",     // within one log: caused_by names no event
	".work/events.jsonl:20:224: INVALID_TRANSITION VM112",      // history: from_status "assigned", replayed "open"
	".work/work_orders.jsonl:1:357: DEPENDENCY_NOT_MET VM120",  // dependencies: blocked by an in_progress work order
	".work/work_orders.jsonl:2:166: LEDGER_INCONSISTENT VM130", // across files: priority 1, replayed 0
}

// TestVermasReferences: every reference of seed 000's event data names
// something an earlier event of the same log created: mail.delivered and
// mail.read a message of a mail.sent (VM113); process.step_started,
// process.step_completed and process.completed a process of a
// process.created or verify.started (VM114); agent.started's
// assigned_work_order, agent.working's and process.created's work_order_id
// a work order of a work_order.created (VM110). An invalid creation still
// registers its id (no cascade).
func TestVermasReferences(t *testing.T) {
	sent := `{"message_id":"msg-m1","from":"w/slot0","to":"sup","subject":"WORKER_DONE","message_type":"WORKER_DONE"}`
	log := vmE("1", 0, "work_order.created", "", vmCreatedData("wo-a1", 2)) +
		vmE("2", 1, "mail.sent", "", sent) +
		vmE("3", 2, "mail.delivered", "", `{"message_id":"msg-m1","recipient":"sup"}`) +
		vmE("4", 3, "mail.read", "", `{"message_id":"msg-m1","reader":"sup","read_at":"2026-02-14T09:00:03.000Z"}`) +
		vmE("5", 4, "mail.delivered", "", `{"message_id":"msg-m2","recipient":"sup"}`) +
		vmE("6", 5, "mail.read", "", `{"message_id":"msg-m3","reader":"sup","read_at":"2026-02-14T09:00:05.000Z"}`) +
		vmE("7", 6, "process.created", "", `{"process_id":"proc-p1","template":"worker-execute","work_order_id":"wo-a1"}`) +
		vmE("8", 7, "process.step_started", "", `{"process_id":"proc-p1","step_id":"implement"}`) +
		vmE("9", 8, "process.step_completed", "", `{"process_id":"proc-p1","step_id":"implement","status":"completed"}`) +
		vmE("10", 9, "process.completed", "", `{"process_id":"proc-p1","summary":"ok"}`) +
		vmE("11", 10, "process.step_started", "", `{"process_id":"proc-p2","step_id":"implement"}`) +
		vmE("12", 11, "process.step_completed", "", `{"process_id":"proc-p2","step_id":"implement","status":"completed"}`) +
		vmE("13", 12, "process.completed", "", `{"process_id":"proc-p2","summary":"ok"}`) +
		vmE("14", 13, "process.created", "", `{"process_id":"proc-p3","template":"worker-execute","work_order_id":"wo-zz"}`) +
		vmE("15", 14, "agent.working", "", `{"work_order_id":"wo-zz"}`) +
		vmE("16", 15, "agent.working", "", `{"work_order_id":"wo-a1"}`) +
		vmE("17", 16, "agent.started", "", `{"session_name":"s","worktree":"/w","profile":"worker","assigned_work_order":"wo-zz"}`) +
		vmE("18", 17, "verify.started", "", `{"work_order_id":"wo-a1","process_id":"proc-v1"}`) +
		vmE("19", 18, "process.step_started", "", `{"process_id":"proc-v1","step_id":"judge"}`) +
		vmE("20", 19, "mail.sent", "", `{"message_id":"msg-m4","from":"w/slot0"}`) + // invalid: registers msg-m4
		vmE("21", 20, "mail.read", "", `{"message_id":"msg-m4","reader":"sup","read_at":"2026-02-14T09:00:20.000Z"}`)
	got := vmFindings(t, "vermas/event", "events.jsonl", log, record.Options{})
	checkFindings(t, "references", got,
		`5:136 VM113 /data/message_id: mail.delivered of message "msg-m2", which no earlier mail.sent of this log sent`,
		`6:131 VM113 /data/message_id: mail.read of message "msg-m3", which no earlier mail.sent of this log sent`,
		`11:142 VM114 /data/process_id: process.step_started of process "proc-p2", which no earlier process.created or verify.started of this log created`,
		`12:144 VM114 /data/process_id: process.step_completed of process "proc-p2", which no earlier process.created or verify.started of this log created`,
		`13:139 VM114 /data/process_id: process.completed of process "proc-p2", which no earlier process.created or verify.started of this log created`,
		`14:191 VM110 /data/work_order_id: process.created for work order "wo-zz", which no earlier work_order.created of this log created`,
		`15:138 VM110 /data/work_order_id: agent.working for work order "wo-zz", which no earlier work_order.created of this log created`,
		`17:198 VM110 /data/assigned_work_order: agent.started for work order "wo-zz", which no earlier work_order.created of this log created`)
}

// TestVermasEventIDsReread: in a file the engine can read again, VM100 and
// VM104 keep a hash and an offset per event_id (rules.recordIDs) and
// confirm a possible match by reading the earlier record; their findings
// equal those of the same bytes read from a reader that cannot be re-read
// (whole ids), over more events than the cache of recent ids holds, with a
// byte-order mark, CRLF endings and blank lines.
func TestVermasEventIDsReread(t *testing.T) {
	const n = 24000
	var b strings.Builder
	b.WriteString("\ufeff")
	var want []string
	line := 1
	lineOf := map[int]int{}
	for i := 1; i <= n; i++ {
		id, extra := fmt.Sprint(i), ""
		switch {
		case i%997 == 0: // a repeat of an early event
			id = fmt.Sprint(i / 997)
			want = append(want, fmt.Sprintf("%d:13 VM100 /event_id: event_id \"evt-vm%010s\" is already on line %d", line, id, lineOf[i/997]))
		case i%13 == 0: // caused_by an early event
			extra = fmt.Sprintf(`"caused_by":"evt-vm%010d",`, i/13)
		case i%1009 == 0: // caused_by an event to come
			extra = fmt.Sprintf(`"caused_by":"evt-vm%010d",`, i+1)
			want = append(want, fmt.Sprintf("%d:123 VM104 /caused_by: caused_by \"evt-vm%010d\" names no earlier event of this log", line, i+1))
		}
		if _, ok := lineOf[i]; !ok && id == fmt.Sprint(i) {
			lineOf[i] = line
		}
		rec := strings.TrimSuffix(vmE(id, 0, "agent.idle", extra, `{"idle_since":"2026-02-14T09:00:00.000Z","last_activity":"bash"}`), "\n")
		b.WriteString(rec)
		if i%7 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		line++
		if i%11 == 0 {
			b.WriteString("\n")
			line++
		}
	}
	data := b.String()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}
	run := func(in Input) []string { return vmFindingsOf(t, in, 4096, opts) }
	checkFindings(t, "from the file", run(Input{Path: path, Kind: kind.Lookup("vermas/event")}), want...)
	checkFindings(t, "from a reader", run(Input{Path: path, Reader: strings.NewReader(data), Kind: kind.Lookup("vermas/event")}), want...)
}

// TestVermasIDsAgreeWithModel: VM100 and VM104 decide each batch of
// records at once (rules.Flusher, recordIDs); whatever the batch (chunk)
// size and the number of workers, from a file (ids kept as hashes and
// offsets, all but the last 65,536 on disk, a possible repeat read again)
// or a reader (whole ids), they report exactly what a plain model with a
// Go map says: an event_id that an earlier record carried, valid or not
// (the finding names that record's line), and a caused_by of a valid
// event that names no earlier event (its own event_id, a later one or
// none), with ids written with escapes, repeats near and far back.
func TestVermasIDsAgreeWithModel(t *testing.T) {
	n := 70000 // more than the 65,536 ids kept in memory
	if testing.Short() {
		n = 4000
	}
	r := rand.New(rand.NewPCG(56, 78))
	var b strings.Builder
	var want []string
	first := map[string]int{}
	line := 1
	for i := 1; i <= n; i++ {
		num := i
		switch k := r.IntN(40); {
		case k == 0: // a repeat from far back
			num = 1 + r.IntN(min(i, 500))
		case k == 1: // a recent repeat
			num = max(1, i-r.IntN(300))
		}
		id := fmt.Sprintf("evt-vm%010d", num)
		text := id
		if r.IntN(25) == 0 {
			text = `evt-\u0076m` + id[len("evt-vm"):] // the same id, escaped
		}
		valid := r.IntN(30) != 0
		ts := "2026-02-14T09:00:00.000Z"
		if !valid {
			ts = "2026-02-14 09:00:00.000Z" // not RFC 3339: the schema rejects the record
		}
		cause := ""
		switch k := r.IntN(6); {
		case k == 0:
			cause = fmt.Sprintf("evt-vm%010d", 1+r.IntN(i)) // earlier (or not there)
		case k == 1:
			cause = fmt.Sprintf("evt-vm%010d", max(1, i-r.IntN(100)))
		case k == 2 && r.IntN(10) == 0:
			cause = id // its own: not earlier
		case k == 3 && r.IntN(10) == 0:
			cause = fmt.Sprintf("evt-vm%010d", i+1+r.IntN(50)) // later
		case k == 4 && r.IntN(10) == 0:
			cause = "evt-unknown" + fmt.Sprint(r.IntN(5))
		}
		extra := ""
		if cause != "" {
			extra = fmt.Sprintf(`"caused_by":%q,`, cause)
		}
		rec := fmt.Sprintf(`{"event_id":"%s","event_type":"agent.idle","timestamp":%q,"actor":"ceo",%s"data":{"idle_since":"2026-02-14T09:00:00.000Z","last_activity":"bash"}}`,
			text, ts, extra)
		if cause != "" && valid {
			if _, ok := first[cause]; !ok {
				col := strings.Index(rec, `"caused_by":`) + len(`"caused_by":`) + 1
				want = append(want, fmt.Sprintf("%d:%d VM104 /caused_by: caused_by %q names no earlier event of this log", line, col, cause))
			}
		}
		if f, ok := first[id]; ok {
			if valid {
				want = append(want, fmt.Sprintf("%d:13 VM100 /event_id: event_id %q is already on line %d", line, id, f))
			}
		} else {
			first[id] = line
		}
		b.WriteString(rec + "\n")
		line++
		if r.IntN(200) == 0 {
			b.WriteString("\n")
			line++
		}
	}
	slices.SortFunc(want, vmByLine)
	if len(want) < n/50 {
		t.Fatalf("the model expects only %d findings", len(want))
	}
	data := b.String()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}
	for _, chunk := range []int{600, DefaultChunkSize} {
		for _, jobs := range []int{1, 2} {
			for _, file := range []bool{true, false} {
				in := Input{Path: path, Kind: kind.Lookup("vermas/event")}
				if !file {
					in.Reader = strings.NewReader(data)
				}
				var got []string
				_, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(in) },
					LintConfig{Jobs: jobs, ChunkSize: chunk, Options: opts, Emit: func(e envelope.Envelope) error {
						vs, _ := e.Details["violations"].([]envelope.Violation)
						for _, v := range vs {
							if v.Rule == "VM100" || v.Rule == "VM104" {
								got = append(got, fmt.Sprintf("%d:%d %s %s: %s", v.Line, v.Column, v.Rule, v.Pointer, v.Reason))
							}
						}
						return nil
					}})
				if err != nil {
					t.Fatal(err)
				}
				slices.SortFunc(got, vmByLine)
				checkFindings(t, fmt.Sprintf("chunk %d, -j %d, file %v", chunk, jobs, file), got, want...)
			}
		}
	}
}

// vmByLine orders vmFindings' lines by their line number, then as text.
func vmByLine(a, b string) int {
	la, _ := strconv.Atoi(a[:strings.IndexByte(a, ':')])
	lb, _ := strconv.Atoi(b[:strings.IndexByte(b, ':')])
	if la != lb {
		return la - lb
	}
	return strings.Compare(a, b)
}
