package output

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/agentlint/agentlint/lint/envelope"
)

// quoteRef is appendString's specification: encoding/json with HTML
// escaping off, DEL and the C1 controls then escaped as \u007f-\u009f.
func quoteRef(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(escapeJSONControls(bytes.TrimSuffix(b.Bytes(), []byte{'\n'})))
}

// TestAppendStringSequencesAtBoundaries: a character that needs an escape
// or a multi-byte one (valid, a C1 control, U+2028, cut short or invalid),
// and a pair of them, at every position of strings of 1 to 40 bytes, in
// plain text and after a byte that borrows into the next (a control byte,
// '"', '\\' before ' ', '#', ']'): escaped as encoding/json escapes them.
func TestAppendStringSequencesAtBoundaries(t *testing.T) {
	seqs := []string{`"`, `\`, "\x00", "\n", "\x1f", "\x7f", "é", "日", "🎉", "\u0085", "\u009f", "\u00a0", "\u2028", "\u2029",
		"\xff", "\xc2", "\xe2\x80", "\xed\xa0\x80", `\]`, `"#`, "\x01 ", "\\\\", `""`, "\x1f\x20\x20"}
	for n := 1; n <= 40; n++ {
		for pos := 0; pos < n; pos++ {
			for _, q := range seqs {
				for _, fill := range []string{"a", "~"} {
					base := strings.Repeat(fill, n)
					s := base[:pos] + q + base[pos:]
					if got, want := string(appendString(nil, s)), quoteRef(t, s); got != want {
						t.Fatalf("%q: got %s, want %s", s, got, want)
					}
					s2 := s + strings.Repeat(fill, pos%9) + q
					if got, want := string(appendString(nil, s2)), quoteRef(t, s2); got != want {
						t.Fatalf("%q: got %s, want %s", s2, got, want)
					}
				}
			}
		}
	}
}

// TestFindingMemo: strings quoted through the memo read as appendString
// writes them: a string seen again (kept, then copied), many strings in
// turn, and a buffer whose text changes in place (same address and
// length, other bytes) after it was kept.
func TestFindingMemo(t *testing.T) {
	var m findingMemo
	var nomemo *findingMemo
	check := func(s string) {
		t.Helper()
		v := envelope.Violation{Reason: s, Severity: envelope.SeverityWarning}
		if got, want := string(m.appendTail([]byte("x"), &v)), "x"+string(nomemo.appendTail(nil, &v)); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
	long := `unknown event type "decision.escalated" in namespace "decision" (seed 004 lists 26 event types)`
	for range 4 {
		check(long)
	}
	var kept int
	for i := range m.slots {
		if e := m.slots[i].Load(); e != nil {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("%d strings kept, want 1", kept)
	}
	buf := []byte(strings.Repeat("reason \"a\" ", 10))
	for i := range 20 {
		buf[9] = "abcdefghijklmnopqrst"[i] // the same address and length, other text
		check(unsafe.String(&buf[0], len(buf)))
		check(unsafe.String(&buf[0], len(buf)))
	}
	for i := range 300 {
		check(strings.Repeat(string(rune('a'+i%26)), 64+i))
	}
	check(strings.Repeat("short", 3))

	// Strings longer than memoMax are escaped each time, never kept.
	var big findingMemo
	huge := strings.Repeat(`"x" `, memoMax)
	for range 3 {
		v := envelope.Violation{Reason: huge, Severity: envelope.SeverityWarning}
		if got, want := string(big.appendTail(nil, &v)), string(nomemo.appendTail(nil, &v)); got != want {
			t.Fatalf("long string: got %.40s…, want %.40s…", got, want)
		}
	}
	v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "CL010", Pointer: "/" + strings.Repeat("p", memoMax),
		Reason: huge, Severity: envelope.SeverityWarning, Extra: map[string]any{strings.Repeat("k", memoMax+1): 1}}
	for range 3 {
		if got, want := string(appendViolation(nil, &v, &big)), string(appendViolation(nil, &v, nil)); got != want {
			t.Fatalf("long finding: got %.60s…, want %.60s…", got, want)
		}
	}
	for i := range big.slots {
		if big.slots[i].Load() != nil {
			t.Errorf("a string of %d bytes was kept", len(big.slots[i].Load().src))
		}
	}
	for i := range big.heads {
		if big.heads[i].Load() != nil || big.keys[i].Load() != nil {
			t.Errorf("a long pointer or key was kept")
		}
	}
}

// TestFindingMemoConcurrent: goroutines sharing one JSON (the workers and
// the emitter of `agentlint lint`) render every finding right (go test
// -race checks the memo's sharing).
func TestFindingMemoConcurrent(t *testing.T) {
	var m findingMemo
	reasons := make([]string, 100)
	for i := range reasons {
		reasons[i] = strings.Repeat(`"`+string(rune('a'+i%26))+`" \ `, 20+i%7)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := (i*7 + g) % len(reasons)
				v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "CL0" + strconv.Itoa(k%13), Pointer: "/p" + strconv.Itoa(k%3),
					Reason: reasons[k], Severity: envelope.SeverityWarning, Extra: map[string]any{"k" + strconv.Itoa(k%2): k}}
				if got, want := string(appendViolation(nil, &v, &m)), string(appendViolation(nil, &v, nil)); got != want {
					t.Errorf("%+v: got %s, want %s", v, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestAppendInt: appendInt writes what strconv writes, at every number of
// digits and around the bounds of its two-digit loop.
func TestAppendInt(t *testing.T) {
	ns := []int{0, 1, 9, 10, 11, 99, 100, 101, 109, 110, 999, 1000, 1009, 1099, 9999, 10000, 12345, 999999, 1000000, 1234567, 1e8 - 1, 1e9 - 1, 1e9, 1e9 + 1, math.MaxInt32,
		-1, -10, -99, -100, -1234567, math.MaxInt, math.MinInt}
	for n := 1; n < math.MaxInt32/7; n *= 7 {
		ns = append(ns, n, n-1, n+1)
	}
	for n := range 200000 {
		ns = append(ns, n)
	}
	for _, n := range ns {
		if got, want := string(appendInt([]byte("x"), n)), "x"+strconv.Itoa(n); got != want {
			t.Errorf("appendInt(%d) = %s, want %s", n, got, want)
		}
		if n > 0 && n < 1e8 {
			w, d := digits(n)
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], w)
			if got, want := string(b[:d]), strconv.Itoa(n); got != want || w>>(8*d%64) != 0 && d < 8 {
				t.Errorf("digits(%d) = %q (%#x), want %s", n, b[:d], w, want)
			}
		}
	}
}

// TestFindingMemoViolations: findings rendered through the memo read as
// without it, whatever the order: one rule with other pointers, codes and
// details keys in turn, rules that share a slot, details of one key (the
// rule's last key or another), of several keys, of no key, and values that
// need escapes.
func TestFindingMemoViolations(t *testing.T) {
	rules := []string{"CL010", "CL101", "AL003", "X", "", "CL0", "VM003", "CL011"}
	// Rules that share a slot with CL010 (keySlot).
	for r := 0; r < 400 && len(rules) < 12; r++ {
		if id := "R" + strconv.Itoa(r); keySlot(id) == keySlot("CL010") {
			rules = append(rules, id)
		}
	}
	pointers := []string{"/event_type", "/correlation/parent_span_id", "", "/a\"b", "/x/0", "/x/1"}
	codes := []envelope.Code{envelope.SchemaInvalid, envelope.LedgerInconsistent, "odd \x7f code"}
	details := []map[string]any{nil, {}, {"namespace": "decision"}, {"namespace": "sys\"tem"}, {"trace_id": "b101"},
		{"trace_id": 3}, {"a": 1, "b": "two"}, {"namespace": []string{"x"}}, {"\u2028key": "v"}}
	var m findingMemo
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		v := envelope.Violation{Code: codes[r.IntN(len(codes))], Rule: rules[r.IntN(len(rules))], Pointer: pointers[r.IntN(len(pointers))],
			Line: r.IntN(3), Column: r.IntN(50), Reason: "reason", Severity: envelope.SeverityWarning, Extra: details[r.IntN(len(details))]}
		if got, want := string(appendViolation(nil, &v, &m)), string(appendViolation(nil, &v, nil)); got != want {
			t.Fatalf("finding %d %+v:\n got  %s\n want %s", i, v, got, want)
		}
	}
}

// TestCopyEscape16: the assembly copyEscape16 (where there is one) and the
// portable copyEscape16Go write what appendString writes of random
// printable text with quotes, backslashes and one byte of every value at
// every position, up to a byte they may not escape (any other than '"' and
// '\\', or one of those with too little room left: a room to spare or just
// short of it) or the last fewer than 16 bytes, and stop at the same byte
// when they both stop before those; and at a page's end too.
func TestCopyEscape16(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	page := make([]byte, 3*4096)
	end := 2*4096 - int(uintptr(unsafe.Pointer(&page[0]))%4096) // the index of a page's first byte
	for n := 0; n <= 56; n++ {
		for pos := -1; pos < n; pos++ {
			for b := range 256 {
				if pos < 0 && b > 0 || pos%5 != 0 && !strings.ContainsRune("\x00\x1f !\"#[\\]~", rune(b)) && b != 0x7f && b != 0x80 && b != 0xff {
					continue // every byte value at every fifth position, some at the others
				}
				src := make([]byte, n+1)
				if b%2 == 1 { // text that ends where a page ends
					src = page[end-n : end+1]
				}
				for i := range src {
					src[i] = byte(0x20 + r.IntN(0x5f))
					if r.IntN(6) == 0 {
						src[i] = `"\`[r.IntN(2)]
					}
				}
				if pos >= 0 {
					src[pos] = byte(b)
				}
				room := n + 17 + r.IntN(12)
				var got [2][2]int
				for k, f := range []func(*byte, int, *byte, int) (int, int){copyEscape16, copyEscape16Go} {
					dst := make([]byte, room)
					i, o := f(&dst[0], room, &src[0], n)
					got[k] = [2]int{i, o}
					if want := quoteRef(t, string(src[:i])); `"`+string(dst[:o])+`"` != want {
						t.Fatalf("%q: wrote %q, want %s", src[:n], dst[:o], want)
					}
					if room-o < n-i+17 {
						t.Fatalf("%q, room %d: stopped at %d, %d with too little room left", src[:n], room, i, o)
					}
					if i < n && i <= n-16 && (plainByte[src[i]] || (src[i] == '"' || src[i] == '\\') && room-o >= n-i+18) {
						t.Fatalf("%q: stopped at byte %d, %q", src[:n], i, src[i])
					}
				}
				if got[0][0] <= n-16 && got[0] != got[1] {
					t.Fatalf("%q, room %d: copyEscape16 %v, copyEscape16Go %v", src[:n], room, got[0], got[1])
				}
			}
		}
	}
}

// TestAppendStringGrows: long strings escaped into buffers of every spare
// capacity, most of their bytes escaped or none, read as encoding/json
// writes them, after the bytes the buffer held.
func TestAppendStringGrows(t *testing.T) {
	for _, s := range []string{strings.Repeat(`"`, 40), strings.Repeat("\x01", 33), strings.Repeat("ab\"\\\n", 20),
		strings.Repeat("x", 17) + "\x7f", strings.Repeat("y", 64), "é" + strings.Repeat("\"z", 30), strings.Repeat("\"z", 30) + "\u2028"} {
		want := quoteRef(t, s)
		for spare := range 300 {
			dst := append(make([]byte, 0, 3+spare), "abc"...)
			if got := string(appendString(dst, s)); got != "abc"+want {
				t.Fatalf("%q with %d spare: got %s, want %s", s, spare, got, want)
			}
		}
	}
}

// TestFindingMemoTails: findings whose reason is kept with the end of
// their JSON text (memoEntry.tail) read as without the memo when the same
// reason comes with another severity, other details (another key, another
// value, a value of another type, more keys, none), the same details map
// changed in place, a details value whose text changes in place, and the
// same reason text at another address.
func TestFindingMemoTails(t *testing.T) {
	var m findingMemo
	reason := `unknown event type "decision.escalated" in namespace "decision" (seed 004 lists 26 event types)`
	other := strings.Clone(reason)
	val := []byte("decision")
	shared := map[string]any{"namespace": "decision"}
	extras := []map[string]any{shared, {"namespace": "decision"}, {"namespace": "decisioN"}, {"Namespace": "decision"},
		{"namespace": 3}, {"namespace": envelope.Code("decision")}, {"namespace": "decision", "x": "y"}, nil, {},
		{"namespace": unsafe.String(&val[0], len(val))}, {"namespace": "sys\"tem\u2028"}, {"": "decision"}}
	sevs := []envelope.Severity{envelope.SeverityWarning, envelope.SeverityError, "odd"}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 20000 {
		v := envelope.Violation{Code: envelope.SchemaInvalid, Rule: "CL010", Pointer: "/event_type", Line: r.IntN(3), Column: r.IntN(3),
			Reason: reason, Severity: sevs[r.IntN(len(sevs))], Extra: extras[r.IntN(len(extras))]}
		switch r.IntN(8) {
		case 0:
			v.Reason = other
		case 1:
			shared["namespace"] = []string{"decision", "system"}[r.IntN(2)]
		case 2:
			val[r.IntN(len(val))] = "dD"[r.IntN(2)]
		}
		if r.IntN(4) > 0 { // mostly the same finding again, as CL010's of one event type
			v.Severity, v.Extra, v.Reason = envelope.SeverityWarning, shared, reason
		}
		if got, want := string(appendViolation(nil, &v, &m)), string(appendViolation(nil, &v, nil)); got != want {
			t.Fatalf("finding %d %+v:\n got  %s\n want %s", i, v, got, want)
		}
	}
	var tails int
	for i := range m.slots {
		if e := m.slots[i].Load(); e != nil && e.tail != nil {
			tails++
		}
	}
	if tails == 0 {
		t.Errorf("no finding's end was kept")
	}
}
