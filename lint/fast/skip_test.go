package fast

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// skipStringRef is SkipString read one byte at a time: an escape takes
// the byte after it, the first other '"' ends the string.
func skipStringRef(buf []byte, i int) int {
	for j := i + 1; j < len(buf); j++ {
		switch buf[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// TestSkipString: the end of a string literal found eight bytes at a time
// is the end an escape-aware reading finds, for quotes and runs of
// backslashes at every offset of the eight-byte words, multi-byte UTF-8,
// and strings that do not end.
func TestSkipString(t *testing.T) {
	parts := []string{"a", "é", "\\\"", "\\\\", "\\", "\"", "x\\\\\\\"y", "\t", "0123456", "\xff"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", r.IntN(3)))
		i := b.Len()
		b.WriteByte('"')
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		if r.IntN(4) > 0 {
			b.WriteString(`","b":1}`)
		}
		buf := []byte(b.String())
		if got, want := SkipString(buf, i), skipStringRef(buf, i); got != want {
			t.Fatalf("SkipString(%q, %d) = %d, want %d", buf, i, got, want)
		}
	}
}

// TestCondsFromMemo: the conditions CondsFrom gives from its memo are
// those it computes anew, for the single discriminators of the idle,
// VerMAS and operator CondSets and values that repeat, share a memo
// entry, differ only past the memo's length, escape, are absent or are
// not strings.
func TestCondsFromMemo(t *testing.T) {
	vals := []string{`"STATE"`, `"DONE"`, `"ABORT"`, `"ANCHOR"`, `"STAT"`, `"grind"`, `"issue"`, `"loop"`, `"gr\u0069nd"`, `7`, `null`,
		`"work_order.created"`, `"agent.idle"`, `"mail.sent"`, `"verify.verdict"`, `"process.completed"`,
		`"` + strings.Repeat("x", condMemoLen) + `"`, `"` + strings.Repeat("x", condMemoLen-2) + `"`, `"` + strings.Repeat("x", condMemoLen-1) + `y"`, ``}
	// More values than the memo has entries: they share entries.
	for i := range 3 * condMemos {
		vals = append(vals, fmt.Sprintf(`"work_order.t%d"`, i))
	}
	var sets []*CondSet
	for _, cs := range []*CondSet{&conds0, &conds1, &conds4, &conds8} {
		if len(cs.Fields) == 1 {
			sets = append(sets, cs)
		}
	}
	if len(sets) < 3 {
		t.Fatalf("%d CondSets of one discriminator", len(sets))
	}
	memo := &Acc{}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		cs := sets[rnd.IntN(len(sets))]
		v := vals[rnd.IntN(len(vals))]
		b := []byte(`{"k":` + v + `}`)
		spans, found := []Span32{{Start: 5, End: int32(5 + len(v))}}, uint(1)
		if v == `` {
			found = 0
		}
		if got, want := memo.CondsFrom(b, cs, spans, found), new(Acc).condsFrom(b, cs, spans, found); got != want {
			t.Fatalf("%s: conditions %b from the memo, %b anew", v, got, want)
		}
	}
}

// TestAnyObjectNames: an open object (AnyObject) is accepted exactly when
// jsontext finds it valid, for objects of up to maxAccNames members whose
// names are of every length around the eight- and sixteen-byte words its
// duplicate check reads, repeated (the same name, or one differing in its
// last byte or by a byte past the other's end), escaped, non-ASCII, with
// white space around the ':', ending near the end of the buffer, and with
// nested objects that repeat the outer names.
func TestAnyObjectNames(t *testing.T) {
	names := []string{"", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno", "abcdefghijklmnop",
		"abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz", "abcdefgi", "abcdefghijklmnoq", "é", "ab\\u0063", "abc",
		"tool", "host", "memory_mb", "uptime_ms"}
	values := []string{`1`, `"x"`, `-2.5e3`, `true`, `null`, `[1,{"a":1,"a":2}]`, `{"a":1,"b":2}`, `{"a":1,"a":2}`, `"\u00e9"`, `[]`, `{}`}
	seps := []string{":", " :", ": ", "\t:\n"}
	r := rand.New(rand.NewPCG(3, 4))
	a := &Acc{}
	accepted := 0
	for n := 0; n < 40000; n++ {
		var sb strings.Builder
		sb.WriteByte('{')
		m := r.IntN(12)
		if r.IntN(8) == 0 {
			m = 8 + r.IntN(30)
		}
		for k := 0; k < m; k++ {
			if k > 0 {
				sb.WriteString([]string{",", ", ", ",\n"}[r.IntN(3)])
			}
			name := names[r.IntN(len(names))]
			if r.IntN(3) == 0 {
				name = fmt.Sprintf("n%d", r.IntN(40))
			}
			sb.WriteString(`"` + name + `"` + seps[r.IntN(len(seps))])
			sb.WriteString(values[r.IntN(len(values))])
		}
		sb.WriteByte('}')
		b := []byte(sb.String())
		if r.IntN(2) == 0 {
			b = append(b, strings.Repeat(" ", r.IntN(20))...)
		}
		a.Loose, a.depth = false, 0
		got := a.AnyObject(b, 0)
		end := strings.LastIndexByte(string(b), '}') + 1
		valid := jsontext.Value(b[:end]).IsValid()
		if got >= 0 && (got != end || !valid) {
			t.Fatalf("AnyObject(%q) = %d, valid %v (end %d)", b, got, valid, end)
		}
		if got < 0 && valid && m <= maxAccNames && !strings.Contains(string(b), `\u0063"`) { // escaped names: the validator reads them
			t.Fatalf("AnyObject(%q) declined a valid object", b)
		}
		if got >= 0 {
			accepted++
			if a.depth != 0 {
				t.Fatalf("AnyObject(%q): depth %d after it", b, a.depth)
			}
		}
	}
	if accepted < 5000 {
		t.Fatalf("%d objects accepted", accepted)
	}
}

// TestCondsFromMemoKeeps: the memo keeps every value it took while it has
// room, whatever their hashes (each of condMemos/2 values is then served
// from it), and starts over with the next value once it is full.
func TestCondsFromMemoKeeps(t *testing.T) {
	a := &Acc{}
	val := func(k int) ([]byte, []Span32) {
		v := fmt.Sprintf(`"work_order.t%d"`, k)
		return []byte(`{"k":` + v + `}`), []Span32{{Start: 5, End: int32(5 + len(v))}}
	}
	for k := range condMemos / 2 {
		b, spans := val(k)
		a.CondsFrom(b, &conds8, spans, 1)
	}
	for i := range a.memo {
		if a.memo[i].cs != nil {
			a.memo[i].m = ^uint64(0) // what only the memo can answer
		}
	}
	for k := range condMemos / 2 {
		b, spans := val(k)
		if got := a.CondsFrom(b, &conds8, spans, 1); got != ^uint64(0) {
			t.Fatalf("value %d of %d: not served from the memo", k, condMemos/2)
		}
	}
	b, spans := val(condMemos)
	if got, want := a.CondsFrom(b, &conds8, spans, 1), new(Acc).condsFrom(b, &conds8, spans, 1); got != want || a.memoN != 1 {
		t.Fatalf("a value past a full memo: conditions %b (want %b), %d values held", got, want, a.memoN)
	}
}
