package rules

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/secrets"
	"github.com/agentlint/agentlint/lint/timefmt"
	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// Stream rules of collector logs (seed 004 "JSONL Event System
// Specification"), written to match how logs are written. Seed 004 "File Naming Convention"
// names daily logs (events-{date}.jsonl) and per-agent logs
// (events-{agent_id}-{date}.jsonl): one trace spans several files, and a
// parent span is often in another agent's log or in yesterday's.
//
//   - CL100: an event_id appears once per log (seed 004: "UUID for this
//     event"). UUIDs are compared as 128-bit values, so the same UUID in
//     upper and lower case is a duplicate (RFC 9562 section 4: UUIDs are
//     case-insensitive on input); other strings are compared as written.
//     Checked within each log, so the verdict does not depend on the other
//     files of the run: a daily and a per-agent log may both record one
//     event, so the same event_id in two logs is no evidence of a mistake.
//   - CL101: correlation.parent_span_id names a span_id of the same
//     trace_id anywhere in the collector logs of the run, before or after
//     the child (resolved after the last file); events without a trace_id
//     form one trace of their own. Whether a parent is found depends on
//     which logs were linted together, so it is a warning (the code stays
//     LEDGER_INCONSISTENT); a parent_span_id equal to the event's own
//     span_id is reported at once.
//   - CL102: timestamps never go backwards within a log (warning).
//
// No cascades (cue/README.md, Decisions): a record that failed validation still registers
// its event_id and span_id when they are strings; only valid records are
// checked for dangling parents and time order.
//
// Memory: CL100 keeps the last 65,536 UUIDs of its log in an exact
// open-addressing table (16 bytes each: 60 bits of hash, the record's byte
// offset and line) and the older ones in sorted runs in temporary files
// behind a Bloom filter of 12 bits an id (idRuns, as the VerMAS ids); a
// possible repeat is confirmed by reading the earlier record again. CL101
// keeps the last 65,536 spans of the run as 12-byte entries of a table and
// the older ones in sorted runs on disk (each its 64-bit hash and first
// word, which are the whole entry), each distinct trace_id and long
// span_id once in paged sets (their recent pages and index entries in
// memory, the rest in a temporary file; caches of the recent trace_ids),
// and a 24-byte reference to each parent the spans in memory did not
// resolve when it was read, the oldest in a temporary file. After the last
// file the references are decided at once: sorted by their parent's hash
// (runs on disk) and merged with the runs of the spans, one pass over each
// (a merge join), leaving a bit a reference. A reference is not a finding:
// the findings are rendered after the last file, one at a time, in output
// order (OrderedTreeState), the parent's text from the reference's key or,
// for a span_id too long for a key, from its record read again at its byte
// offset. What still grows with the log: the Bloom filter (about 2 bytes
// an event_id), a bit a reference at the end of the run; standard input,
// which cannot be read again, keeps whole UUIDs (20 bytes each) and the
// text of long parents until the end of the run; a run that lints a path
// twice sorts the references left unresolved in memory. A temporary file
// is removed as soon as it is created where the system allows it, and is
// never a path the user named; when one cannot be created or written, the
// state stays in memory; when one cannot be read back, the rule reports
// that its checks are incomplete.

// collectorTrace is seed 004's "Multi-Agent Pipeline" example with event ids:
// its spans form a tree inside trace-abc.
var collectorTrace = []string{
	`{"version":"1.0.0","event_type":"lifecycle.started","timestamp":"2025-12-13T20:00:00.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000001","session_id":"pipeline-001","message":"Starting PRD creation","correlation":{"trace_id":"trace-abc","span_id":"span-001"}}`,
	`{"version":"1.0.0","event_type":"activity.thinking","timestamp":"2025-12-13T20:00:05.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000002","session_id":"pipeline-001","message":"Analyzing requirements","correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-001"}}`,
	`{"version":"1.0.0","event_type":"lifecycle.completed","timestamp":"2025-12-13T20:05:00.000Z","agent_id":"@pm-agent","event_id":"0b6f3c1e-1d2a-4b7c-9e8f-000000000003","session_id":"pipeline-001","message":"PRD complete","correlation":{"trace_id":"trace-abc","span_id":"span-003","parent_span_id":"span-001"}}`,
}

// uuidKey returns the 128-bit value of a UUID in the 8-4-4-4-12 layout
// (hex digits of either case); ok is false for anything else. The 32
// digits are decoded eight at a time (hex8).
func uuidKey(s []byte) (k [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	a, okA := timefmt.DecodeHex8(binary.LittleEndian.Uint64(s), true)
	b, okB := timefmt.DecodeHex8(uint64(binary.LittleEndian.Uint32(s[9:]))|uint64(binary.LittleEndian.Uint32(s[14:]))<<32, true)
	c, okC := timefmt.DecodeHex8(uint64(binary.LittleEndian.Uint32(s[19:]))|uint64(binary.LittleEndian.Uint32(s[24:]))<<32, true)
	d, okD := timefmt.DecodeHex8(binary.LittleEndian.Uint64(s[28:]), true)
	binary.LittleEndian.PutUint32(k[0:], a)
	binary.LittleEndian.PutUint32(k[4:], b)
	binary.LittleEndian.PutUint32(k[8:], c)
	binary.LittleEndian.PutUint32(k[12:], d)
	return k, okA && okB && okC && okD
}

// uuidFold returns the 32 hex digits of a UUID in the 8-4-4-4-12 layout
// (hex digits of either case) as four words of lowercase text (as
// binary.LittleEndian reads them: the first eight digits, the next two
// groups of four, the next four and the first four of the last group, its
// last eight); ok is false for anything else. Two UUIDs are equal as
// 128-bit values exactly when their folded words are: CL100 hashes and
// compares those instead of decoding the digits (uuidKey).
func uuidFold(s []byte) (w [4]uint64, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return w, false
	}
	le := binary.LittleEndian
	w[0] = le.Uint64(s)
	w[1] = uint64(le.Uint32(s[9:])) | uint64(le.Uint32(s[14:]))<<32
	w[2] = uint64(le.Uint32(s[19:])) | uint64(le.Uint32(s[24:]))<<32
	w[3] = le.Uint64(s[28:])
	if !timefmt.IsHex8(w[0]) || !timefmt.IsHex8(w[1]) || !timefmt.IsHex8(w[2]) || !timefmt.IsHex8(w[3]) {
		return w, false
	}
	const fold = 0x2020202020202020 // 'A'-'F' to 'a'-'f'; digits unchanged
	w[0], w[1], w[2], w[3] = w[0]|fold, w[1]|fold, w[2]|fold, w[3]|fold
	return w, true
}

// uuidFoldHash is the hash of a UUID's folded words (uuidFold): the key
// of CL100's entries of a file that can be read again.
func uuidFoldHash(w *[4]uint64) uint64 {
	return idtab.Hash(w[0]^idtab.Hash(w[2], w[3]), w[1])
}

// nilUUIDFold is uuidFold's word for each group of the nil UUID.
const nilUUIDFold = 0x3030303030303030

// collectorDupID is the stream check of CL100.
type collectorDupID struct{}

// cl100Fields is CL100's field (one slice: Source caches by it).
var cl100Fields = []Field{{Pointer: "/event_id", Type: FieldString}}

func (collectorDupID) Fields() []Field { return cl100Fields }

func (collectorDupID) NewFile(string, *Options) FileState {
	return &collectorDupIDState{
		uuids:  idtab.New(5, uuidEntryHash),
		offs:   idtab.New(4, func(e []uint32) uint64 { return uint64(e[2])<<32 | uint64(e[1]&^15) }),
		hotMax: collectorLimits.uuids,
		disk:   idRuns{dirName: collectorLimits.dir},
		other:  firstLines{},
	}
}

// collectorLimits are what CL100 and CL101 keep in memory before the rest
// goes to temporary files, and where those go ("": the system's temporary
// directory): a variable for the tests, which lower them.
var collectorLimits = struct {
	uuids, spans, strings int    // entries in memory: CL100's UUIDs, CL101's spans, and its trace_ids and long span_ids (index)
	chunk, blocks         int    // CL101's pending references: a block's, and the full blocks kept in memory
	dir                   string // the temporary files' directory
}{hotIDs, hotSpans, hotStrings, refChunk, spillBlocks, ""}

// collectorDupIDState keeps every event_id of one log, exactly:
//
//   - in a file the engine can read again (rec.Source), a UUID is kept as
//     an entry of 60 bits of the hash of its lowercase text (uuidFold),
//     its record's byte offset and line:
//     the last hotMax of them in memory (offs: 16 bytes each), the older
//     ones on disk (disk: sorted runs in temporary files behind a Bloom
//     filter of 12 bits an id, idRuns); a possible repeat (same hash bits)
//     is confirmed by reading the earlier record again and comparing its
//     UUID;
//   - otherwise (standard input, offsets beyond 64 GiB, lines beyond
//     2^28-1), as its 16 bytes and line in a 20-byte entry (uuids), the
//     nil UUID on its own;
//   - other strings (which the schema rejects) as written (other).
type collectorDupIDState struct {
	uuids   *idtab.Table
	offs    *idtab.Table // offset+1 (36 bits), hash &^ 15, line
	hotMax  int          // entries of offs beyond which they go to disk: hotIDs (tests: fewer)
	disk    idRuns       // the older entries of offs
	ents    []idEntry
	src     Source
	nilLine int // line of the nil UUID; 0: not seen
	other   firstLines
	e       [5]uint32
	seen    int // records observed
	vals    [1]Value
	// The UUIDs of the current batch (Flusher), their texts and the
	// slots their lookups read.
	batch []uuidRef
	texts []byte
	lines []*uint32
	sink  uint32
}

// uuidRef is an event_id of the current batch, decided by Flush.
type uuidRef struct {
	w         [4]uint64 // its folded words (uuidFold)
	h         uint64    // uuidFoldHash of w
	off       int64     // the record's byte offset; -1: it cannot be read again
	line, col int32
	text      uint32 // the event_id as written: texts[text:text+36]
}

// offMax bounds the offsets an entry of CL100 or recordIDs holds (36
// bits: 64 GiB); lineMax the lines of CL100's (28 bits).
const (
	offMax  = 1<<36 - 1
	lineMax = 1<<28 - 1
)

// uuidWords splits a UUID's 16 bytes into the 4 key words of an entry.
func uuidWords(k *[16]byte, e []uint32) {
	for i := 0; i < 4; i++ {
		e[i] = binary.LittleEndian.Uint32(k[4*i:])
	}
}

func uuidEntryHash(e []uint32) uint64 {
	return idtab.Hash(uint64(e[0])|uint64(e[1])<<32, uint64(e[2])|uint64(e[3])<<32)
}

// firstUUID records the UUID text (36 bytes, of folded words w and hash
// h: uuidFold, uuidFoldHash) of the record on line, at byte offset off of
// a file that can be read again (-1 otherwise), and returns the line of
// its first occurrence and whether that was an earlier record.
func (s *collectorDupIDState) firstUUID(text []byte, w *[4]uint64, h uint64, line int, off int64) (int, bool) {
	if w[0] == nilUUIDFold && w[1] == nilUUIDFold && w[2] == nilUUIDFold && w[3] == nilUUIDFold {
		if s.nilLine > 0 {
			return s.nilLine, true
		}
		s.nilLine = line
		return line, false
	}
	// The UUIDs kept whole (uuids) are placed by the hash of their value.
	var k [16]byte
	var hk uint64
	var cu idtab.Cursor
	if s.uuids.Len() > 0 {
		k, _ = uuidKey(text)
		uuidWords(&k, s.e[:4])
		hk = uuidEntryHash(s.e[:4])
		cu = s.uuids.Probe(hk)
		for e := cu.Next(); e != nil; e = cu.Next() {
			if e[0] == s.e[0] && e[1] == s.e[1] && e[2] == s.e[2] && e[3] == s.e[3] {
				return int(e[4]), true
			}
		}
	}
	// The offs table places an entry by the 60 hash bits it stores (so that
	// it can grow without reading records again); the runs on disk sort
	// them by the same key, with the offset and line in one word.
	key := h &^ 15
	co := s.offs.Probe(key)
	if s.offs.Len() > 0 { // an entry's word 3, its line, is not 0
		for e := co.Seek(1, 3, ^uint32(15), uint32(key), uint32(key>>32)); e != nil; e = co.Seek(1, 3, ^uint32(15), uint32(key), uint32(key>>32)) {
			if off := int64(e[0]) | int64(e[1]&15)<<32 - 1; s.is(off, w) {
				return int(e[3]), true
			}
		}
	}
	if s.disk.has(key) {
		first := 0
		if s.disk.find(key, func(o uint64) bool { first = int(o >> 36); return s.is(int64(o&offMax)-1, w) }) {
			return first, true
		}
	}
	if s.src != nil && off >= 0 && off < offMax && line > 0 && line <= lineMax { // line > 0: Seek's nonzero word
		o := uint64(off + 1)
		s.e[0], s.e[1], s.e[2], s.e[3] = uint32(o), uint32(o>>32)|uint32(key), uint32(key>>32), uint32(line)
		co.Put(s.e[:4])
		if s.offs.Len() >= s.hotMax {
			s.spill()
		}
		return line, false
	}
	if s.uuids.Len() == 0 {
		k, _ = uuidKey(text)
		uuidWords(&k, s.e[:4])
		hk = uuidEntryHash(s.e[:4])
		cu = s.uuids.Probe(hk)
	} else {
		uuidWords(&k, s.e[:4])
	}
	s.e[4] = uint32(line)
	cu.Put(s.e[:])
	return line, false
}

// is reports whether the record at off carries the UUID of folded words
// w (uuidFold).
func (s *collectorDupIDState) is(off int64, w *[4]uint64) bool {
	if !s.src.Values(off, cl100Fields, s.vals[:]) || s.vals[0].Type != ValueString {
		return false
	}
	w2, ok := uuidFold(s.vals[0].Str)
	return ok && w2 == *w
}

// spill moves the entries of offs to a new run on disk; when it cannot,
// they stay (and offs grows from then on).
func (s *collectorDupIDState) spill() {
	s.ents = s.ents[:0]
	s.offs.Each(func(e []uint32) {
		s.ents = append(s.ents, idEntry{key: uint64(e[2])<<32 | uint64(e[1]&^15), off: uint64(e[0]) | uint64(e[1]&15)<<32 | uint64(e[3])<<36})
	})
	if !s.disk.writeFan(s.ents, uuidFan) {
		s.hotMax = int(^uint(0) >> 1)
		return
	}
	s.offs.Clear()
	s.offs.Reserve(s.hotMax)
}

func (s *collectorDupIDState) Observe(rec *StreamRecord, r *StreamReporter) {
	s.seen++
	v := &rec.Values[0]
	if v.Type != ValueString {
		return
	}
	w, ok := uuidFold(v.Str)
	if !ok {
		if first, dup := s.other.see(v.Str, rec.Line); dup {
			s.report(r, rec.Line, v.Column, v.Str, first)
		}
		return
	}
	// A UUID is looked up with the others of its batch (Flush).
	off := int64(-1)
	if rec.Source != nil {
		s.src, off = rec.Source, rec.Offset
	}
	s.batch = append(s.batch, uuidRef{w: w, h: uuidFoldHash(&w), off: off, line: int32(rec.Line), col: int32(v.Column), text: uint32(len(s.texts))})
	s.texts = append(s.texts, v.Str...)
}

// report reports the event_id text on line, first used on line first.
func (s *collectorDupIDState) report(r *StreamReporter, line, col int, text []byte, first int) {
	r.Report(StreamFinding{
		Line: line, Column: col, Pointer: "/event_id",
		Reason: "event_id " + strconv.Quote(string(text)) + " was already used on line " + strconv.Itoa(first) + " (an event_id identifies one event)",
		Extra:  map[string]any{"first_line": first},
	})
}

// Flush implements Flusher: the batch's UUIDs in order, after loading the
// table slots their lookups read, all at once.
func (s *collectorDupIDState) Flush(r *StreamReporter) {
	if len(s.batch) == 0 {
		return
	}
	// The table of whole UUIDs is placed by their value's hash, not h:
	// its lines are not loaded ahead (it serves standard input).
	for i := range s.batch {
		h := s.batch[i].h
		if p := s.offs.Line(h &^ 15); p != nil {
			s.lines = append(s.lines, p)
		}
		if p := s.disk.line(h &^ 15); p != nil {
			s.lines = append(s.lines, p)
		}
	}
	s.sink += idtab.LoadLines(&s.lines)
	for i := range s.batch {
		u := &s.batch[i]
		text := s.texts[u.text : u.text+36]
		if first, dup := s.firstUUID(text, &u.w, u.h, int(u.line), u.off); dup {
			s.report(r, int(u.line), int(u.col), text, first)
		}
	}
	s.batch, s.texts = s.batch[:0], s.texts[:0]
}

// Expect implements Expecter: room for as many UUIDs per record as the
// first batch had (in memory up to hotMax, the filter of the entries on
// disk for the rest).
func (s *collectorDupIDState) Expect(records int) {
	if s.seen == 0 {
		return
	}
	n := int(int64(records) * int64(s.offs.Len()+s.disk.n+s.uuids.Len()) / int64(s.seen))
	if s.offs.Len() > 0 {
		s.offs.Reserve(min(n, s.hotMax))
		s.disk.plan = n
	} else if s.uuids.Len() > 0 {
		s.uuids.Reserve(n)
	}
}

// Finish releases the log's ids (CL100 compares the event_ids of one log)
// and reports, when entries on disk could not be read back, that the
// checks are incomplete.
func (s *collectorDupIDState) Finish(r *StreamReporter) {
	s.Flush(r)
	if err := s.disk.err; err != nil {
		r.Report(StreamFinding{Pointer: "/event_id",
			Reason: "the event_ids of this log could not be read back from their temporary files (" + err.Error() + "): not all were checked"})
	}
	s.uuids.Free()
	s.offs.Free()
	s.disk.free()
	s.other, s.src, s.ents = nil, nil, nil
}

// collectorParentSpan is the stream check of CL101. Bound to a run (RunBinder), it
// keeps the spans of every collector log of the run in one spanRun, resolves each
// parent_span_id against all of them after the last file (a TreeRule) and counts
// the run's distinct trace_id values, valid records or not, for the summary's
// correlation_groups.trace_id (correlation groups are reported in the summary).
type collectorParentSpan struct {
	run *spanRun // nil in the registered value
}

// BindRun implements RunBinder.
func (collectorParentSpan) BindRun(run *LintRun) StreamRule {
	sr := newSpanRun()
	run.CountGroup("trace_id", func() int { return sr.traceCount })
	return &collectorParentSpan{run: sr}
}

// cl101Fields are CL101's fields (one slice: Source caches by it).
var cl101Fields = []Field{
	{Pointer: "/correlation/trace_id", Type: FieldString},
	{Pointer: "/correlation/span_id", Type: FieldString},
	{Pointer: "/correlation/parent_span_id", Type: FieldString},
}

func (collectorParentSpan) Fields() []Field { return cl101Fields }

// NewFile implements StreamRule: the file's records go to the run's spans.
func (c *collectorParentSpan) NewFile(file string, _ *Options) FileState {
	run := c.run
	if run == nil { // not bound (a test calling the registered value)
		run = newSpanRun()
	}
	run.addFile(file)
	return &spanFile{run: run, file: uint32(len(run.files) - 1)}
}

// NewTree implements TreeRule: the run's spans, resolved by Finish.
func (c *collectorParentSpan) NewTree(*Options) TreeState {
	if c.run == nil {
		return newSpanRun()
	}
	return c.run
}

// spanRun holds the spans of every collector log of one run, exactly and
// compactly: each distinct trace_id once (traces numbers them), each span
// as a 12-byte entry (the trace's number, a tag and the span_id's bytes):
// the last hotMax of them in an open-addressing table (spans), the older
// ones in sorted runs on disk (disk); span_ids that do not fit an entry as
// strings (long), and the parent references not resolved by the spans in
// memory when they were read (pending), for the end of the run, where a
// merge join decides them against the spans on disk (join). The trace_ids
// and long span_ids are paged sets (pagedStrings: their recent entries in
// memory, the others in pf).
type spanRun struct {
	traces     *pagedStrings
	traceCount int
	byText     []traceSlot      // recent trace_ids by their hash (traceNumber)
	byNum      []traceSlot      // recent trace_ids by their number (traceText)
	extras     []map[string]any // the details of the findings of byNum's traces
	clean      []bool           // whether byNum's traces hold no secret (traceText)
	plain      []bool           // whether byNum's traces are plainText (traceText)
	quoted     []byte           // traceText's quoted trace_id
	span       [16]byte         // resolve's parent span_id (spanText)
	text       []byte           // the slab CL101's reasons are cut from (report)
	noTrace    map[string]any   // the details of the findings without a trace_id
	cleanCache []cleanSlot      // parentClean's answers by short span_id
	spans      *idtab.Table
	hotMax     int    // spans in memory beyond which they go to disk: hotSpans (tests: fewer)
	disk       idRuns // the older spans: key runKey(spanHash), off the entry's first word
	ents       []idEntry
	long       *pagedStrings
	pf         *pageFile // the pages of traces and long
	files      []string
	first      map[string]uint32 // by path: the index of its first file (addFile)
	rank       []uint32          // by file: its rank in output order (addFile)
	lastRef    spanRef           // the reference addRef added last
	refs       int               // the references addRef added
	unordered  bool              // they are not in output order (ordered)
	srcs       []Source          // by file: its records read again; nil: it cannot be
	pending    [][]spanRef       // blocks of chunk, in input order, after those of spill
	spill      refSpill          // the oldest blocks of pending, on disk
	chunk      int               // references a block of pending holds: refChunk (tests: fewer)
	spillAfter int               // full blocks kept in memory before they go to spill: spillBlocks
	pendKeys   []byte            // keys of pending long parents of files that cannot be read again
	key        []byte
	e          [3]uint32
	vals       [3]Value
	reading    Source // the Source Finish read last (released when it moves on)
	// tail is the end of every reason of the run's findings (report),
	// made for tailFiles files.
	tail      string
	tailFiles int
	tailClean bool // no fixed text of the reasons holds a secret (report)
}

// spanRef is a parent_span_id not resolved when its record was read
// (24 bytes): its file (index into spanRun.files), line and column, and its
// key: a 12-byte span entry; for a long parent, the byte offset of its
// record (key[0] == refAtOffset, key[1] and key[2] the offset's low and high
// words), which is read again to decide and render it, or, in a file that
// cannot be read again (key[0] == 0), the start and end of its long key
// (trace number and span_id) in pendKeys.
type spanRef struct {
	file, line, col uint32
	key             [3]uint32
}

// refAtOffset marks the key of a long parent kept as its record's offset;
// no 12-byte span entry has this first word (spanMaxTrace<<4 | spanTagHex
// is the largest).
const refAtOffset = 1<<32 - 1

// refChunk is how many references a block of spanRun.pending holds: the
// list grows by blocks, never by copying; beyond spillBlocks full blocks
// (768 KiB) they go to a temporary file (refSpill).
const (
	refChunk    = 4096
	spillBlocks = 8
)

// runFan is the fan-in of the merges of CL101's runs (idRuns.addSorted):
// read only by one scan at the end of the run, they may be many (a merge
// only bounds the open files); CL100's (uuidFan) are searched, one page
// read a run for a possible repeat.
const (
	runFan  = 64
	uuidFan = 4
)

// hotSpans is spanRun.hotMax: 65,536 spans in memory (about 1 MiB); a
// parent is mostly a few hundred events before its children.
const hotSpans = 1 << 16

func newSpanRun() *spanRun {
	lim := &collectorLimits
	pf := &pageFile{dirName: lim.dir}
	s := &spanRun{
		traces: newPagedStrings(pf, true), long: newPagedStrings(pf, true), pf: pf,
		spans:  idtab.New(3, func(e []uint32) uint64 { return spanHash((*[3]uint32)(e)) }),
		hotMax: lim.spans, disk: idRuns{dirName: lim.dir},
		chunk: lim.chunk, spillAfter: lim.blocks, spill: refSpill{dirName: lim.dir},
	}
	s.traces.hotMax, s.long.hotMax = lim.strings, lim.strings
	s.traces.disk.dirName, s.long.disk.dirName = lim.dir, lim.dir
	return s
}

// traceSlot is a slot of spanRun's caches of recent trace_ids (a trace
// is mostly named again within a few hundred events): a trace's number and
// its text, when it is at most 47 bytes (n: its length + 1; 0: empty), so
// that most records and findings do not look the trace up in the paged set.
type traceSlot struct {
	tid  uint32
	n    uint8
	text [47]byte
}

// traceSlots is the size of each cache (a power of two): 4,096 slots of 52
// bytes.
const traceSlots = 1 << 12

// traceNumber returns the number of trace_id t, numbering it when new.
func (s *spanRun) traceNumber(t []byte) uint32 {
	if s.byText == nil {
		s.byText = make([]traceSlot, traceSlots)
	}
	sl := &s.byText[idtab.HashBytes(t)&(traceSlots-1)]
	if int(sl.n) == len(t)+1 && string(sl.text[:len(t)]) == string(t) {
		return sl.tid
	}
	tid, added := s.traces.Add(t)
	if added {
		s.traceCount++
	}
	if len(t) <= len(sl.text) {
		sl.tid, sl.n = tid, uint8(len(t)+1)
		copy(sl.text[:], t)
	}
	return tid
}

// traceText returns the text of trace number tid (> 0), valid until the
// next call, the details of CL101's findings in that trace
// ({"trace_id": text}: a map shared by the findings of a trace in the
// cache, never written; the engine copies a map it must change), whether
// neither the text nor its quoted form (appendQuote) holds a secret
// (secrets.Scan), and whether the text is plainText (quoted as it is).
func (s *spanRun) traceText(tid uint32) ([]byte, map[string]any, bool, bool) {
	if s.byNum == nil {
		s.byNum = make([]traceSlot, traceSlots)
		s.extras = make([]map[string]any, traceSlots)
		s.clean = make([]bool, traceSlots)
		s.plain = make([]bool, traceSlots)
	}
	i := tid & (traceSlots - 1)
	sl := &s.byNum[i]
	if sl.n > 0 && sl.tid == tid {
		return sl.text[:sl.n-1], s.extras[i], s.clean[i], s.plain[i]
	}
	t := s.traces.At(tid)
	extra := map[string]any{"trace_id": string(t)}
	clean := hexText(t)
	if !clean {
		s.quoted = appendQuote(s.quoted[:0], t)
		clean = !scans(extra["trace_id"].(string)) && !scans(string(s.quoted))
	}
	plain := plainText(t)
	if len(t) <= len(sl.text) {
		sl.tid, sl.n = tid, uint8(len(t)+1)
		copy(sl.text[:], t)
		s.extras[i], s.clean[i], s.plain[i] = extra, clean, plain
	}
	return t, extra, clean, plain
}

// spanSeeds make the placement of spans in their table unpredictable (no
// flooding by a crafted log); verdicts do not depend on them.
var spanSeeds = [2]uint64{rand.Uint64(), rand.Uint64()}

// spanHash returns the 64-bit hash of a span entry: a bijection of its
// span_id's 8 bytes for each first word (trace number and tag), so that
// the hash and the first word are the whole entry (a span on disk is
// those two).
func spanHash(e *[3]uint32) uint64 {
	return mix64(uint64(e[1])|uint64(e[2])<<32^spanSeeds[0]) ^ mix64(uint64(e[0])^spanSeeds[1])
}

// mix64 is MurmurHash3's 64-bit finalizer: a bijection that mixes every
// bit of x into every bit of the result.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// Span keys: the tag of a span_id of at most 8 bytes is its length + 1
// (1..9), of 16 lowercase hex digits (an OpenTelemetry span id) 10, with
// the decoded 8 bytes; any other span_id is a long key.
const (
	spanTagHex   = 10
	spanMaxTrace = 1<<28 - 1
)

// spanKey encodes span of trace number trace into e; ok is false for a
// long key.
func spanKey(trace uint32, span []byte, e *[3]uint32) bool {
	if trace > spanMaxTrace {
		return false
	}
	switch {
	case len(span) <= 8:
		var b [8]byte
		copy(b[:], span)
		e[0] = trace<<4 | (uint32(len(span)) + 1)
		e[1] = binary.LittleEndian.Uint32(b[:4])
		e[2] = binary.LittleEndian.Uint32(b[4:])
		return true
	case len(span) == 16:
		lo, okLo := timefmt.DecodeHex8(binary.LittleEndian.Uint64(span), false)
		hi, okHi := timefmt.DecodeHex8(binary.LittleEndian.Uint64(span[8:]), false)
		if !okLo || !okHi {
			return false
		}
		e[0], e[1], e[2] = trace<<4|spanTagHex, lo, hi
		return true
	}
	return false
}

// longKey is the string key of a span that has no 12-byte entry: the
// trace's number (4 bytes), then the span_id.
func longKey(dst []byte, trace uint32, span []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(dst[:0], trace), span...)
}

// has reports whether span of trace was recorded.
func (s *spanRun) has(trace uint32, span []byte) bool {
	if !spanKey(trace, span, &s.e) {
		s.key = longKey(s.key, trace, span)
		return s.long.Get(s.key) != 0
	}
	return s.hasEntry(&s.e)
}

func (s *spanRun) hasEntry(k *[3]uint32) bool { return s.hasEntryHash(k, spanHash(k)) }

// hasEntryHash is hasEntry of k, whose spanHash is h.
func (s *spanRun) hasEntryHash(k *[3]uint32, h uint64) bool {
	c := s.spans.Probe(h)
	return findSpan(&c, k)
}

// findSpan reports whether the probe sequence c holds the span entry k; it
// leaves c at the end of the sequence when it does not (for Cursor.Put).
func findSpan(c *idtab.Cursor, k *[3]uint32) bool {
	for e := c.Seek3(k[0], k[1]); e != nil; e = c.Seek3(k[0], k[1]) {
		if e[2] == k[2] {
			return true
		}
	}
	return false
}

// add records span of trace.
func (s *spanRun) add(trace uint32, span []byte) {
	if !spanKey(trace, span, &s.e) {
		s.key = longKey(s.key, trace, span)
		s.long.Add(s.key)
		return
	}
	if c := s.spans.Probe(spanHash(&s.e)); !findSpan(&c, &s.e) {
		s.put(&c, &s.e)
	}
}

// put inserts span entry k where the cursor c stopped (findSpan returned
// false); when the spans in memory reach hotMax, they go to a run on disk.
func (s *spanRun) put(c *idtab.Cursor, k *[3]uint32) {
	c.Put(k[:])
	if s.spans.Len() >= s.hotMax {
		s.spillSpans()
	}
}

// spillSpans moves the spans in memory to a new run on disk (each as its
// hash and first word); when it cannot, they stay (and the table grows
// from then on).
func (s *spanRun) spillSpans() {
	if !s.disk.addSorted(s.hot(), runFan) {
		s.hotMax = int(^uint(0) >> 1)
		return
	}
	s.spans.Clear()
	s.spans.Reserve(s.hotMax)
}

// AddFile implements TreeState (the files' records were added as read).
func (s *spanRun) AddFile(string, FileState) {}

// ReportsInOrder implements OrderedTreeState.
func (*spanRun) ReportsInOrder() {}

// Finish implements TreeState: every parent reference that no span of the
// run resolves, in output order (OrderedTreeState), then the spans are
// released. The references are in input order, which is output order
// unless a path was linted twice: they are sorted then. When spans went
// to disk, the references with a 12-byte key are decided first, all at
// once (join).
func (s *spanRun) Finish(r *StreamReporter) {
	defer s.spill.close()
	rank, ordered := s.rank, !s.unordered
	var err error
	var dangling []uint64 // by reference, in input order: its 12-byte key names no span
	if s.disk.n > 0 {
		dangling, err = s.join()
	}
	// decided reports whether the reference of index i was resolved by
	// join; dangle whether it was decided dangling.
	decided := func(p *spanRef, i int) (resolved, dangle bool) {
		if dangling == nil || p.key[0] == refAtOffset || p.key[0] == 0 {
			return false, false
		}
		d := dangling[i>>6]&(1<<(i&63)) != 0
		return !d, d
	}
	i := 0
	if err == nil && ordered {
		err = s.eachRef(func(p *spanRef) {
			if resolved, dangle := decided(p, i); !resolved {
				s.resolve(p, r, dangle)
			}
			i++
		})
	} else if err == nil {
		// A path linted twice: the references join did not resolve in
		// memory, sorted (resolve finds no span of those it found
		// dangling).
		var all []spanRef
		err = s.eachRef(func(p *spanRef) {
			if resolved, _ := decided(p, i); !resolved {
				all = append(all, *p)
			}
			i++
		})
		s.pending = nil
		sort.SliceStable(all, func(a, b int) bool {
			ra, rb := rank[all[a].file], rank[all[b].file]
			return ra < rb || ra == rb && all[a].line < all[b].line
		})
		for i := range all {
			s.resolve(&all[i], r, false)
		}
	}
	if err != nil && s.disk.err != nil {
		r.Report(StreamFinding{File: s.files[0], Pointer: "/correlation/parent_span_id",
			Reason: "the span_ids of this run could not be read back from their temporary files (" + err.Error() + "): not all parent_span_id references were checked"})
	} else if err != nil {
		r.Report(StreamFinding{File: s.files[0], Pointer: "/correlation/parent_span_id",
			Reason: "the parent_span_id references of this run could not be read back from their temporary file (" + err.Error() + "): not all were checked"})
	} else if err = cmp.Or(s.pf.err, s.traces.err(), s.long.err()); err != nil {
		r.Report(StreamFinding{File: s.files[0], Pointer: "/correlation/parent_span_id",
			Reason: "the trace_ids and span_ids of this run could not be read back from their temporary files (" + err.Error() + "): not all parent_span_id references were checked"})
	}
	s.release()
	s.spans.Free()
	s.disk.free()
	s.long.Free()
	s.traces.Free()
	s.pf.close()
	s.pending, s.pendKeys, s.srcs, s.ents = nil, nil, nil, nil
}

// hot returns the spans in memory as entries of a run (sorted by key).
func (s *spanRun) hot() []idEntry {
	s.ents = s.ents[:0]
	s.spans.Each(func(e []uint32) {
		s.ents = append(s.ents, idEntry{key: spanHash((*[3]uint32)(e)), off: uint64(e[0])})
	})
	sortEntries(s.ents)
	return s.ents
}

// joinChunk is how many references join sorts in memory at a time (16
// bytes each: 1 MiB) before they go to a run on disk.
const joinChunk = 1 << 16

// joinWindow is how many references one pass of join decides: their index
// in the window shares an idEntry's off with their key's first word.
const joinWindow = 1 << 32

// join decides the pending references with a 12-byte key against every
// span of the run: they are sorted by their key's hash (in runs on disk of
// joinChunk, or in memory when a run cannot be written) and merged with
// the sorted runs of the spans on disk and the spans in memory, one pass
// over each (the lower and the upper half of the keys at once, on two
// goroutines: joinRefs). It returns a bit per reference, in input order, set when its
// key names no span (references with a long key are left unset), or why
// the references or the spans could not be read back.
func (s *spanRun) join() ([]uint64, error) {
	n := s.spill.n
	for _, b := range s.pending {
		n += len(b)
	}
	dangling := make([]uint64, (n+63)/64)
	for lo := 0; lo < n; lo += joinWindow {
		if err := s.joinRefs(lo, min(n, lo+joinWindow), dangling); err != nil {
			return nil, err
		}
	}
	return dangling, nil
}

// joinRefs is join for the references of index lo to hi.
func (s *spanRun) joinRefs(lo, hi int, dangling []uint64) error {
	pend := idRuns{dirName: s.disk.dirName}
	defer pend.free()
	cand, tmp := make([]idEntry, 0, joinChunk), make([]idEntry, 0, joinChunk)
	counts := new([1 << 16]int32)
	inMemory := false
	i := 0
	err := s.eachRef(func(p *spanRef) {
		j := i
		i++
		if j < lo || j >= hi || p.key[0] == refAtOffset || p.key[0] == 0 {
			return
		}
		dangling[j>>6] |= 1 << (j & 63)
		cand = append(cand, idEntry{key: runKey(spanHash(&p.key)), off: uint64(p.key[0]) | uint64(j-lo)<<32})
		if len(cand) == joinChunk && !inMemory {
			cand, tmp = sortByKey(cand, tmp, counts)
			if pend.addSorted(cand, runFan) {
				cand = cand[:0]
			} else {
				inMemory = true // from now on, every one in memory
			}
		}
	})
	if err != nil {
		return err
	}
	if cap(tmp) < len(cand) {
		tmp = make([]idEntry, 0, len(cand))
	}
	cand, _ = sortByKey(cand, tmp, counts)
	// The keys are hashes (uniform): the lower and the upper half of the
	// key space are merged at once, on this goroutine and another, each
	// scan with half the read buffers. A reference is in one half: the
	// halves clear bits of disjoint references, but maybe in one word.
	found := func(off uint64) {
		j := lo + int(off>>32)
		atomic.AndUint64(&dangling[j>>6], ^uint64(1<<(j&63)))
	}
	hot := s.hot()
	var upPend, upDisk idRuns // the read errors of the upper half's scans
	var wg sync.WaitGroup
	wg.Go(func() {
		mergeJoin(upPend.scanFrom(pend.runs, cand, joinSplit, scanBytes/2), upDisk.scanFrom(s.disk.runs, hot, joinSplit, scanBytes/2), 0, found)
	})
	mergeJoin(pend.scanFrom(pend.runs, cand, 0, scanBytes/2), s.disk.scanFrom(s.disk.runs, hot, 0, scanBytes/2), joinSplit, found)
	wg.Wait()
	pend.err, s.disk.err = cmp.Or(pend.err, upPend.err), cmp.Or(s.disk.err, upDisk.err)
	return cmp.Or(pend.err, s.disk.err)
}

// joinSplit is the first key (a runKey value) of the upper half of the
// keys that joinRefs merges on a goroutine of its own.
const joinSplit = 1 << 63

// mergeJoin calls found with the off of each entry of refs of key below
// end (0: every entry) that names an entry of spans: one of the same key
// and first word (the low 32 bits of off). Both scans are in key order; for
// each key of refs, the first words of spans under it (one but where hashes
// collide) are gathered once.
func mergeJoin(refs, spans *runScan, end uint64, found func(off uint64)) {
	sp, spOK := spans.next()
	var group []uint32
	var gkey uint64
	sorted, have := false, false
	for c, ok := refs.next(); ok && (end == 0 || c.key < end); c, ok = refs.next() {
		if !have || c.key != gkey {
			for spOK && sp.key < c.key {
				sp, spOK = spans.next()
			}
			group, gkey, have = group[:0], c.key, true
			for spOK && sp.key == c.key {
				group = append(group, uint32(sp.off))
				sp, spOK = spans.next()
			}
			if sorted = len(group) > 8; sorted {
				slices.Sort(group)
			}
		}
		var in bool
		if sorted {
			_, in = slices.BinarySearch(group, uint32(c.off))
		} else {
			in = slices.Contains(group, uint32(c.off))
		}
		if in {
			found(c.off)
		}
	}
}

// addFile adds a file to the run: its rank in output order is the index
// of the first file of the run with its path.
func (s *spanRun) addFile(file string) {
	if s.first == nil {
		s.first = map[string]uint32{}
	}
	r, ok := s.first[file]
	if !ok {
		r = uint32(len(s.files))
		s.first[file] = r
	}
	s.files = append(s.files, file)
	s.srcs = append(s.srcs, nil)
	s.rank = append(s.rank, r)
}

// ordered notes whether the references added so far are in output order
// (by file rank, then line) as ref is added after the last one (addRef).
func (s *spanRun) ordered(ref *spanRef) {
	if s.refs > 0 {
		last := &s.lastRef
		if ra, rb := s.rank[last.file], s.rank[ref.file]; ra > rb || ra == rb && (last.file != ref.file || last.line > ref.line) {
			s.unordered = true
		}
	}
	s.refs++
	s.lastRef = *ref
}

// eachRef calls fn with every pending reference, in input order: those of
// the temporary file, then those in memory.
func (s *spanRun) eachRef(fn func(*spanRef)) error {
	if err := s.spill.each(fn); err != nil {
		return err
	}
	for b := range s.pending {
		for i := range s.pending[b] {
			fn(&s.pending[b][i])
		}
	}
	return nil
}

// release releases the Source Finish read last, if it can be released.
func (s *spanRun) release() {
	if rs, ok := s.reading.(SourceReleaser); ok {
		rs.Release()
	}
	s.reading = nil
}

// resolve reports p unless a span of the run resolves it; dangle: p's
// 12-byte key is known to name no span (join).
func (s *spanRun) resolve(p *spanRef, r *StreamReporter, dangle bool) {
	var parent []byte
	var tid uint32
	if p.key[0] == refAtOffset {
		src := s.srcs[p.file]
		if src != s.reading {
			s.release()
			s.reading = src
		}
		off := int64(p.key[1]) | int64(p.key[2])<<32
		trace, par := &s.vals[0], &s.vals[2]
		if src == nil || !src.Values(off, cl101Fields, s.vals[:]) || par.Type != ValueString || trace.Type != ValueString && trace.Type != ValueAbsent {
			r.Report(StreamFinding{
				File: s.files[p.file], Line: int(p.line), Column: int(p.col), Pointer: "/correlation/parent_span_id",
				Reason: "parent_span_id could not be checked against the spans of the run: its record could not be read again (the file changed or vanished during the run)",
			})
			return
		}
		if trace.Type == ValueString {
			tid = s.traces.Get(trace.Str)
		}
		s.key = longKey(s.key, tid, par.Str)
		if s.long.Get(s.key) != 0 {
			return
		}
		parent = par.Str
	} else if p.key[0] == 0 {
		k := s.pendKeys[p.key[1]:p.key[2]]
		if s.long.Get(k) != 0 {
			return
		}
		tid, parent = binary.LittleEndian.Uint32(k), k[4:]
	} else {
		if !dangle && s.hasEntry(&p.key) {
			return
		}
		tid = p.key[0] >> 4
	}
	if r.Counting() {
		s.reportAt(p, r)
		return
	}
	if p.key[0] != refAtOffset && p.key[0] != 0 {
		parent = spanText(s.span[:0], &p.key) // a span entry's key
	}
	s.report(p, tid, parent, r)
}

// reportAt reports the finding of p without its reason (only counted).
func (s *spanRun) reportAt(p *spanRef, r *StreamReporter) {
	r.Report(StreamFinding{File: s.files[p.file], Line: int(p.line), Column: int(p.col), Pointer: "/correlation/parent_span_id"})
}

// report reports the finding of p, whose parent span_id names no span of
// trace number tid.
func (s *spanRun) report(p *spanRef, tid uint32, parent []byte, r *StreamReporter) {
	if s.tail == "" || s.tailFiles != len(s.files) {
		s.tail = " in the " + plural(len(s.files), "collector log") +
			" of this run (lint every log of the run together: per-agent and daily logs share traces)"
		s.tailFiles = len(s.files)
		s.tailClean = !scans(cl101Text1) && !scans(cl101Text2) && !scans(cl101NoTrace+s.tail) && !scans(s.tail)
	}
	// One buffer for the reason (it becomes the string), not a string per part.
	var t []byte
	var extra map[string]any
	clean, tplain := s.tailClean, false
	if tid > 0 {
		var tclean bool
		t, extra, tclean, tplain = s.traceText(tid)
		clean = clean && tclean
	} else {
		if s.noTrace == nil {
			s.noTrace = map[string]any{"trace_id": ""}
		}
		extra = s.noTrace
	}
	// The reasons are cut from slabs of reasonSlab bytes, one after the
	// other, never written again.
	need := 64 + len(parent) + len(t) + len(s.tail)
	if cap(s.text)-len(s.text) < need {
		s.text = make([]byte, 0, max(reasonSlab, need))
	}
	b := s.text[len(s.text):len(s.text)]
	b = append(b, cl101Text1...)
	q := len(b)
	// A span entry's hex key is spelt in lowercase hex (spanText): plain.
	b = appendQuoted(b, parent, p.key[0] != refAtOffset && p.key[0] != 0 && p.key[0]&15 == spanTagHex)
	clean = clean && s.parentClean(p, parent, b[q:])
	if tid > 0 {
		b = append(b, cl101Text2...)
		b = appendQuoted(b, t, tplain)
	} else {
		b = append(b, cl101NoTrace...)
	}
	b = append(b, s.tail...)
	if len(b) <= cap(s.text)-len(s.text) { // not moved out of the slab by append
		s.text = s.text[:len(s.text)+len(b)]
	}
	r.Report(StreamFinding{
		File: s.files[p.file], Line: int(p.line), Column: int(p.col), Pointer: "/correlation/parent_span_id",
		Reason: unsafe.String(unsafe.SliceData(b), len(b)), // b is not written again
		Extra:  extra, Checked: clean,
	})
}

// parentClean reports whether neither the parent span_id of p nor its
// quoted form holds a secret (secrets.Scan of quoted): lowercase hex
// never does (hexText); the answers for the other span_ids that fit a
// 12-byte key (a few distinct texts, "span-001", name most references)
// are kept in a direct-mapped cache by key.
func (s *spanRun) parentClean(p *spanRef, parent, quoted []byte) bool {
	tag := p.key[0] & 15
	if p.key[0] == refAtOffset || p.key[0] == 0 {
		return hexText(parent) || !scans(unsafe.String(unsafe.SliceData(quoted), len(quoted)))
	}
	if tag == spanTagHex {
		return true
	}
	if s.cleanCache == nil {
		s.cleanCache = make([]cleanSlot, cleanSlots)
	}
	sl := &s.cleanCache[mix64(uint64(p.key[1])|uint64(p.key[2])<<32^uint64(tag))&(cleanSlots-1)]
	if sl.tag == tag && sl.w1 == p.key[1] && sl.w2 == p.key[2] {
		return sl.clean
	}
	clean := hexText(parent) || !scans(unsafe.String(unsafe.SliceData(quoted), len(quoted)))
	*sl = cleanSlot{tag: tag, w1: p.key[1], w2: p.key[2], clean: clean}
	return clean
}

// cleanSlot is a slot of spanRun.cleanCache: a short span_id's key (tag
// 1-9; 0: empty) and whether its text is clean (parentClean).
type cleanSlot struct {
	tag, w1, w2 uint32
	clean       bool
}

// cleanSlots is the size of spanRun.cleanCache (a power of two).
const cleanSlots = 1 << 10

// reasonSlab is the size of the buffers CL101's reasons are cut from
// (report): one allocation for a few hundred findings.
const reasonSlab = 64 << 10

// hexText reports whether b is made of lowercase hex digits only, as an
// OpenTelemetry trace or span id: no secret pattern matches such a text or
// its quoted form (each needs a byte of another kind: an upper-case letter,
// '-', '_', 'x', 'y', '=' or ':'), so it need not be scanned.
func hexText(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// The fixed texts of CL101's reason (report): cl101Text1, the quoted
// parent, then cl101Text2 and the quoted trace_id or cl101NoTrace, then
// the run's tail. Each value is quoted, and no secret pattern matches
// across a '"' (secrets: every pattern's text is of bytes other than '"',
// and an assignment's name and value end at the white space around the
// quotes), so the reason holds a secret only when a fixed text or a
// quoted value does: report scans those instead of the whole reason
// (TestCL101CheckedReason).
const (
	cl101Text1   = "parent_span_id "
	cl101Text2   = " names no span_id of trace_id "
	cl101NoTrace = " names no span_id of the events without a trace_id"
)

// scans reports whether s holds secret material (secrets.Scan).
func scans(s string) bool {
	_, ok := secrets.Scan(s)
	return ok
}

// appendQuote appends strconv.Quote of s: s itself between quotes when it
// is printable ASCII without '"' or '\\' (ids: hex, UUIDs, names), else
// strconv.AppendQuote's form.
func appendQuote(b, s []byte) []byte {
	if !plainText(s) {
		return strconv.AppendQuote(b, string(s))
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendQuoted is appendQuote of s, known to be plainText when plain is
// true (then not tested again).
func appendQuoted(b, s []byte, plain bool) []byte {
	if !plain {
		return appendQuote(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainText reports whether s is printable ASCII without '"' or '\\'
// (strconv.Quote leaves it as it is): eight bytes at a time, then byte by
// byte.
func plainText(s []byte) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	// zero has a high bit set when a byte of v is 0 (exact as to whether
	// any is).
	zero := func(v uint64) uint64 { return (v - ones) & ^v & high }
	for ; len(s) >= 8; s = s[8:] {
		x := binary.LittleEndian.Uint64(s)
		if (x|(x-0x20*ones)|(x+0x01*ones))&high != 0 || zero(x^0x22*ones)|zero(x^0x5c*ones) != 0 {
			return false
		}
	}
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// addRef queues a reference for the end of the run.
func (s *spanRun) addRef(ref spanRef) {
	s.ordered(&ref)
	if n := len(s.pending); n == 0 || len(s.pending[n-1]) == s.chunk {
		var reuse []spanRef
		if n > s.spillAfter {
			// The full blocks go to the temporary file, oldest first.
			k := 0
			for k < n && s.spill.write(s.pending[k]) {
				k++
			}
			if k > 0 {
				reuse = s.pending[0][:0]
				m := copy(s.pending, s.pending[k:])
				clear(s.pending[m:])
				s.pending = s.pending[:m]
			}
		}
		if reuse == nil {
			reuse = make([]spanRef, 0, s.chunk)
		}
		s.pending = append(s.pending, reuse)
	}
	last := &s.pending[len(s.pending)-1]
	*last = append(*last, ref)
}

// spanText appends the span_id of a 12-byte entry to dst.
func spanText(dst []byte, k *[3]uint32) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], k[1])
	binary.LittleEndian.PutUint32(b[4:], k[2])
	tag := k[0] & 15
	if tag == spanTagHex {
		const hex = "0123456789abcdef"
		for _, c := range b {
			dst = append(dst, hex[c>>4], hex[c&15])
		}
		return dst
	}
	return append(dst, b[:tag-1]...)
}

// spanFile is CL101's state for one collector log: its records go to the
// run's spanRun.
type spanFile struct {
	run  *spanRun
	file uint32
	// The spans and parents of the current batch (Flusher) whose keys fit
	// an entry, and the slots their lookups read; longer keys are decided
	// at once (they live in another set).
	batch []spanOp
	lines []*uint32
	sink  uint32
	// The last trace_id and its number: consecutive events mostly share
	// a trace.
	lastTrace []byte
	lastTid   uint32
	// Records observed and spans among them (Expect).
	recs, spans int
}

// spanOp is what Flush decides for one record: whether its parent (key
// parent, column col) is a known span, or (long) that it is pending, then
// the addition of its span.
type spanOp struct {
	parent, span            [3]uint32
	hParent, hSpan          uint64 // their spanHash (Flush)
	line, col               uint32
	hasParent, long, hasSpn bool
}

func (f *spanFile) Observe(rec *StreamRecord, r *StreamReporter) {
	s := f.run
	trace, span, parent := &rec.Values[0], &rec.Values[1], &rec.Values[2]
	if trace.Type != ValueString && trace.Type != ValueAbsent {
		return
	}
	var tid uint32
	if trace.Type == ValueString {
		if f.lastTid != 0 && string(trace.Str) == string(f.lastTrace) {
			tid = f.lastTid
		} else {
			tid = s.traceNumber(trace.Str)
			f.lastTrace, f.lastTid = append(f.lastTrace[:0], trace.Str...), tid
		}
	}
	f.recs++
	if span.Type == ValueString {
		f.spans++
	}
	op := spanOp{line: uint32(rec.Line), col: uint32(parent.Column)}
	if rec.Valid && parent.Type == ValueString {
		switch {
		case span.Type == ValueString && string(span.Str) == string(parent.Str):
			r.Report(StreamFinding{
				Line: rec.Line, Column: parent.Column, Pointer: "/correlation/parent_span_id",
				Reason: "parent_span_id " + strconv.Quote(string(parent.Str)) + " is the event's own span_id (a span is not its own parent)",
				Extra:  map[string]any{"trace_id": string(trace.Str)},
			})
		case spanKey(tid, parent.Str, &op.parent):
			op.hasParent = true // decided by Flush
		case !s.has(tid, parent.Str):
			// Not seen yet: the parent may be later in this log or in
			// another log of the run; decided after the last file, by the
			// record read again when it can be.
			op.long = true
			if rec.Source != nil && rec.Offset >= 0 {
				s.srcs[f.file] = rec.Source
				o := uint64(rec.Offset)
				op.parent = [3]uint32{refAtOffset, uint32(o), uint32(o >> 32)}
			} else {
				s.key = longKey(s.key, tid, parent.Str)
				op.parent = [3]uint32{0, uint32(len(s.pendKeys)), uint32(len(s.pendKeys) + len(s.key))}
				s.pendKeys = append(s.pendKeys, s.key...)
			}
		}
	}
	if span.Type == ValueString {
		if spanKey(tid, span.Str, &op.span) {
			op.hasSpn = true
		} else {
			s.add(tid, span.Str)
		}
	}
	if op.hasParent || op.long || op.hasSpn {
		f.batch = append(f.batch, op)
	}
}

// Flush implements Flusher: the batch's parents and spans in order, after
// loading the table slots their lookups read, all at once. A parent not
// yet seen is kept for the end of the run.
func (f *spanFile) Flush(*StreamReporter) {
	s := f.run
	for i := range f.batch {
		op := &f.batch[i]
		if op.hasParent {
			op.hParent = spanHash(&op.parent)
			if p := s.spans.Line(op.hParent); p != nil {
				f.lines = append(f.lines, p)
			}
		}
		if op.hasSpn {
			op.hSpan = spanHash(&op.span)
			if p := s.spans.Line(op.hSpan); p != nil {
				f.lines = append(f.lines, p)
			}
		}
	}
	f.sink += idtab.LoadLines(&f.lines)
	for i := range f.batch {
		op := &f.batch[i]
		if op.long || op.hasParent && !s.hasEntryHash(&op.parent, op.hParent) {
			// Not seen yet: the parent may be later in this log or in
			// another log of the run; decided after the last file.
			s.addRef(spanRef{file: f.file, line: op.line, col: op.col, key: op.parent})
		}
		if op.hasSpn {
			if c := s.spans.Probe(op.hSpan); !findSpan(&c, &op.span) {
				s.put(&c, &op.span)
			}
		}
	}
	f.batch = f.batch[:0]
}

func (f *spanFile) Finish(r *StreamReporter) { f.Flush(r) }

// Expect implements Expecter: room in the run's span table for as many
// spans per record as the first batch had, up to hotMax.
func (f *spanFile) Expect(records int) {
	if s := f.run; f.recs > 0 {
		s.spans.Reserve(min(s.hotMax, s.spans.Len()+int(int64(records)*int64(f.spans)/int64(f.recs))))
	}
}

// collectorStreamRules defines the rules of this file (group CL, loaded on first use: see groups).
func collectorStreamRules() {
	cl := []string{"collector/event"}
	trace := strings.Join(collectorTrace, "\n")
	register(
		&Rule{
			ID: "CL100", Name: "duplicate-event-id", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityError, Kinds: cl,
			Scope:   ScopeFile + " A daily and a per-agent log may both record one event (seed 004 File Naming Convention), so event_ids of different logs are not compared.",
			Summary: "an event_id appears once per collector log (UUIDs compared as 128-bit values); the finding names the line of the first occurrence",
			Source:  "seed 004 Optional Fields (event_id: UUID for this event); README, Codes and precedence, LEDGER_INCONSISTENT",
			// The third event reuses the first one's id, in upper case.
			ExampleKind: "collector/event",
			examples: func() (string, string) {
				return collectorTrace[0] + "\n" + collectorTrace[1] + "\n" + strings.Replace(collectorTrace[2], "0b6f3c1e-1d2a-4b7c-9e8f-000000000003", "0B6F3C1E-1D2A-4B7C-9E8F-000000000001", 1), trace
			},
		},
		&Rule{
			ID: "CL101", Name: "dangling-parent-span", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning, Kinds: cl,
			Scope: "the run: every collector log linted together, before or after the child; decided after the last file. Whether a parent is found depends on which logs were linted (per-agent and daily logs share traces), so it is a warning.",
			Summary: "correlation.parent_span_id names a span_id of the same trace_id in a collector log of the run, before or after the child " +
				"(a span is not its own parent)",
			Source:      "seed 004 Correlation Object, Multi-Agent Pipeline example and File Naming Convention; README, Codes and precedence, LEDGER_INCONSISTENT (dangling references across records)",
			ExampleKind: "collector/event",
			examples: func() (string, string) {
				return collectorTrace[0] + "\n" + strings.Replace(collectorTrace[1], `"parent_span_id":"span-001"`, `"parent_span_id":"span-000"`, 1), collectorTrace[0] + "\n" + collectorTrace[1]
			},
		},
		&Rule{
			ID: "CL102", Name: "collector-time-order", Code: envelope.LedgerInconsistent, Severity: envelope.SeverityWarning, Kinds: cl,
			Scope:       ScopeFile,
			Summary:     "a collector event's timestamp is earlier than the previous event's of the same log (each log is append-only, in time order); both lines are named",
			Source:      "seed 004 Overview (audit trails, one event per line); README, Codes and precedence, LEDGER_INCONSISTENT",
			ExampleKind: "collector/event",
			examples: func() (string, string) {
				return collectorTrace[0] + "\n" + strings.Replace(collectorTrace[1], "2025-12-13T20:00:05.000Z", "2025-12-13T19:59:05.000Z", 1), collectorTrace[0] + "\n" + collectorTrace[1]
			},
		},
	)
	registerStream("CL100", collectorDupID{})
	registerStream("CL101", &collectorParentSpan{})
	registerStream("CL102", timeOrder{Pointer: "/timestamp", Log: "a collector log"})
}
