package rules

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spanRec is one collector record for CL101: its trace_id, span_id and
// parent_span_id ("" = absent).
type spanRec struct{ trace, span, parent string }

// lintSpans runs CL101's bound check over files (file name → records) in
// the given order, as the engine does, and returns its findings as
// "file:line", sorted.
func lintSpans(t *testing.T, order []string, files map[string][]spanRec) []string {
	t.Helper()
	return lintSpansWith(t, order, files, nil)
}

// lintSpansWith is lintSpans with set called on the run's spans first.
func lintSpansWith(t *testing.T, order []string, files map[string][]spanRec, set func(*spanRun)) []string {
	t.Helper()
	run := &LintRun{}
	c := (&collectorParentSpan{}).BindRun(run).(*collectorParentSpan)
	if set != nil {
		set(c.run)
	}
	rep := NewStreamReporter("CL101")
	var got []string
	str := func(s string) Value {
		if s == "" {
			return Value{}
		}
		return Value{Type: ValueString, Str: []byte(s)}
	}
	tree := c.NewTree(nil)
	for _, name := range order {
		st := c.NewFile(name, nil)
		for i, r := range files[name] {
			st.Observe(&StreamRecord{Line: i + 1, Valid: true, Values: []Value{str(r.trace), str(r.span), str(r.parent)}}, rep)
			for _, f := range rep.Take() {
				got = append(got, fmt.Sprintf("%s:%d", name, f.Line))
			}
		}
		st.Finish(rep)
		tree.AddFile(name, st)
	}
	tree.Finish(rep)
	for _, f := range rep.Take() {
		got = append(got, fmt.Sprintf("%s:%d", f.File, f.Line))
	}
	slices.Sort(got)
	return got
}

// TestParentSpanKeys: spans are found by (trace, span) whatever the span_id
// (short, 16 lowercase hex digits, long), and a span of one trace is not a
// parent in another.
func TestParentSpanKeys(t *testing.T) {
	long := "span-0123456789abcdef0123456789"
	hex := "00f067aa0ba902b7"
	cases := []struct {
		name                  string
		trace2, span1, parent string
		dangling              bool
	}{
		{"short, same trace", "t1", "span-1", "span-1", false},
		{"long, same trace", "t1", long, long, false},
		{"hex, same trace", "t1", hex, hex, false},
		{"8 bytes, same trace", "t1", "span-001", "span-001", false},
		{"short, other trace", "t2", "span-1", "span-1", true},
		{"long, other trace", "t2", long, long, true},
		{"hex, other trace", "t2", hex, hex, true},
		{"upper-case hex is another span", "t1", hex, "00F067AA0BA902B7", true},
		{"long prefix of a short", "t1", "span-1", long[:9], true},
		{"short unknown", "t1", "span-1", "span-2", true},
		{"no trace_id: a trace of its own", "", "span-1", "span-1", true},
	}
	for _, c := range cases {
		got := lintSpans(t, []string{"a"}, map[string][]spanRec{"a": {{"t1", c.span1, ""}, {c.trace2, "child", c.parent}}})
		if len(got) != map[bool]int{false: 0, true: 1}[c.dangling] {
			t.Errorf("%s: findings %v, dangling %v", c.name, got, c.dangling)
		}
	}
}

// TestParentSpanAcrossLogs: seed 004's per-agent and daily logs. A parent
// logged in another agent's log, in yesterday's log, or later in the same
// log resolves; the verdicts do not depend on the order of the files; only
// a parent that no log of the run has is reported, after the last file.
func TestParentSpanAcrossLogs(t *testing.T) {
	files := map[string][]spanRec{
		// The pm agent starts the trace yesterday and today.
		"events-@pm-agent-2025-12-12.jsonl": {{"trace-abc", "span-001", ""}},
		"events-@pm-agent-2025-12-13.jsonl": {
			{"trace-abc", "span-003", "span-001"}, // yesterday's span
			{"trace-abc", "span-005", "span-004"}, // the architect's span, in the later file
			{"trace-abc", "span-006", "span-007"}, // later in this log
			{"trace-abc", "span-007", "span-003"},
		},
		"events-@architect-agent-2025-12-13.jsonl": {
			{"trace-abc", "span-004", "span-003"}, // the pm agent's span
			{"trace-abc", "span-009", "span-404"}, // nowhere in the run
			{"trace-xyz", "span-010", "span-001"}, // span-001 is of trace-abc
		},
	}
	want := []string{"events-@architect-agent-2025-12-13.jsonl:2", "events-@architect-agent-2025-12-13.jsonl:3"}
	names := []string{"events-@pm-agent-2025-12-12.jsonl", "events-@pm-agent-2025-12-13.jsonl", "events-@architect-agent-2025-12-13.jsonl"}
	for _, order := range [][]string{names, {names[2], names[1], names[0]}, {names[1], names[2], names[0]}} {
		if got := lintSpans(t, order, files); !slices.Equal(got, want) {
			t.Errorf("order %v: findings %v, want %v", order, got, want)
		}
	}
	// Today's log alone: yesterday's parent is not in the run.
	got := lintSpans(t, names[1:2], files)
	if want := []string{"events-@pm-agent-2025-12-13.jsonl:1", "events-@pm-agent-2025-12-13.jsonl:2"}; !slices.Equal(got, want) {
		t.Errorf("today alone: findings %v, want %v", got, want)
	}
}

// TestParentSpanSelf: an event that names its own span as its parent is
// reported at once, whatever else the run holds.
func TestParentSpanSelf(t *testing.T) {
	got := lintSpans(t, []string{"a", "b"}, map[string][]spanRec{
		"a": {{"t1", "s1", ""}},
		"b": {{"t1", "s1", "s1"}},
	})
	if !slices.Equal(got, []string{"b:1"}) {
		t.Errorf("findings %v, want [b:1]", got)
	}
}

// TestTraceGroups: the summary's correlation_groups.trace_id counts the
// distinct trace_ids of every log of the run.
func TestTraceGroups(t *testing.T) {
	run := &LintRun{}
	c := (&collectorParentSpan{}).BindRun(run).(*collectorParentSpan)
	rep := NewStreamReporter("CL101")
	for _, name := range []string{"a", "b"} {
		st := c.NewFile(name, nil)
		for i, tr := range []string{"t1", "t2", "t1"} {
			st.Observe(&StreamRecord{Line: i + 1, Valid: i != 1, Values: []Value{{Type: ValueString, Str: []byte(tr + name)}, {}, {}}}, rep)
		}
	}
	if g := run.Groups(); g["trace_id"] != 4 {
		t.Errorf("Groups = %v, want trace_id 4", g)
	}
}

// TestStreamRulesHaveScope: every rule with a stream check says in its
// Scope (printed by `agentlint explain`) over which records it decides; a
// run-wide rule is a warning (a finding that depends on
// which files were linted is a warning or is resolved over the whole run).
func TestStreamRulesHaveScope(t *testing.T) {
	for _, r := range All() {
		if Stream(r.ID) == nil {
			continue
		}
		if r.Scope == "" {
			t.Errorf("%s has a stream check but no Scope", r.ID)
		}
		if len(r.Scope) > 8 && r.Scope[:8] == "the run:" && r.Severity != "warning" {
			t.Errorf("%s decides over the run but is an %s", r.ID, r.Severity)
		}
	}
}

// TestParentSpanSpill: with the pending parent references going to a
// temporary file after the first block of two, CL101 reports exactly what
// it reports with them in memory (dangling parents across files, in
// output order, a path linted twice), and the file is gone at the end.
func TestParentSpanSpill(t *testing.T) {
	files := map[string][]spanRec{}
	order := []string{"a.jsonl", "b.jsonl", "a.jsonl", "c.jsonl"}
	for f, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		for i := 0; i < 300; i++ {
			parent := fmt.Sprintf("span-%d-%d", (f+1)%3, (i*7)%400) // in another file, or nowhere
			if i%5 == 0 {
				parent = fmt.Sprintf("span-%d-0123456789abcdef-%d", f, i+1) // long: later in this file
			}
			span := fmt.Sprintf("span-%d-%d", f, i)
			if i%5 == 4 {
				span = fmt.Sprintf("span-%d-0123456789abcdef-%d", f, i)
			}
			files[name] = append(files[name], spanRec{fmt.Sprintf("t%d", i%3), span, parent})
		}
	}
	for _, ord := range [][]string{order[:2], order} {
		want := lintSpans(t, ord, files)
		for _, hot := range []int{0, 7, 64} {
			got := lintSpansWith(t, ord, files, func(s *spanRun) {
				dir := t.TempDir()
				s.chunk, s.spillAfter = 2, 1
				s.spill.dirName = dir
				if hot > 0 {
					s.hotMax, s.disk.dirName, s.pf.dirName = hot, dir, dir
					s.traces.hotMax, s.long.hotMax = 2, 3
				}
				t.Cleanup(func() {
					if ents, _ := os.ReadDir(dir); len(ents) > 0 {
						t.Errorf("%d files left in the temporary directory", len(ents))
					}
				})
			})
			if len(want) < 100 || !slices.Equal(got, want) {
				t.Errorf("order %v, %d spans in memory: spilled %d findings, in memory %d (differ: %v)", ord, hot, len(got), len(want), !slices.Equal(got, want))
			}
		}
	}
}

// TestAppendQuote: CL101's quoting writes what strconv.Quote writes, for
// every byte value in ids of several lengths.
func TestAppendQuote(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, s := range []string{string(rune(c)), "ab" + string([]byte{byte(c)}) + "cd", "555b3ce7f80852" + string([]byte{byte(c)})} {
			if got, want := string(appendQuote([]byte("x "), []byte(s))), "x "+strconv.Quote(s); got != want {
				t.Fatalf("appendQuote(%q) = %s, want %s", s, got, want)
			}
		}
	}
}

// TestSpanKeyEveryByte: a 16-byte span_id has a 12-byte key exactly when
// each of its bytes is a lowercase hex digit, and the key spells it back
// (spanText); a span_id of at most 8 bytes always has one.
func TestSpanKeyEveryByte(t *testing.T) {
	base := []byte("0123456789abcdef")
	for i := range base {
		for c := 0; c < 256; c++ {
			s := append([]byte(nil), base...)
			s[i] = byte(c)
			var e [3]uint32
			ok := spanKey(7, s, &e)
			want := '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
			if ok != want {
				t.Fatalf("spanKey(%q) ok=%v, want %v", s, ok, want)
			}
			if ok && (e[0] != 7<<4|spanTagHex || string(spanText(nil, &e)) != string(s)) {
				t.Fatalf("spanKey(%q) = %x, spelled %q", s, e, spanText(nil, &e))
			}
		}
	}
	for _, s := range []string{"", "a", "span-001", "ABCDEF01", "\x00\xff"} {
		var e [3]uint32
		if !spanKey(3, []byte(s), &e) || string(spanText(nil, &e)) != s {
			t.Fatalf("spanKey(%q) = %x, spelled %q", s, e, spanText(nil, &e))
		}
	}
}

// TestAppendQuoteEdges: CL101's quoting is strconv.Quote's for texts of every
// length with each byte at the edges of what needs escaping, anywhere in
// the text (the eight-byte words and the tail).
func TestAppendQuoteEdges(t *testing.T) {
	edges := []byte{0x00, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7e, 0x7f, 0x80, 0xc3, 0xa9, 0xff, 'a'}
	for n := 0; n <= 24; n++ {
		for i := 0; i < n; i++ {
			for _, c := range edges {
				s := []byte(strings.Repeat("a", n))
				s[i] = c
				if got, want := string(appendQuote([]byte("x"), s)), "x"+strconv.Quote(string(s)); got != want {
					t.Fatalf("appendQuote(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
	s := []byte("0123456789abcdef0123")
	if got := string(appendQuote(nil, s)); got != strconv.Quote(string(s)) {
		t.Fatalf("appendQuote(%q) = %s", s, got)
	}
}
