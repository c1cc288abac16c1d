package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/agentlint/agentlint/rules/internal/idtab"
)

// memSource is a Source over a file's bytes: Values decodes the record at
// an offset with encoding/json and returns its top-level string member
// named by the field's pointer.
type memSource struct {
	data  []byte
	reads int
}

func (m *memSource) Values(off int64, fields []Field, out []Value) bool {
	m.reads++
	line := m.data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	var obj map[string]any
	if json.Unmarshal(line, &obj) != nil {
		return false
	}
	out[0] = Value{}
	if s, ok := obj[fields[0].Pointer[1:]].(string); ok {
		out[0] = Value{Type: ValueString, Str: []byte(s)}
	}
	return true
}

func (m *memSource) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m.data).ReadAt(p, off)
}

// TestRecordIDsExact: recordIDs answers exactly as a map of ids to first
// lines, whatever the hash: with every id hashing alike (each possible
// repeat confirmed by reading the earlier record) or hashing well, with
// its cache of recent ids or without, for records that can be read again
// (lines counted from the marks, blank lines between records) and records
// that cannot (kept whole), ids of every length; with all but the last 16
// entries on disk (runs merged, the Bloom filter grown from them), or with
// a directory where no run can be written (the entries stay in memory).
func TestRecordIDsExact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		collide bool
		recent  bool
		reread  bool
		disk    string // "": the default hotMax, "ok": 16 and a directory, "bad": 16 and none
		// lowZero: hashes whose low 32 bits are 0 (an entry's word 1 is
		// then its key's bit 4 alone: never an empty slot).
		lowZero bool
	}{
		{"colliding, no cache, reread", true, false, true, "", false},
		{"colliding, cache, reread", true, true, true, "", false},
		{"hashed, cache, reread", false, true, true, "", false},
		{"colliding, no cache, whole", true, false, false, "", false},
		{"hashed, cache, whole", false, true, false, "", false},
		{"hashed, no cache, reread, on disk", false, false, true, "ok", false},
		{"colliding, no cache, reread, on disk", true, false, true, "ok", false},
		{"hashed, cache, reread, on disk", false, true, true, "ok", false},
		{"hashed, no cache, reread, disk unwritable", false, false, true, "bad", false},
		{"low bits zero, no cache, reread", false, false, true, "", true},
		{"low bits zero, no cache, reread, on disk", false, false, true, "ok", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			var data bytes.Buffer
			type rec struct {
				line int
				off  int64
				id   string
				ref  string
			}
			var recs []rec
			line := 1
			for i := 0; i < 800; i++ {
				id := fmt.Sprintf("evt-%d", r.IntN(500))
				if i%7 == 0 {
					id = fmt.Sprintf("evt-a-long-identifier-of-more-than-36-bytes-%d", r.IntN(60))
				} else if i%11 == 0 {
					id = fmt.Sprintf("evt-%012d", r.IntN(80)) // 16 bytes, as an event_id
				}
				ref := fmt.Sprintf("evt-%d", r.IntN(650))
				recs = append(recs, rec{line, int64(data.Len()), id, ref})
				fmt.Fprintf(&data, `{"event_id":%q,"caused_by":%q}`+"\n", id, ref)
				line++
				if i%5 == 0 {
					data.WriteString("\n")
					line++
				}
			}
			src := &memSource{data: data.Bytes()}
			var marks lineMarks
			ids := newRecordIDs([]Field{{"/event_id", FieldString}}, &marks)
			defer ids.free()
			if tc.collide {
				ids.hash = func([]byte) uint64 { return 0x5eed }
			}
			if tc.lowZero {
				ids.hash = func(b []byte) uint64 { return idtab.HashBytes(b) &^ (1<<32 - 1) }
			}
			if !tc.recent {
				ids.recent = nil
			}
			switch tc.disk {
			case "ok":
				ids.hotMax, ids.disk.dirName = 16, t.TempDir()
			case "bad":
				ids.hotMax, ids.disk.dirName = 16, filepath.Join(t.TempDir(), "missing")
			}
			first := map[string]int{}
			for _, x := range recs {
				sr := &StreamRecord{Line: x.line, Offset: -1}
				if tc.reread {
					sr.Offset, sr.Source = x.off, src
				}
				marks.note(sr)
				_, want := first[x.ref]
				if got := ids.has([]byte(x.ref)); got != want {
					t.Fatalf("line %d: has(%q) = %v, want %v", x.line, x.ref, got, want)
				}
				f, dup := ids.add(sr, []byte(x.id))
				wf, wdup := first[x.id]
				if !wdup {
					wf = x.line
					first[x.id] = x.line
				}
				if f != wf || dup != wdup {
					t.Fatalf("line %d: add(%q) = %d, %v; want %d, %v", x.line, x.id, f, dup, wf, wdup)
				}
			}
			if ids.len() != len(first) {
				t.Errorf("len %d, want %d", ids.len(), len(first))
			}
			if runs := len(ids.disk.runs); (runs > 0) != (tc.disk == "ok") || runs > 6 {
				t.Errorf("%d runs on disk (%q)", runs, tc.disk)
			}
			if tc.disk == "ok" && ids.disk.bloom.Plan() < ids.disk.n {
				t.Errorf("filter planned for %d of %d entries", ids.disk.bloom.Plan(), ids.disk.n)
			}
			if ids.err() != nil {
				t.Error(ids.err())
			}
			if tc.reread && tc.collide && src.reads == 0 {
				t.Error("no record was read again")
			}
			if !tc.reread && src.reads != 0 {
				t.Errorf("%d records read again without a Source", src.reads)
			}
		})
	}
}

var _ io.ReaderAt = (*memSource)(nil)

// TestIDHash: recordIDs' hash (idtab.HashBytes) tells apart ids of every
// length up to beyond 16 bytes that differ in one byte anywhere, and an id
// from the same id with a zero byte more (their lengths); it is a function
// of the bytes. It folds the length into the first word: ids that differ
// both in length and in their first bytes may collide, which costs a
// comparison, never a verdict.
func TestIDHash(t *testing.T) {
	base := []byte("evt-0DaBOThvysi5-and-some-more-bytes")
	for _, zeros := range []bool{false, true} {
		seen := map[uint64]string{}
		add := func(id string) {
			h := idtab.HashBytes([]byte(id))
			if h != idtab.HashBytes([]byte(id)) {
				t.Fatalf("idtab.HashBytes(%q) changes", id)
			}
			if x, ok := seen[h]; ok && x != id {
				t.Fatalf("idtab.HashBytes(%q) = idtab.HashBytes(%q)", id, x)
			}
			seen[h] = id
		}
		for n := 0; n <= len(base); n++ {
			add(string(base[:n]))
			if zeros {
				add(string(base[:n]) + "\x00")
				continue
			}
			for i := 0; i < n; i++ {
				b := append([]byte(nil), base[:n]...)
				b[i] ^= 1
				add(string(b))
			}
		}
	}
}

// TestRecordIDsLost: when the runs on disk cannot be read back, the ids
// in them are not found, err says why, and vmEvents.Finish reports it.
func TestRecordIDsLost(t *testing.T) {
	var data bytes.Buffer
	var marks lineMarks
	ids := newRecordIDs([]Field{{"/event_id", FieldString}}, &marks)
	ids.hotMax, ids.disk.dirName = 4, t.TempDir()
	src := &memSource{}
	for i := range 40 {
		off := int64(data.Len())
		fmt.Fprintf(&data, `{"event_id":"evt-%d"}`+"\n", i)
		src.data = data.Bytes()
		rec := &StreamRecord{Line: i + 1, Offset: off, Source: src}
		marks.note(rec)
		ids.add(rec, []byte(fmt.Sprint("evt-", i)))
	}
	ids.recent = nil
	for _, r := range ids.disk.runs {
		r.f.Close()
	}
	if ids.has([]byte("evt-0")) || ids.err() == nil {
		t.Fatalf("an id of a lost run: has %v, err %v", ids.has([]byte("evt-0")), ids.err())
	}
	ev := &vmEvents{file: "feed.jsonl", ids: ids, procs: newRecordIDs(vmProcIDField, &marks), pf: &pageFile{}}
	ev.wos, ev.msgs, ev.texts = newPagedStrings(ev.pf, true), newPagedStrings(ev.pf, true), newPagedStrings(ev.pf, false)
	ev.wo, ev.sent = newPagedArray[vmWO](ev.pf), newPagedArray[vmSent](ev.pf)
	var got []StreamFinding
	ev.Finish(&StreamReporter{on: true, sink: &streamSink{emit: func(f StreamFinding) { got = append(got, f) }}})
	if len(got) != 1 {
		t.Errorf("%d findings, want 1 naming the lost ids: %v", len(got), got)
	}
}

// TestLineMarksPages: the line of every record is found from its offset,
// blank lines counted, before and after a page of marks fills (more than
// markEvery*markPage records).
func TestLineMarksPages(t *testing.T) {
	var data bytes.Buffer
	var marks lineMarks
	type at struct {
		off  int64
		line int
	}
	var recs []at
	line := 1
	for i := range markEvery*markPage + 3*markEvery + 5 {
		if i%7 == 3 {
			data.WriteString("\n")
			line++
		}
		recs = append(recs, at{int64(data.Len()), line})
		marks.note(&StreamRecord{Line: line, Offset: int64(data.Len())})
		fmt.Fprintf(&data, `{"n":%d}`+"\n", i)
		line++
	}
	if len(marks.pages) != 2 {
		t.Fatalf("%d pages of marks, want 2", len(marks.pages))
	}
	for i := range marks.n {
		if mk, r := marks.mark(i), recs[i*markEvery]; mk.off != r.off || mk.line != r.line {
			t.Fatalf("mark %d: %+v, want record %d's %+v", i, mk, i*markEvery, r)
		}
	}
	src := &memSource{data: data.Bytes()}
	for i, r := range recs {
		if i%101 != 0 && i%markEvery > 1 && i < len(recs)-markEvery {
			continue
		}
		if got := marks.lineAt(src, r.off); got != r.line {
			t.Fatalf("record %d at %d: line %d, want %d", i, r.off, got, r.line)
		}
	}
}
