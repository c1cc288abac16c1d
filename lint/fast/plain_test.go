package fast

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestPlainRun16 holds plainRun16 (assembly on amd64) to plainRunGo: every
// length up to 80, every byte that stops a run ('"', '\\', controls, 0x7f
// and bytes >= 0x80, the bytes beside them) at every position, and random
// texts; each buffer is cut from a larger one so that bytes past n differ.
func TestPlainRun16(t *testing.T) {
	stops := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xc3, 0xff, 'a', '!', '#', '[', ']', 0x5b, 0x5d}
	buf := make([]byte, 128)
	for n := 0; n <= 80; n++ {
		for at := 0; at < n; at++ {
			for _, c := range stops {
				for k := range buf {
					buf[k] = 'x'
				}
				buf[at] = c
				buf[n] = '"' // past the end: must not be read as a stop
				b := buf[:n]
				want := plainRunGo(b)
				var got int
				if n > 0 {
					got = plainRun16(&b[0], n)
				}
				if got != want {
					t.Fatalf("plainRun16(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(16, 16))
	alphabet := []byte("abc XYZ019_-\"\\\x01\x1f\x7f\x80\xe2\xff")
	for r := 0; r < 100000; r++ {
		n := 1 + rng.IntN(100)
		b := make([]byte, n)
		for k := range b {
			if rng.IntN(16) == 0 {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[k] = 'a' + byte(rng.IntN(26))
			}
		}
		if got, want := plainRun16(&b[0], n), plainRunGo(b); got != want {
			t.Fatalf("plainRun16(%q) = %d, want %d", b, got, want)
		}
	}
}

// TestStrEndLong holds strEnd on strings of every length to 80 (the
// sixteen-byte path past the first 32) to the byte-by-byte strRest,
// with a stop byte at every position.
func TestStrEndLong(t *testing.T) {
	for n := 0; n <= 80; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{'"', '\\', 0x01, 0xc3, 0xff, 'n'} {
				b := make([]byte, 0, n+4)
				b = append(b, '"')
				for k := 0; k < n; k++ {
					if k == at {
						b = append(b, c)
					} else {
						b = append(b, 'q')
					}
				}
				b = append(b, '"', ',', ' ')
				gj, ge := strEnd(b, 0)
				wj, we := strRest(b, 0, 1)
				if gj != wj || ge != we {
					t.Fatalf("strEnd(%q) = %d, %v, want %d, %v", b, gj, ge, wj, we)
				}
			}
		}
	}
}

// TestHexDash36Words holds matchHexDash36 (timefmt.IsRunID), which reads
// eight bytes at a time, to the byte class of the pattern: every byte at every position of a
// run id, and lengths around 36.
func TestHexDash36Words(t *testing.T) {
	ref := func(b []byte) bool {
		if len(b) != 36 {
			return false
		}
		for _, c := range b {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
				return false
			}
		}
		return true
	}
	const id = "3f56dc4d-35cf-4F97-925c-0b04a6fe8bf4"
	for at := 0; at < 36; at++ {
		for c := 0; c < 256; c++ {
			b := []byte(id)
			b[at] = byte(c)
			if got, want := matchHexDash36(b), ref(b); got != want {
				t.Fatalf("matchHexDash36(%q) = %v, want %v", b, got, want)
			}
		}
	}
	for _, s := range []string{"", id[:35], id + "0", "------------------------------------"} {
		if got, want := matchHexDash36([]byte(s)), ref([]byte(s)); got != want {
			t.Errorf("matchHexDash36(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestMemoElemState: MemoElem answers from its memo only for the same
// text, index, acceptor, depth, Strict and recording, and then does what
// the acceptor did to Wide and Elems again (shifted to where the element
// is now); after two misses in a row it remembers every fourth element.
func TestMemoElemState(t *testing.T) {
	calls := 0
	fn := func(a *Acc, b []byte, i int) int {
		calls++
		if a.Strict {
			return -1
		}
		j, _ := a.Num(b, i)
		a.ElemMember(0, i, j)
		return j
	}
	other := func(a *Acc, b []byte, i int) int { calls++; return i + 1 }
	a := &Acc{WantElems: 1}
	step := func(name string, b string, i, n int, f AcceptFunc, wantK int, wantWide bool, wantCalls int) {
		t.Helper()
		calls, a.Wide, a.Elems = 0, false, a.Elems[:0]
		k := a.MemoElem([]byte(b), i, n, f)
		if k != wantK || a.Wide != wantWide || calls != wantCalls {
			t.Fatalf("%s: MemoElem = %d, wide %v, %d calls; want %d, %v, %d", name, k, a.Wide, calls, wantK, wantWide, wantCalls)
		}
		if a.elemTop >= 0 && k >= 0 && f != nil && calls <= 1 && len(a.Elems) > 0 {
			if e := a.Elems[len(a.Elems)-1]; int(e.Start) != i || int(e.End) != k {
				t.Fatalf("%s: recorded [%d,%d), want [%d,%d)", name, e.Start, e.End, i, k)
			}
		}
	}
	a.BeginElems(0)
	step("first", "[1e5,2]", 1, 0, fn, 4, true, 1)
	step("again", "[1e5,2]", 1, 0, fn, 4, true, 0)
	step("moved", "[[ 1e5,2]", 3, 0, fn, 6, true, 0)
	step("other index", "[1e5,2]", 1, 1, fn, 4, true, 1)
	step("other acceptor", "[1e5,2]", 1, 0, other, 2, false, 1)
	step("text", "[1e6,2]", 1, 0, fn, 4, true, 1)               // second miss in a row: not remembered
	step("text again", "[1e6,2]", 1, 0, fn, 4, true, 1)         // third
	step("text a fourth time", "[1e6,2]", 1, 0, fn, 4, true, 1) // fourth: remembered
	step("text remembered", "[1e6,2]", 1, 0, fn, 4, true, 0)
	a.Strict = true
	step("strict", "[1e6,2]", 1, 0, fn, -1, false, 1)
	a.Strict = false
	step("after a decline", "[1e6,2]", 1, 0, fn, 4, true, 1)
	a.depth = 3
	step("depth", "[1e6,2]", 1, 0, fn, 4, true, 1)
	a.depth = 0
	step("depth back", "[1e6,2]", 1, 0, fn, 4, true, 0)
	a.EndElems()
	step("not recording", "[1e6,2]", 1, 0, fn, 4, true, 1)
	if len(a.Elems) != 0 {
		t.Fatalf("not recording: %d Elems recorded", len(a.Elems))
	}
	step("not recording again", "[1e6,2]", 1, 0, fn, 4, true, 0)
	step("beyond the memo", "[1e6,2]", 1, elemMemos, fn, 4, true, 1)
}

// TestStops8 holds stops8's lowest set bit to the first byte of eight
// that plain does not hold: every byte value at every position after plain
// bytes, with every byte value after it (borrows from the stop go up only),
// and random words.
func TestStops8(t *testing.T) {
	first := func(w []byte) int {
		for k, c := range w {
			if !plain[c] {
				return k
			}
		}
		return 8
	}
	got := func(w []byte) int {
		s := stops8(w)
		if s == 0 {
			return 8
		}
		return bits.TrailingZeros64(s) >> 3
	}
	w := make([]byte, 8)
	for at := 0; at < 8; at++ {
		for c := 0; c < 256; c++ {
			for d := 0; d < 256; d += 1 + 6*(at&1) {
				for k := range w {
					w[k] = 'a' + byte(k)
				}
				w[at] = byte(c)
				if at < 7 {
					w[at+1] = byte(d)
				}
				if g, f := got(w), first(w); g != f {
					t.Fatalf("stops8(%q): first stop %d, want %d", w, g, f)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for r := 0; r < 1000000; r++ {
		for k := range w {
			switch rng.IntN(4) {
			case 0:
				w[k] = byte(rng.IntN(256))
			default:
				w[k] = byte(0x20 + rng.IntN(0x60))
			}
		}
		if g, f := got(w), first(w); g != f {
			t.Fatalf("stops8(%q): first stop %d, want %d", w, g, f)
		}
	}
}

// TestQuoteStr: QuoteStr ends at the first '"' after the opening one and
// min bytes, escaped or not, at every length (the word loop and the byte
// tail), and returns -1 without one.
func TestQuoteStr(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for tail := 0; tail <= 9; tail++ {
			b := []byte("x\"")
			for k := 0; k < n; k++ {
				b = append(b, 'a'+byte(k%26))
			}
			body := string(b[2:])
			b = append(b, '"')
			for k := 0; k < tail; k++ {
				b = append(b, '"')
			}
			j, s := QuoteStr(b, 1, 0)
			if j != n+3 || string(s) != body {
				t.Fatalf("QuoteStr(%q, 1) = %d, %q; want %d, %q", b, j, s, n+3, body)
			}
			if j, _ := QuoteStr(b[:n+2], 1, 0); j != -1 {
				t.Fatalf("QuoteStr(%q, 1) = %d, want -1", b[:n+2], j)
			}
		}
	}
	// From min bytes on: a quote before them is part of the bytes.
	for _, c := range []struct {
		in   string
		min  int
		j    int
		want string
	}{
		{`"ab"cdefghijklmnopq"`, 3, 20, `ab"cdefghijklmnopq`},
		{`"ab"cdefghijklmnopq"`, 2, 4, `ab`},
		{`"abcdefghijklmnopqrstuvwxyz"`, 26, 28, `abcdefghijklmnopqrstuvwxyz`},
		{`"abcdefghijklmnopqrstuvwxyz"`, 27, -1, ``},
		{`"abcdefghijklmnopqrstuvwxyz"`, 40, -1, ``},
	} {
		if j, s := QuoteStr([]byte(c.in), 0, c.min); j != c.j || string(s) != c.want {
			t.Errorf("QuoteStr(%q, 0, %d) = %d, %q; want %d, %q", c.in, c.min, j, s, c.j, c.want)
		}
	}
	if j, s := QuoteStr([]byte(`"a\"b"`), 0, 0); j != 4 || string(s) != `a\` {
		t.Fatalf(`QuoteStr("a\"b") = %d, %q; want 4, "a\\"`, j, s)
	}
	if j, s := QuoteStr([]byte(`"\u00e9\u0022xxxxxxxxxxx"`), 0, 0); j != 25 || string(s) != `\u00e9\u0022xxxxxxxxxxx` {
		t.Fatalf("QuoteStr = %d, %q", j, s)
	}
}

// TestAllIn8 holds allIn8 to allIn: every length to 20, with a byte out of
// the set at every position, and none.
func TestAllIn8(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{0, '-', '.', '/', ':', '@', '[', '`', '{', 0x7f, 0x80, 0xff} {
				b := make([]byte, n)
				for k := range b {
					b[k] = "aZ09"[k%4]
				}
				if at >= 0 {
					b[at] = c
				}
				if got, want := allIn8(b, &alnum), allIn(b, &alnum); got != want {
					t.Fatalf("allIn8(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
