package rules

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// Cross-record rules of the vermas family (seed 000 "VerMAS Data
// Schemas": "Events are the source of truth. All other data is derived from
// events."). One check, vermasCheck, reads every file of a VerMAS .work/
// directory once, in input order, and serves every rule below:
//
//   - within one log (this file): duplicate ids (VM100-VM103), caused_by
//     references (VM104), event time order (VM105), the work-order history
//     replayed from events.jsonl (VM110-VM112) and work-order dependencies
//     within work_orders.jsonl (VM120-VM122);
//   - across the files of one .work/ directory (rule_vermas_tree.go):
//     projections against the replay (VM130, VM131), processes against
//     templates and work orders (VM132-VM134), assignment files (VM135) and
//     work-order prefixes declared in routes.jsonl (VM136).
//
// Memory does not grow with the ids of an event log read from a file:
// event and process ids are kept while their file is read as entries of a
// hash and the record's offset, the last 65,536 in memory and the older
// ones on disk behind a Bloom filter of 12 bits an id, a possible repeat
// confirmed by reading the earlier record again (recordIDs, idRuns; whole
// ids in memory for standard input, which cannot be read again); the
// replayed work orders and messages, as small structs of their compared
// fields, their ids and texts are in pages of which a few are in memory
// and the rest in a temporary file (stream_pages.go); no record is kept.
//
// No cascades: a record that failed per-record validation still registers
// the ids it carries (an event_id, a created work order, a sent message, a
// route prefix); it is never reported as a duplicate nor checked for
// references or transitions, and the work-order fields it would change
// become unknown, so that later checks of those fields are skipped rather
// than reported again.

// The VerMAS kinds (kind.All).
const (
	vmKindEvent      = "vermas/event"
	vmKindWorkOrder  = "vermas/work-order"
	vmKindMessage    = "vermas/message"
	vmKindRoute      = "vermas/route"
	vmKindAssignment = "vermas/assignment"
	vmKindTemplate   = "vermas/template"
	vmKindProcess    = "vermas/process"
)

// Fields of an event (indexes into StreamRecord.Values).
const (
	evID = iota
	evType
	evTime
	evCausedBy
	evWO
	evFromStatus
	evToStatus
	evTitle
	evPriority
	evChTitle
	evChPriority
	evChAssignee
	evChStatus
	evAgent
	evMsg
	evMailFrom
	evMailTo
	evSubject
	evMsgType
	evReadAt
	evProc
	evAssignedWO
)

// vmEventIDField and vmProcIDField are an event's id and the process it
// creates alone, to read them again (recordIDs).
var (
	vmEventIDField = []Field{{"/event_id", FieldString}}
	vmProcIDField  = []Field{{"/data/process_id", FieldString}}
)

var vmEventFields = []Field{
	{"/event_id", FieldString},
	{"/event_type", FieldString},
	{"/timestamp", FieldTime},
	{"/caused_by", FieldString},
	{"/data/work_order_id", FieldString},
	{"/data/from_status", FieldString},
	{"/data/to_status", FieldString},
	{"/data/title", FieldString},
	{"/data/priority", FieldNumber},
	{"/data/changes/title", FieldString},
	{"/data/changes/priority", FieldNumber},
	{"/data/changes/assignee", FieldString},
	{"/data/changes/status", FieldString},
	{"/data/agent", FieldString},
	{"/data/message_id", FieldString},
	{"/data/from", FieldString},
	{"/data/to", FieldString},
	{"/data/subject", FieldString},
	{"/data/message_type", FieldString},
	{"/data/read_at", FieldTime},
	{"/data/process_id", FieldString},
	{"/data/assigned_work_order", FieldString},
}

// Fields of a work order (work_orders.jsonl).
const (
	woID = iota
	woStatus
	woTitle
	woPriority
	woAssignee
	woDeps
)

var vmWorkOrderFields = []Field{
	{"/id", FieldString},
	{"/status", FieldString},
	{"/title", FieldString},
	{"/priority", FieldNumber},
	{"/assignee", FieldString},
	{"/dependencies", FieldRaw},
}

// Fields of a message (messages.jsonl).
const (
	msgID = iota
	msgFrom
	msgTo
	msgSubject
	msgType
	msgReadAt
)

var vmMessageFields = []Field{
	{"/id", FieldString},
	{"/from", FieldString},
	{"/to", FieldString},
	{"/subject", FieldString},
	{"/message_type", FieldString},
	{"/read_at", FieldTime},
}

var vmRouteFields = []Field{{"/prefix", FieldString}}

// Fields of a process, a template and an assignment (documents: their
// steps are read from StreamRecord.Doc).
const (
	procID = iota
	procTemplate
	procWorkOrder
)

var (
	vmProcessFields    = []Field{{"/id", FieldString}, {"/template", FieldString}, {"/work_order_id", FieldString}}
	vmTemplateFields   = []Field{{"/template", FieldString}}
	vmAssignmentFields = []Field{{"/type", FieldString}, {"/reference_id", FieldString}}
)

// vermasCheck is the one stream check of the VM1nn rules (a KindRule and a
// TreeRule): it is attached to each of them.
type vermasCheck struct{}

var theVermasCheck = &vermasCheck{}

// Fields implements StreamRule: the union of every kind's fields.
func (*vermasCheck) Fields() []Field {
	var out []Field
	seen := map[Field]bool{}
	for _, k := range []string{vmKindEvent, vmKindWorkOrder, vmKindMessage, vmKindRoute, vmKindAssignment, vmKindTemplate, vmKindProcess} {
		for _, f := range (*vermasCheck)(nil).KindFields(k) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// KindFields implements KindRule.
func (*vermasCheck) KindFields(kind string) []Field {
	switch kind {
	case vmKindEvent:
		return vmEventFields
	case vmKindWorkOrder:
		return vmWorkOrderFields
	case vmKindMessage:
		return vmMessageFields
	case vmKindRoute:
		return vmRouteFields
	case vmKindProcess:
		return vmProcessFields
	case vmKindTemplate:
		return vmTemplateFields
	case vmKindAssignment:
		return vmAssignmentFields
	}
	return nil
}

// NewFile implements StreamRule; the engine calls NewKindFile instead.
func (c *vermasCheck) NewFile(file string, opts *Options) FileState { return vmNoFile{} }

// NewKindFile implements KindRule: the state of one file, by kind.
func (*vermasCheck) NewKindFile(file, kind string, _ *Options) FileState {
	switch kind {
	case vmKindEvent:
		e := &vmEvents{file: file, pf: &pageFile{}}
		e.wos, e.msgs, e.texts = newPagedStrings(e.pf, true), newPagedStrings(e.pf, true), newPagedStrings(e.pf, false)
		e.wo, e.sent = newPagedArray[vmWO](e.pf), newPagedArray[vmSent](e.pf)
		e.ids, e.procs = newRecordIDs(vmEventIDField, &e.marks), newRecordIDs(vmProcIDField, &e.marks)
		return e
	case vmKindWorkOrder:
		return &vmWorkOrders{file: file, ids: newIDTable(), in: interner{}}
	case vmKindMessage:
		return &vmMessages{file: file, ids: newIDTable()}
	case vmKindRoute:
		return &vmRoutes{file: file, prefixes: map[string]uint32{}}
	case vmKindProcess:
		return &vmProcess{file: file}
	case vmKindTemplate:
		return &vmTemplate{file: file}
	case vmKindAssignment:
		return &vmAssignment{file: file}
	}
	return vmNoFile{}
}

type vmNoFile struct{}

func (vmNoFile) Observe(*StreamRecord, *StreamReporter) {}
func (vmNoFile) Finish(*StreamReporter)                 {}

// vmReps caches the reporters of one file run for each rule (As), since
// the engine passes the same reporter to every call of a file.
type vmReps struct {
	base *StreamReporter
	by   map[string]*StreamReporter
}

func (v *vmReps) as(r *StreamReporter, id string) *StreamReporter {
	if v.base != r {
		v.base, v.by = r, map[string]*StreamReporter{}
	}
	if x := v.by[id]; x != nil {
		return x
	}
	x := r.As(id)
	v.by[id] = x
	return x
}

// Work-order statuses (seed 000 "Status Values"); 0 is unknown.
var vmStatuses = []string{"", "open", "in_progress", "assigned", "closed"}

func vmStatus(b []byte) uint8 {
	for i, s := range vmStatuses[1:] {
		if string(b) == s {
			return uint8(i + 1)
		}
	}
	return 0
}

const (
	vmInProgress = 2
	vmClosed     = 4
)

func vmLine(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// vmRepeated reports the id v of the current record, at pointer ptr, as a
// repeat of the one on line first (what names it in the reason; note
// follows). The details hold the id, under the pointer's name, and
// first_line.
func vmRepeated(r *StreamReporter, rec *StreamRecord, v *Value, ptr, what string, first uint32, note string) {
	id := string(v.Str)
	r.Report(StreamFinding{Line: rec.Line, Column: v.Column, Pointer: ptr,
		Reason: what + " " + strconv.Quote(id) + " is already on line " + vmLine(first) + note,
		Extra:  map[string]any{ptr[1:]: id, "first_line": int(first)}})
}

// ---- events.jsonl

// vmEvents is the state of one event log (events.jsonl, feed.jsonl).
type vmEvents struct {
	file string
	reps vmReps

	marks    lineMarks  // of every record, for ids and procs
	ids      *recordIDs // event_id → line of its first occurrence; freed by Finish
	prevLine uint32     // the previous valid event with a timestamp (VM105)
	prevTime int64
	prevText []byte
	wos      *pagedStrings       // work order id → its number n, the work order at wo.at(n-1)
	wo       *pagedArray[vmWO]   // in pages, most of them in pf
	msgs     *pagedStrings       // message id → its number n, the message at sent.at(n-1)
	sent     *pagedArray[vmSent] // in pages, most of them in pf
	procs    *recordIDs          // process ids of process.created and verify.started; freed by Finish
	texts    *pagedStrings       // titles, agents, subjects, message types, read_at: each text set, in pages
	pf       *pageFile           // the temporary file of the pages of wos, wo, msgs, sent and texts
	lostSaid bool                // the pages that could not be read back were reported

	// recentWOs and recentMsgs are the numbers in wos and msgs of the
	// work orders and messages named last: most events name one named a
	// few events before.
	recentWOs, recentMsgs vmRecent
	// recentTexts are the numbers in texts of the texts added last: the
	// agents, subjects and message types of mail repeat, and a repeated
	// text takes the number it got before instead of a new copy.
	recentTexts vmRecent

	batch []vmIDRef // the event ids and caused_by of the batch's records, for Flush
	bytes []byte    // their texts
	src   Source
	lines []*uint32 // the cache lines of a part of the batch (idtab.LoadLines)
	sink  uint32
}

// vmIDRef is what VM100 and VM104 read of one event (noted by Observe,
// decided by Flush): its event_id and caused_by strings (bytes[id:cause]
// and bytes[cause:end], when hasID and hasCause), their columns and hashes
// (recordIDs.hash), and the record's line and offset (-1 when the record
// had no Source: its id is kept whole).
type vmIDRef struct {
	off               int64
	idHash, causeHash uint64
	line              int32
	idCol, causeCol   int32
	id, cause, end    uint32
	hasID, hasCause   bool
	valid             bool
}

// noteIDs notes rec's event_id and caused_by for Flush.
func (s *vmEvents) noteIDs(rec *StreamRecord) {
	v := rec.Values
	id, c := &v[evID], &v[evCausedBy]
	x := vmIDRef{off: rec.Offset, line: int32(rec.Line), valid: rec.Valid,
		hasID: id.Type == ValueString, hasCause: rec.Valid && c.Type == ValueString}
	if !x.hasID && !x.hasCause {
		return
	}
	if rec.Source != nil {
		s.src = rec.Source
	} else {
		x.off = -1 // kept whole
	}
	x.id = uint32(len(s.bytes))
	if x.hasID {
		s.bytes = append(s.bytes, id.Str...)
		x.idCol = int32(id.Column)
	}
	x.cause = uint32(len(s.bytes))
	if x.hasCause {
		s.bytes = append(s.bytes, c.Str...)
		x.causeCol = int32(c.Column)
	}
	x.end = uint32(len(s.bytes))
	s.batch = append(s.batch, x)
}

// vmIDsAhead is the number of events of a batch whose cache lines Flush
// loads together before it decides them.
const vmIDsAhead = 64

// Flush implements Flusher: VM104 (caused_by names an earlier event of
// this log) and VM100 (event ids are unique) for the events of the batch,
// in order (an event's caused_by is looked up before its event_id is
// added), after loading the cache lines of their lookups together
// (recordIDs.lines) a part of the batch at a time, so that their cache
// misses overlap. An invalid event registers its event_id and is not
// reported.
func (s *vmEvents) Flush(r *StreamReporter) {
	b := s.batch
	for i0 := 0; i0 < len(b); i0 += vmIDsAhead {
		part := b[i0:min(i0+vmIDsAhead, len(b))]
		for i := range part {
			x := &part[i]
			if x.hasCause {
				x.causeHash = s.ids.hash(s.bytes[x.cause:x.end])
				s.ids.recentLine(x.causeHash, &s.lines)
			}
			if x.hasID {
				x.idHash = s.ids.hash(s.bytes[x.id:x.cause])
				s.ids.lines(x.idHash, &s.lines)
			}
		}
		s.sink += idtab.LoadLines(&s.lines)
		for i := range part {
			s.decideIDs(&part[i], r)
		}
	}
	s.batch, s.bytes = s.batch[:0], s.bytes[:0]
}

// decideIDs checks and adds the ids of one event noted by noteIDs.
func (s *vmEvents) decideIDs(x *vmIDRef, r *StreamReporter) {
	if x.hasCause {
		if c := s.bytes[x.cause:x.end]; !s.ids.hasHashed(c, x.causeHash) {
			s.reps.as(r, "VM104").Report(StreamFinding{Line: int(x.line), Column: int(x.causeCol), Pointer: "/caused_by",
				Reason: "caused_by " + strconv.Quote(string(c)) + " names no earlier event of this log",
				Extra:  map[string]any{"caused_by": string(c)}})
		}
	}
	if !x.hasID {
		return
	}
	rec := StreamRecord{Line: int(x.line), Offset: x.off, Source: s.src}
	id := s.bytes[x.id:x.cause]
	if first, dup := s.ids.addHashed(&rec, id, x.idHash); dup && x.valid {
		vmRepeated(s.reps.as(r, "VM100"), &rec, &Value{Type: ValueString, Str: id, Column: int(x.idCol)}, "/event_id", "event_id", uint32(first), "")
	}
}

// vmWO is a work order replayed from an event log, in 40 bytes (in
// vmEvents.wo's pages): its texts are numbers of vmEvents.texts (0: the
// empty string). A field's line is
// the event that last set it; 0 when an invalid record touched it
// (unknown: not compared).
type vmWO struct {
	n              uint32 // its number in vmEvents.wos (its id)
	line, col      uint32 // the work_order.created event and the column of its work_order_id
	statusLine     uint32
	title          uint32
	titleLine      uint32
	priorityLine   uint32
	assignee       uint32 // 0 when unassigned
	assigneeLine   uint32
	status         uint8
	priority       int8
	createdInvalid bool // created by an invalid record: fields unknown
}

// vmSent is a message sent in an event log (mail.sent), with its mail.read,
// in 48 bytes (in vmEvents.sent's pages): its texts are numbers of vmEvents.texts (0: the empty
// string).
type vmSent struct {
	n                      uint32 // its number in vmEvents.msgs (its id)
	line, col              uint32
	from, to, subject, typ uint32
	readAt                 uint32 // 0 when never read
	readLine               uint32
	readCol                uint32
	readTime               int64
	known                  bool // from a valid mail.sent
	readUnknown            bool // an invalid mail.read
}

// text returns the number of b in s.texts (0 for the empty string): the
// number of an equal text added a few events before (recentTexts), or a
// new one.
func (s *vmEvents) text(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	if n := s.recentTexts.get(b); n > 0 {
		return n
	}
	n, _ := s.texts.Add(b)
	s.recentTexts.put(b, n)
	return n
}

// str returns text n of s.texts.
func (s *vmEvents) str(n uint32) string {
	if n == 0 {
		return ""
	}
	return string(s.texts.At(n))
}

// woID returns the id of wo.
func (s *vmEvents) woID(wo *vmWO) string { return string(s.wos.At(wo.n)) }

// msgID returns the id of m.
func (s *vmEvents) msgID(m *vmSent) string { return string(s.msgs.At(m.n)) }

// wo4 returns the work order of id, or nil; the pointer is valid until
// the next use of s.wo.
func (s *vmEvents) wo4(id []byte) *vmWO {
	n := s.recentWOs.get(id)
	if n == 0 {
		if n = s.wos.Get(id); n > 0 {
			s.recentWOs.put(id, n)
		}
	}
	if n > 0 {
		return s.wo.at(int(n) - 1)
	}
	return nil
}

// vmRecentBits is the base-2 logarithm of the number of ids a vmRecent
// holds.
const vmRecentBits = 10

// vmRecent holds the numbers in a pagedStrings of the ids looked up or
// added last (1<<vmRecentBits of them, 32 KiB, by a hash of the id, each
// in place of the one before it there), so that naming an id named a few
// events before reads neither the set's index nor its pages. An id longer
// than vmRecentEntry.id is not held. Numbers never change while the set
// lives; clear it with the set.
type vmRecent struct {
	e *[1 << vmRecentBits]vmRecentEntry // nil until the first put
}

// vmRecentEntry is one id of a vmRecent (n 0: none).
type vmRecentEntry struct {
	n  uint32
	l  uint8
	id [27]byte
}

// vmRecentSlot returns the entry of a vmRecent that may hold id.
// Eight bytes at a time; the last eight bytes of an id of eight or more
// in one load (overlapping the word before).
func vmRecentSlot(id []byte) uint {
	const k = 0x9e3779b97f4a7c15
	n := len(id)
	h := uint64(n)
	if n < 8 {
		var t uint64
		for i, c := range id {
			t |= uint64(c) << (8 * i)
		}
		return uint(((h ^ t) * k) >> (64 - vmRecentBits))
	}
	for i := 0; i+8 < n; i += 8 {
		h = (h ^ binary.LittleEndian.Uint64(id[i:])) * k
	}
	return uint(((h ^ binary.LittleEndian.Uint64(id[n-8:])) * k) >> (64 - vmRecentBits))
}

// get returns the number of id, or 0 when it is not held.
func (c *vmRecent) get(id []byte) uint32 {
	if c.e == nil || len(id) > len(c.e[0].id) {
		return 0
	}
	e := &c.e[vmRecentSlot(id)]
	if int(e.l) != len(id) || string(e.id[:e.l]) != string(id) {
		return 0
	}
	return e.n
}

// put holds n as the number of id.
func (c *vmRecent) put(id []byte, n uint32) {
	if len(id) > len(vmRecentEntry{}.id) {
		return
	}
	if c.e == nil {
		c.e = new([1 << vmRecentBits]vmRecentEntry)
	}
	e := &c.e[vmRecentSlot(id)]
	e.n, e.l = n, uint8(len(id))
	copy(e.id[:], id)
}

// Observe implements FileState: VM105, VM110-VM114, and the replay of
// work orders and mail for the tree rules; it notes the event's ids for
// Flush (VM100, VM104).
func (s *vmEvents) Observe(rec *StreamRecord, r *StreamReporter) {
	v := rec.Values
	line := uint32(rec.Line)
	s.marks.note(rec)
	s.noteIDs(rec)
	if !rec.Valid {
		s.invalid(rec)
		return
	}
	// VM105: timestamps never go backwards (a warning).
	if t := &v[evTime]; t.Type == ValueTime {
		if s.prevLine > 0 && t.Time < s.prevTime {
			s.reps.as(r, "VM105").Report(StreamFinding{Line: rec.Line, Column: t.Column, Pointer: "/timestamp",
				Reason: "timestamp " + string(t.Str) + " is earlier than " + string(s.prevText) + " of the event on line " + vmLine(s.prevLine) +
					" (events.jsonl is append-only)",
				Extra: map[string]any{"previous_line": int(s.prevLine)}})
		}
		s.prevLine, s.prevTime = line, t.Time
		s.prevText = append(s.prevText[:0], t.Str...)
	}
	switch typ := v[evType].Str; string(typ) {
	case "work_order.created":
		s.created(rec, r)
	case "work_order.updated", "work_order.status_changed", "work_order.assigned", "work_order.closed", "verify.started", "verify.verdict":
		if string(typ) == "verify.started" {
			s.processCreated(rec) // the verification process it starts
		}
		if wo := s.woRef(rec, r, evWO, "/data/work_order_id"); wo != nil {
			s.apply(wo, string(typ), rec, r)
		}
	case "process.created":
		s.processCreated(rec)
		s.woRef(rec, r, evWO, "/data/work_order_id")
	case "agent.working":
		s.woRef(rec, r, evWO, "/data/work_order_id")
	case "agent.started":
		s.woRef(rec, r, evAssignedWO, "/data/assigned_work_order")
	case "process.step_started", "process.step_completed", "process.completed":
		// VM114: the process was created earlier in this log.
		if p := &v[evProc]; p.Type == ValueString {
			if !s.procs.has(p.Str) {
				s.reps.as(r, "VM114").Report(StreamFinding{Line: rec.Line, Column: p.Column, Pointer: "/data/process_id",
					Reason: string(typ) + " of process " + strconv.Quote(string(p.Str)) + ", which no earlier process.created or verify.started of this log created",
					Extra:  map[string]any{"process_id": string(p.Str)}})
			}
		}
	case "mail.sent":
		s.mailSent(rec, true)
	case "mail.delivered", "mail.read":
		m := &v[evMsg]
		if m.Type != ValueString {
			return
		}
		sent := s.sent4(m.Str)
		if sent == nil {
			// VM113: the message was sent earlier in this log.
			s.reps.as(r, "VM113").Report(StreamFinding{Line: rec.Line, Column: m.Column, Pointer: "/data/message_id",
				Reason: string(typ) + " of message " + strconv.Quote(string(m.Str)) + ", which no earlier mail.sent of this log sent",
				Extra:  map[string]any{"message_id": string(m.Str)}})
			return
		}
		if string(typ) == "mail.read" {
			t := &v[evReadAt]
			sent.readAt = s.text(t.Str)
			sent.readTime, sent.readLine, sent.readCol, sent.readUnknown = t.Time, line, uint32(t.Column), false
		}
	}
}

// woRef returns the work order that the field at index i (pointer ptr) of
// a valid event names, or reports VM110 and returns nil when no earlier
// work_order.created of this log created it. A field that is not a string
// names nothing (nil, no finding: per-record validation reports it).
func (s *vmEvents) woRef(rec *StreamRecord, r *StreamReporter, i int, ptr string) *vmWO {
	w := &rec.Values[i]
	if w.Type != ValueString {
		return nil
	}
	wo := s.wo4(w.Str)
	if wo == nil {
		s.reps.as(r, "VM110").Report(StreamFinding{Line: rec.Line, Column: w.Column, Pointer: ptr,
			Reason: string(rec.Values[evType].Str) + " for work order " + strconv.Quote(string(w.Str)) + ", which no earlier work_order.created of this log created",
			Extra:  map[string]any{ptr[len("/data/"):]: string(w.Str)}})
	}
	return wo
}

// processCreated registers the process a process.created or verify.started
// event (valid or not) creates.
func (s *vmEvents) processCreated(rec *StreamRecord) {
	if p := &rec.Values[evProc]; p.Type == ValueString {
		s.procs.add(rec, p.Str)
	}
}

// sent4 returns the message of id, or nil; the pointer is valid until the
// next use of s.sent.
func (s *vmEvents) sent4(id []byte) *vmSent {
	n := s.recentMsgs.get(id)
	if n == 0 {
		if n = s.msgs.Get(id); n > 0 {
			s.recentMsgs.put(id, n)
		}
	}
	if n > 0 {
		return s.sent.at(int(n) - 1)
	}
	return nil
}

// created replays a valid work_order.created (VM111 for a second one).
func (s *vmEvents) created(rec *StreamRecord, r *StreamReporter) {
	v := rec.Values
	w := &v[evWO]
	line := uint32(rec.Line)
	n, added := s.wos.Add(w.Str)
	s.recentWOs.put(w.Str, n)
	if !added {
		wo := s.wo.at(int(n) - 1)
		if wo.createdInvalid {
			// The first creation was an invalid record (reported there):
			// this one takes its place.
			*wo = vmWO{n: n}
		} else {
			id := s.woID(wo)
			s.reps.as(r, "VM111").Report(StreamFinding{Line: rec.Line, Column: w.Column, Pointer: "/data/work_order_id",
				Reason: "work order " + strconv.Quote(id) + " was already created on line " + vmLine(wo.line),
				Extra:  map[string]any{"work_order_id": id, "first_line": int(wo.line)}})
			return
		}
	} else {
		s.wo.push(vmWO{n: n})
	}
	wo := s.wo.at(int(n) - 1)
	wo.line, wo.col = line, uint32(w.Column)
	wo.status, wo.statusLine = 1, line // open
	wo.title, wo.titleLine = s.text(v[evTitle].Str), line
	wo.priority, wo.priorityLine = int8(v[evPriority].Num), line
	wo.assignee, wo.assigneeLine = 0, line
}

// apply replays a valid event of a known work order (VM112 for a
// status_changed whose from_status is not the replayed status).
func (s *vmEvents) apply(wo *vmWO, typ string, rec *StreamRecord, r *StreamReporter) {
	v := rec.Values
	line := uint32(rec.Line)
	switch typ {
	case "work_order.updated":
		if x := &v[evChTitle]; x.Type == ValueString {
			wo.title, wo.titleLine = s.text(x.Str), line
		}
		if x := &v[evChPriority]; x.Type == ValueNumber {
			wo.priority, wo.priorityLine = int8(x.Num), line
		}
		switch x := &v[evChAssignee]; x.Type {
		case ValueString:
			wo.assignee, wo.assigneeLine = s.text(x.Str), line
		case ValueOther: // null: unassigned
			wo.assignee, wo.assigneeLine = 0, line
		}
		if x := &v[evChStatus]; x.Type == ValueString {
			wo.status, wo.statusLine = vmStatus(x.Str), line
		}
	case "work_order.status_changed":
		from := &v[evFromStatus]
		if wo.statusLine > 0 && vmStatus(from.Str) != wo.status {
			replayed, id := vmStatuses[wo.status], s.woID(wo)
			s.reps.as(r, "VM112").Report(StreamFinding{Line: rec.Line, Column: from.Column, Pointer: "/data/from_status",
				Reason: "from_status " + strconv.Quote(string(from.Str)) + ", but work order " + strconv.Quote(id) + " is " +
					strconv.Quote(replayed) + " (set on line " + vmLine(wo.statusLine) + ")",
				Extra: map[string]any{"work_order_id": id, "replayed_status": replayed, "status_line": int(wo.statusLine)}})
		}
		wo.status, wo.statusLine = vmStatus(v[evToStatus].Str), line
	case "work_order.assigned":
		wo.assignee, wo.assigneeLine = s.text(v[evAgent].Str), line
	case "work_order.closed":
		wo.status, wo.statusLine = vmClosed, line
	}
}

// mailSent records a mail.sent (valid: with its compared fields).
func (s *vmEvents) mailSent(rec *StreamRecord, valid bool) {
	v := rec.Values
	m := &v[evMsg]
	if m.Type != ValueString {
		return
	}
	n, added := s.msgs.Add(m.Str)
	s.recentMsgs.put(m.Str, n)
	if !added {
		if !valid || s.sent.get(int(n)-1).known {
			return // the first mail.sent is the message
		}
	} else {
		s.sent.push(vmSent{})
	}
	x := vmSent{n: n, line: uint32(rec.Line), col: uint32(m.Column), known: valid}
	if valid {
		x.from, x.to = s.text(v[evMailFrom].Str), s.text(v[evMailTo].Str)
		x.subject, x.typ = s.text(v[evSubject].Str), s.text(v[evMsgType].Str)
	}
	*s.sent.at(int(n) - 1) = x
}

// invalid registers what an invalid event carries and makes the fields it
// would change unknown.
func (s *vmEvents) invalid(rec *StreamRecord) {
	v := rec.Values
	if v[evType].Type != ValueString {
		return
	}
	typ := string(v[evType].Str)
	switch {
	case strings.HasPrefix(typ, "work_order."):
		w := &v[evWO]
		if w.Type != ValueString {
			return
		}
		wo := s.wo4(w.Str)
		if typ == "work_order.created" {
			if wo == nil {
				n, _ := s.wos.Add(w.Str)
				s.wo.push(vmWO{n: n, line: uint32(rec.Line), col: uint32(w.Column), createdInvalid: true})
			}
			return
		}
		if wo == nil {
			return
		}
		switch typ {
		case "work_order.updated":
			if v[evChTitle].Type != ValueAbsent {
				wo.titleLine = 0
			}
			if v[evChPriority].Type != ValueAbsent {
				wo.priorityLine = 0
			}
			if v[evChAssignee].Type != ValueAbsent {
				wo.assigneeLine = 0
			}
			if v[evChStatus].Type != ValueAbsent {
				wo.statusLine = 0
			}
		case "work_order.status_changed", "work_order.closed":
			wo.statusLine = 0
		case "work_order.assigned":
			wo.assigneeLine = 0
		}
	case typ == "process.created" || typ == "verify.started":
		s.processCreated(rec)
	case typ == "mail.sent":
		s.mailSent(rec, false)
	case typ == "mail.read":
		if m := s.sent4(v[evMsg].Str); v[evMsg].Type == ValueString && m != nil {
			m.readUnknown = true
		}
	}
}

// Expect implements Expecter: room for the event ids of the whole file.
func (s *vmEvents) Expect(records int) { s.ids.expect(records) }

// Finish implements FileState: the event and process ids are no longer
// needed; the tree rules read the work orders and messages of a file named
// events.jsonl (vmTree.AddFile), which vmTree.Finish releases; those of
// any other event log are released now.
func (s *vmEvents) Finish(r *StreamReporter) {
	s.Flush(r)
	if err := cmp.Or(s.ids.err(), s.procs.err()); err != nil {
		r.Report(StreamFinding{File: s.file,
			Reason: "the event and process ids of this log could not be read back from their temporary files (" +
				err.Error() + "): not every repeat and reference was checked"})
	}
	s.ids.free()
	s.procs.free()
	s.ids, s.procs, s.marks = nil, nil, lineMarks{}
	s.reportLost(r)
	if filepath.Base(s.file) != "events.jsonl" {
		s.release()
	}
}

// reportLost reports, once, that pages of the replay state could not be
// read back from their temporary file: the checks that read them saw
// empty work orders and messages.
func (s *vmEvents) reportLost(r *StreamReporter) {
	err := cmp.Or(s.pf.err, s.wos.err(), s.msgs.err())
	if err == nil || s.lostSaid {
		return
	}
	s.lostSaid = true
	r.Report(StreamFinding{File: s.file,
		Reason: "the work orders and messages replayed from this log could not be read back from their temporary files (" +
			err.Error() + "): not all were checked"})
}

// release frees the replay state and closes its temporary file.
func (s *vmEvents) release() {
	s.wos.Free()
	s.msgs.Free()
	s.recentWOs, s.recentMsgs, s.recentTexts = vmRecent{}, vmRecent{}, vmRecent{}
	s.texts.Free()
	s.wo.free()
	s.sent.free()
	s.pf.close()
}

// ---- work_orders.jsonl

// vmWorkOrders is the state of one work-order projection.
type vmWorkOrders struct {
	file string
	reps vmReps
	ids  *idTable // id → index into wos
	wos  []vmProj
	in   interner
}

// vmProj is one line of work_orders.jsonl: its compared fields and their
// columns (valid lines only; an invalid line registers its id).
type vmProj struct {
	id                                     string
	line, col                              uint32
	valid                                  bool
	status                                 uint8
	priority                               int8
	title, assignee                        string
	statusCol, titleCol, priorCol, asgnCol uint32
	deps                                   []vmDep
}

// vmDep is one dependency of a work order.
type vmDep struct {
	target string
	typ    string // "blocks" when absent (seed 000, class Dependency)
	index  int
	col    uint32 // of depends_on_id
}

// Observe implements FileState: VM101, and the work orders for VM120-VM122
// and the tree rules.
func (s *vmWorkOrders) Observe(rec *StreamRecord, r *StreamReporter) {
	v := rec.Values
	id := &v[woID]
	if id.Type != ValueString {
		return
	}
	first, dup := s.ids.add(id.Str, uint32(len(s.wos)))
	if dup {
		if rec.Valid {
			vmRepeated(s.reps.as(r, "VM101"), rec, id, "/id", "work order", s.wos[first].line, " (work_orders.jsonl holds one line per work order)")
		}
		return
	}
	p := vmProj{id: string(id.Str), line: uint32(rec.Line), col: uint32(id.Column), valid: rec.Valid}
	if rec.Valid {
		p.status, p.statusCol = vmStatus(v[woStatus].Str), uint32(v[woStatus].Column)
		p.title, p.titleCol = string(v[woTitle].Str), uint32(v[woTitle].Column)
		p.priority, p.priorCol = int8(v[woPriority].Num), uint32(v[woPriority].Column)
		if a := &v[woAssignee]; a.Type == ValueString {
			p.assignee, p.asgnCol = s.in.of(a.Str), uint32(a.Column)
		}
		if d := &v[woDeps]; d.Type == ValueRaw {
			p.deps = vmParseDeps(d.Str, uint32(d.Column), s.in)
		}
	}
	s.wos = append(s.wos, p)
}

// vmParseDeps reads the dependencies array of a valid work order (the
// schema has checked its shape): target, type and the column of each
// depends_on_id (col0 is the column of the array).
func vmParseDeps(raw []byte, col0 uint32, in interner) []vmDep {
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '[' {
		return nil
	}
	var deps []vmDep
	for i := 0; d.PeekKind() == '{'; i++ {
		if _, err := d.ReadToken(); err != nil {
			return deps
		}
		dep := vmDep{typ: "blocks", index: i}
		for d.PeekKind() == '"' {
			tok, err := d.ReadToken()
			if err != nil {
				return deps
			}
			name := tok.String() // before the next read voids tok
			val, err := d.ReadValue()
			if err != nil {
				return deps
			}
			start := d.InputOffset() - int64(len(val))
			if val.Kind() == '"' {
				if s, err := jsontext.AppendUnquote(nil, val); err == nil {
					switch name {
					case "depends_on_id":
						dep.target, dep.col = string(s), col0+uint32(start)
					case "type":
						dep.typ = in.of(s)
					}
				}
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return deps
		}
		deps = append(deps, dep)
	}
	return deps
}

// Finish implements FileState: VM120 (a blocks dependency not closed),
// VM121 (an unknown work order) and VM122 (cycles), which need the whole
// file.
func (s *vmWorkOrders) Finish(r *StreamReporter) {
	notMet, unknown := s.reps.as(r, "VM120"), s.reps.as(r, "VM121")
	for i := range s.wos {
		p := &s.wos[i]
		for _, d := range p.deps {
			ptr := "/dependencies/" + strconv.Itoa(d.index) + "/depends_on_id"
			j, ok := s.ids.get([]byte(d.target))
			if !ok {
				unknown.Report(StreamFinding{Line: int(p.line), Column: int(d.col), Pointer: ptr,
					Reason: "dependency " + strconv.Quote(d.target) + " of work order " + strconv.Quote(p.id) + " is not a work order of this file",
					Extra:  map[string]any{"id": p.id, "depends_on_id": d.target}})
				continue
			}
			t := &s.wos[j]
			if d.typ == "blocks" && (p.status == vmInProgress || p.status == vmClosed) && t.valid && t.status != vmClosed {
				notMet.Report(StreamFinding{Line: int(p.line), Column: int(d.col), Pointer: ptr,
					Reason: "work order " + strconv.Quote(p.id) + " is " + vmStatuses[p.status] + ", but it is blocked by " + strconv.Quote(t.id) +
						", which is " + vmStatuses[t.status] + " (line " + vmLine(t.line) + ")",
					Extra: map[string]any{"id": p.id, "depends_on_id": t.id, "depends_on_status": vmStatuses[t.status], "depends_on_line": int(t.line)}})
			}
		}
	}
	if cyc := s.reps.as(r, "VM122"); cyc.Enabled() {
		s.cycles(cyc)
	}
}

// cycles reports each cycle of dependencies once (every type but
// "related", which links both ways by nature), at the dependency of its
// first work order in file order that continues it, naming the cycle.
func (s *vmWorkOrders) cycles(r *StreamReporter) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(s.wos))
	type frame struct{ node, next int }
	var stack []frame
	onStack := map[int]int{} // node → position in stack
	for root := range s.wos {
		if color[root] != white {
			continue
		}
		stack = append(stack[:0], frame{root, 0})
		color[root], onStack[root] = grey, 0
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			p := &s.wos[f.node]
			if f.next >= len(p.deps) {
				color[f.node] = black
				delete(onStack, f.node)
				stack = stack[:len(stack)-1]
				continue
			}
			d := p.deps[f.next]
			f.next++
			if d.typ == "related" {
				continue
			}
			j, ok := s.ids.get([]byte(d.target))
			if !ok || !s.wos[j].valid {
				continue
			}
			switch color[j] {
			case white:
				color[j], onStack[int(j)] = grey, len(stack)
				stack = append(stack, frame{int(j), 0})
			case grey:
				// stack[onStack[j]:] is a cycle; the node with the lowest
				// line (index) reports it.
				nodes := make([]int, 0, len(stack)-onStack[int(j)])
				for _, fr := range stack[onStack[int(j)]:] {
					nodes = append(nodes, fr.node)
				}
				low := 0
				for k := range nodes {
					if nodes[k] < nodes[low] {
						low = k
					}
				}
				nodes = append(nodes[low:], nodes[:low]...)
				names := make([]string, 0, len(nodes)+1)
				for _, n := range nodes {
					names = append(names, s.wos[n].id)
				}
				names = append(names, names[0])
				head := &s.wos[nodes[0]]
				next := nodes[0]
				if len(nodes) > 1 {
					next = nodes[1]
				}
				for _, hd := range head.deps {
					if k, ok := s.ids.get([]byte(hd.target)); ok && int(k) == next && hd.typ != "related" {
						r.Report(StreamFinding{Line: int(head.line), Column: int(hd.col),
							Pointer: "/dependencies/" + strconv.Itoa(hd.index) + "/depends_on_id",
							Reason:  "work orders depend on each other in a cycle: " + strings.Join(names, " → "),
							Extra:   map[string]any{"cycle": names}})
						break
					}
				}
			}
		}
	}
}

// ---- messages.jsonl

// vmMessages is the state of one message projection.
type vmMessages struct {
	file string
	reps vmReps
	ids  *idTable // id → index into msgs
	msgs []vmMsg
}

// vmMsg is one line of messages.jsonl (compared fields of valid lines).
type vmMsg struct {
	id                             string
	line, col                      uint32
	valid                          bool
	from, to, subject, typ         string
	hasType                        bool
	readAt                         string // "" when null or absent
	readTime                       int64
	fromCol, toCol, subjCol, tyCol uint32
	readCol                        uint32
}

// Observe implements FileState: VM102, and the messages for VM131.
func (s *vmMessages) Observe(rec *StreamRecord, r *StreamReporter) {
	v := rec.Values
	id := &v[msgID]
	if id.Type != ValueString {
		return
	}
	first, dup := s.ids.add(id.Str, uint32(len(s.msgs)))
	if dup {
		if rec.Valid {
			vmRepeated(s.reps.as(r, "VM102"), rec, id, "/id", "message", s.msgs[first].line, " (messages.jsonl holds one line per message)")
		}
		return
	}
	m := vmMsg{id: string(id.Str), line: uint32(rec.Line), col: uint32(id.Column), valid: rec.Valid}
	if rec.Valid {
		m.from, m.fromCol = string(v[msgFrom].Str), uint32(v[msgFrom].Column)
		m.to, m.toCol = string(v[msgTo].Str), uint32(v[msgTo].Column)
		m.subject, m.subjCol = string(v[msgSubject].Str), uint32(v[msgSubject].Column)
		if t := &v[msgType]; t.Type == ValueString {
			m.typ, m.hasType, m.tyCol = string(t.Str), true, uint32(t.Column)
		}
		m.readCol = uint32(v[msgReadAt].Column)
		if t := &v[msgReadAt]; t.Type == ValueTime {
			m.readAt, m.readTime = string(t.Str), t.Time
		}
	}
	s.msgs = append(s.msgs, m)
}

func (s *vmMessages) Finish(*StreamReporter) {}

// ---- routes.jsonl

// vmRoutes is the state of one routes.jsonl: prefix → line.
type vmRoutes struct {
	file     string
	reps     vmReps
	prefixes map[string]uint32
}

// Observe implements FileState: VM103; every prefix (of invalid lines too)
// counts as declared for VM136.
func (s *vmRoutes) Observe(rec *StreamRecord, r *StreamReporter) {
	p := &rec.Values[0]
	if p.Type != ValueString {
		return
	}
	if first, dup := s.prefixes[string(p.Str)]; dup {
		if rec.Valid {
			vmRepeated(s.reps.as(r, "VM103"), rec, p, "/prefix", "prefix", first, " (a prefix is routed once)")
		}
		return
	}
	s.prefixes[string(p.Str)] = uint32(rec.Line)
}

func (s *vmRoutes) Finish(*StreamReporter) {}

// ---- registry

// vmEv returns one event line of the examples: id is the event_id's last
// character(s), sec the second after 12:00:00, extra more members
// (`"caused_by":…,`) and data the data object.
func vmEv(id string, sec int, typ, extra, data string) string {
	return `{"event_id":"evt-k7q2m9x4p1` + id + `","event_type":"` + typ + `","timestamp":"2026-01-06T12:00:` +
		strconv.Itoa(100 + sec)[1:] + `.000Z","actor":"ceo",` + extra + `"data":` + data + "}\n"
}

const (
	vmCreated = `{"work_order_id":"wo-abc123","title":"Implement feature X","issue_type":"feature","priority":2,"created_by":"ceo"}`
	vmUpdated = `{"work_order_id":"wo-abc123","changes":{"priority":1}}`
	vmStarted = `{"work_order_id":"wo-abc123","from_status":"open","to_status":"in_progress"}`

	vmSentData    = `{"message_id":"msg-xyz789","from":"project-a/workers/slot0","to":"project-a/supervisor","subject":"WORKER_DONE","message_type":"WORKER_DONE"}`
	vmRead        = `{"message_id":"msg-xyz789","reader":"project-a/supervisor","read_at":"2026-01-06T12:05:00.000Z"}`
	vmProcCreated = `{"process_id":"proc-abc123","template":"worker-execute","work_order_id":"wo-abc123"}`
	vmStepData    = `{"process_id":"proc-abc123","step_id":"implement"}`
)

// vmWorkOrderLine returns one line of work_orders.jsonl; deps are the
// ids it blocks on.
func vmWorkOrderLine(id, status string, deps ...string) string {
	var ds []string
	for _, d := range deps {
		ds = append(ds, `{"depends_on_id":"`+d+`","type":"blocks","created_at":"2026-01-06T10:05:00.000Z","created_by":"ceo"}`)
	}
	return `{"id":"` + id + `","title":"Work order ` + id + `","status":"` + status + `","priority":2,"issue_type":"task",` +
		`"created_at":"2026-01-06T10:00:00.000Z","updated_at":"2026-01-06T12:00:00.000Z","created_by":"ceo","dependencies":[` +
		strings.Join(ds, ",") + "]}\n"
}

func vmMessageLine(id string) string {
	return `{"id":"` + id + `","from":"project-a/workers/slot0","to":"project-a/supervisor","subject":"WORKER_DONE",` +
		`"body":"Work completed","message_type":"WORKER_DONE","timestamp":"2026-01-06T12:00:00.000Z","read_at":null}` + "\n"
}

// vermasStreamRules defines the rules of this file (group VM, loaded on first use: see groups).
func vermasStreamRules() {
	const within = `README, Codes and precedence, LEDGER_INCONSISTENT (duplicate ids); cue/README.md, Decisions, "Within one log"`
	ev1 := vmEv("a1", 0, "work_order.created", "", vmCreated)
	register(
		&Rule{
			ID: "VM100", Name: "event-id-unique", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindEvent},
			Summary:     "an event_id is used once per event log (the finding names the line of its first use)",
			Source:      `seed 000 "Base Event" (event_id: Unique ID); ` + within,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return ev1 + vmEv("a1", 1, "work_order.updated", "", vmUpdated), ev1 + vmEv("a2", 1, "work_order.updated", "", vmUpdated)
			},
		},
		&Rule{
			ID: "VM101", Name: "work-order-line-unique", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindWorkOrder},
			Summary:     "work_orders.jsonl is a projection: one line per work order id (the finding names the first line)",
			Source:      `seed 000 "Work Order Schema" (id: Unique ID); cue/README.md, vermas (projections); ` + within,
			ExampleKind: vmKindWorkOrder,
			examples: func() (string, string) {
				return vmWorkOrderLine("wo-abc123", "open") + vmWorkOrderLine("wo-abc123", "closed"), vmWorkOrderLine("wo-abc123", "closed") + vmWorkOrderLine("wo-def456", "open")
			},
		},
		&Rule{
			ID: "VM102", Name: "message-line-unique", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindMessage},
			Summary:     "messages.jsonl is a projection: one line per message id (the finding names the first line)",
			Source:      `seed 000 "Message Schema" (id: Unique ID); cue/README.md, vermas (projections); ` + within,
			ExampleKind: vmKindMessage,
			examples: func() (string, string) {
				return vmMessageLine("msg-xyz789") + vmMessageLine("msg-xyz789"), vmMessageLine("msg-xyz789") + vmMessageLine("msg-xyz790")
			},
		},
		&Rule{
			ID: "VM103", Name: "route-prefix-unique", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindRoute},
			Summary:     "routes.jsonl routes each id prefix once (the finding names the first line)",
			Source:      `seed 000 "Route Schema" (routes map ID prefixes to work locations); ` + within,
			ExampleKind: vmKindRoute,
			Example: `{"prefix":"wo","path":"/srv/project-a/.work","factory":"project-a"}` + "\n" +
				`{"prefix":"wo","path":"/srv/company/.work","factory":null}` + "\n",
			Fixed: `{"prefix":"wo","path":"/srv/project-a/.work","factory":"project-a"}` + "\n" +
				`{"prefix":"hq","path":"/srv/company/.work","factory":null}` + "\n",
		},
		&Rule{
			ID: "VM104", Name: "caused-by-earlier-event", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindEvent},
			Summary:     "caused_by names an event_id of an earlier event of the same log",
			Source:      `seed 000 "Base Event" (caused_by: Event that triggered this); README, Codes and precedence, LEDGER_INCONSISTENT (dangling references)`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return ev1 + vmEv("a2", 1, "work_order.updated", `"caused_by":"evt-k7q2m9x4p1a9",`, vmUpdated), ev1 + vmEv("a2", 1, "work_order.updated", `"caused_by":"evt-k7q2m9x4p1a1",`, vmUpdated)
			},
		},
		&Rule{
			ID: "VM105", Name: "event-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindEvent},
			Summary:     "an event's timestamp is earlier than the previous event's (events.jsonl is append-only; both lines are named)",
			Source:      `seed 000 "File Layout" (events.jsonl: event log, JSONL for append-only logs); cue/README.md, Decisions, "Ordering"`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return vmEv("a1", 5, "work_order.created", "", vmCreated) + vmEv("a2", 1, "work_order.updated", "", vmUpdated), ev1 + vmEv("a2", 1, "work_order.updated", "", vmUpdated)
			},
		},
		&Rule{
			ID: "VM110", Name: "work-order-never-created", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope: ScopeFile,
			Kinds: []string{vmKindEvent},
			Summary: "an event names a work order that no earlier work_order.created of the log created: work_order.* and verify.* " +
				"(work_order_id), agent.working and process.created (work_order_id), agent.started (assigned_work_order)",
			Source:      `seed 000 "Work Order Events", "Verification Events", "Agent Events", "Process Events"`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return vmEv("a2", 1, "work_order.updated", "", vmUpdated), ev1 + vmEv("a2", 1, "work_order.updated", "", vmUpdated)
			},
		},
		&Rule{
			ID: "VM113", Name: "message-never-sent", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindEvent},
			Summary:     "a mail.delivered or mail.read event names a message_id that no earlier mail.sent of the log sent",
			Source:      `seed 000 "Mail Events" (mail.sent, mail.delivered, mail.read); LEDGER_INCONSISTENT (dangling references)`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return vmEv("a2", 1, "mail.read", "", vmRead), vmEv("a1", 0, "mail.sent", "", vmSentData) + vmEv("a2", 1, "mail.read", "", vmRead)
			},
		},
		&Rule{
			ID: "VM114", Name: "process-never-created", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope: ScopeFile,
			Kinds: []string{vmKindEvent},
			Summary: "a process.step_started, process.step_completed or process.completed event names a process_id that no earlier " +
				"process.created (or verify.started, which starts a verification process) of the log created",
			Source:      `seed 000 "Process Events", "Verification Events"; LEDGER_INCONSISTENT (dangling references)`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return ev1 + vmEv("a2", 1, "process.step_started", "", vmStepData), ev1 + vmEv("a2", 1, "process.created", "", vmProcCreated) + vmEv("a3", 2, "process.step_started", "", vmStepData)
			},
		},
		&Rule{
			ID: "VM111", Name: "work-order-created-twice", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindEvent},
			Summary:     "a work order is created once per log (the finding names the line of the first work_order.created)",
			Source:      `seed 000 "Work Order Events" (work_order.created); cue/README.md, Decisions, "VerMAS work-order history"`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return ev1 + vmEv("a2", 1, "work_order.created", "", vmCreated), ev1 + vmEv("a2", 1, "work_order.updated", "", vmUpdated)
			},
		},
		&Rule{
			ID: "VM112", Name: "status-change-from-replayed", Code: envelope.InvalidTransition, Severity: envelope.SeverityError,
			Scope: ScopeFile,
			Kinds: []string{vmKindEvent},
			Summary: "work_order.status_changed: from_status is the work order's status replayed from the earlier events " +
				"(created: open; updated changes.status, status_changed to_status, closed: closed; assigned keeps it)",
			Source:      `seed 000 "Work Order Events" (work_order.status_changed); README, Codes and precedence, INVALID_TRANSITION`,
			ExampleKind: vmKindEvent,
			examples: func() (string, string) {
				return ev1 + vmEv("a2", 1, "work_order.status_changed", "", strings.Replace(vmStarted, `"open"`, `"assigned"`, 1)), ev1 + vmEv("a2", 1, "work_order.status_changed", "", vmStarted)
			},
		},
		&Rule{
			ID: "VM120", Name: "work-order-blocked", Code: envelope.DependencyNotMet, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindWorkOrder},
			Summary:     "a work order in_progress or closed has every blocks dependency (type blocks or absent) closed",
			Source:      `seed 000 "Work Order Schema" (dependencies; class Dependency: type defaults to "blocks"); README, Codes and precedence, DEPENDENCY_NOT_MET`,
			ExampleKind: vmKindWorkOrder,
			examples: func() (string, string) {
				return vmWorkOrderLine("wo-dep456", "open") + vmWorkOrderLine("wo-abc123", "in_progress", "wo-dep456"), vmWorkOrderLine("wo-dep456", "closed") + vmWorkOrderLine("wo-abc123", "in_progress", "wo-dep456")
			},
		},
		&Rule{
			ID: "VM121", Name: "work-order-dependency-unknown", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindWorkOrder},
			Summary:     "a dependency's depends_on_id names a work order of the same work_orders.jsonl",
			Source:      `seed 000 "Work Order Schema" (dependencies[].depends_on_id); README, Codes and precedence, LEDGER_INCONSISTENT (dangling references)`,
			ExampleKind: vmKindWorkOrder,
			examples: func() (string, string) {
				return vmWorkOrderLine("wo-abc123", "open", "wo-dep456"), vmWorkOrderLine("wo-dep456", "open") + vmWorkOrderLine("wo-abc123", "open", "wo-dep456")
			},
		},
		&Rule{
			ID: "VM122", Name: "work-order-dependency-cycle", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError,
			Scope:       ScopeFile,
			Kinds:       []string{vmKindWorkOrder},
			Summary:     "work-order dependencies (every type but related) form no cycle; the cycle is named",
			Source:      `seed 000 "Work Order Schema" (dependencies); cue/README.md, Decisions, "VerMAS work-order dependencies"`,
			ExampleKind: vmKindWorkOrder,
			examples: func() (string, string) {
				return vmWorkOrderLine("wo-dep456", "open", "wo-abc123") + vmWorkOrderLine("wo-abc123", "open", "wo-dep456"), vmWorkOrderLine("wo-dep456", "open") + vmWorkOrderLine("wo-abc123", "open", "wo-dep456")
			},
		},
	)
	for _, id := range []string{"VM100", "VM101", "VM102", "VM103", "VM104", "VM105", "VM110", "VM111", "VM112", "VM113", "VM114", "VM120", "VM121", "VM122"} {
		registerStream(id, theVermasCheck)
	}
}
