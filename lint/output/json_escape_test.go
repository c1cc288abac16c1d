package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unsafe"
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

// TestQuoteMemo: strings quoted through the memo read as appendString
// writes them: a string seen again (kept, then copied), many strings in
// turn, and a buffer whose text changes in place (same address and
// length, other bytes) after it was kept.
func TestQuoteMemo(t *testing.T) {
	var m quoteMemo
	check := func(s string) {
		t.Helper()
		if got, want := string(m.appendString([]byte("x"), s)), "x"+string(appendString(nil, s)); got != want {
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
}

// TestQuoteMemoConcurrent: goroutines sharing one JSON (the workers and
// the emitter of `agentlint lint`) render every reason right (go test
// -race checks the memo's sharing).
func TestQuoteMemoConcurrent(t *testing.T) {
	var m quoteMemo
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
				s := reasons[(i*7+g)%len(reasons)]
				if got, want := string(m.appendString(nil, s)), string(appendString(nil, s)); got != want {
					t.Errorf("%q: got %s, want %s", s, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
