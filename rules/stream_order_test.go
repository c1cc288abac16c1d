package rules

import (
	hexpkg "encoding/hex"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

func TestUUIDKey(t *testing.T) {
	a, ok1 := uuidKey([]byte("6F1C2A3E-0B4D-4C8E-9A71-2D5E8F903B11"))
	b, ok2 := uuidKey([]byte("6f1c2a3e-0b4d-4c8e-9a71-2d5e8f903b11"))
	if !ok1 || !ok2 || a != b || a[0] != 0x6f || a[15] != 0x11 {
		t.Fatalf("uuidKey: %x %v, %x %v", a, ok1, b, ok2)
	}
	for _, s := range []string{"", "6f1c2a3e0b4d4c8e9a712d5e8f903b11", "6f1c2a3e-0b4d-4c8e-9a71-2d5e8f903b1g", "{6f1c2a3e-0b4d-4c8e-9a71-2d5e8f903b11}", "6f1c2a3e-0b4d-4c8e-9a712-d5e8f903b11"} {
		if _, ok := uuidKey([]byte(s)); ok {
			t.Errorf("uuidKey(%q) accepted", s)
		}
	}
}

// TestUUIDKeyEveryByte: every byte at every position of a UUID is
// accepted exactly when it is a hex digit there (or the dash where the
// layout has one), and the key is the hex value of the digits.
func TestUUIDKeyEveryByte(t *testing.T) {
	base := []byte("0123abcd-ef45-6789-ABCD-EF0123456789")
	for i := range base {
		for c := 0; c < 256; c++ {
			s := append([]byte(nil), base...)
			s[i] = byte(c)
			k, ok := uuidKey(s)
			dash := i == 8 || i == 13 || i == 18 || i == 23
			hex := '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
			if want := dash && c == '-' || !dash && hex; ok != want {
				t.Fatalf("uuidKey(%q) ok=%v, want %v", s, ok, want)
			}
			if !ok {
				continue
			}
			digits := strings.ReplaceAll(string(s), "-", "")
			want, err := hexpkg.DecodeString(digits)
			if err != nil || string(k[:]) != string(want) {
				t.Fatalf("uuidKey(%q) = %x, want %x", s, k, want)
			}
		}
	}
}

// TestUUIDKeyRandom: UUIDs of random digits, with now and then a few
// random bytes in place of digits, decode as encoding/hex does (several
// bad bytes in one word must not hide each other).
func TestUUIDKeyRandom(t *testing.T) {
	const digits = "0123456789abcdefABCDEF"
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		s := []byte("00000000-0000-0000-0000-000000000000")
		for i := range s {
			if s[i] != '-' {
				s[i] = digits[rng.IntN(len(digits))]
			}
		}
		for bad := rng.IntN(4); bad > 0 && n%2 == 0; bad-- {
			if i := rng.IntN(len(s)); s[i] != '-' {
				s[i] = byte(rng.IntN(256))
			}
		}
		want, err := hexpkg.DecodeString(strings.ReplaceAll(string(s), "-", ""))
		k, ok := uuidKey(s)
		if ok != (err == nil) || ok && string(k[:]) != string(want) {
			t.Fatalf("uuidKey(%q) = %x %v, want %x %v", s, k, ok, want, err)
		}
	}
}

// TestUUIDFold: uuidFold accepts what uuidKey accepts, and two UUIDs
// have equal folded words (and hash) exactly when their 128-bit values
// are equal, whatever the case of their letters; the nil UUID folds to
// nilUUIDFold.
func TestUUIDFold(t *testing.T) {
	const digits = "0123456789abcdefABCDEF"
	rng := rand.New(rand.NewPCG(3, 4))
	random := func() []byte {
		s := []byte("00000000-0000-0000-0000-000000000000")
		for i := range s {
			if s[i] != '-' {
				s[i] = digits[rng.IntN(len(digits))]
			}
		}
		return s
	}
	for n := 0; n < 100000; n++ {
		a := random()
		if n%3 == 0 {
			a[rng.IntN(len(a))] = byte(rng.IntN(256))
		}
		// b: a with the case of some letters swapped, or another UUID.
		b := append([]byte(nil), a...)
		if n%2 == 0 {
			b = random()
		} else {
			for i, c := range b {
				if rng.IntN(2) == 0 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
					b[i] = c ^ 0x20
				}
			}
		}
		ka, okA := uuidKey(a)
		kb, okB := uuidKey(b)
		wa, okFA := uuidFold(a)
		wb, okFB := uuidFold(b)
		if okA != okFA || okB != okFB {
			t.Fatalf("uuidFold(%q) ok %v, (%q) ok %v; uuidKey: %v, %v", a, okFA, b, okFB, okA, okB)
		}
		if !okA || !okB {
			continue
		}
		if (ka == kb) != (wa == wb) || ka == kb && uuidFoldHash(&wa) != uuidFoldHash(&wb) {
			t.Fatalf("%q and %q: keys equal %v, folded words equal %v", a, b, ka == kb, wa == wb)
		}
	}
	for _, s := range []string{"00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001"} {
		w, ok := uuidFold([]byte(s))
		isNil := ok && w == [4]uint64{nilUUIDFold, nilUUIDFold, nilUUIDFold, nilUUIDFold}
		if want := s[35] == '0'; isNil != want {
			t.Errorf("uuidFold(%q) = %x %v: nil %v, want %v", s, w, ok, isNil, want)
		}
	}
}

func TestPairKey(t *testing.T) {
	// ("ab", "c") and ("a", "bc") must not share a key.
	if string(pairKey(nil, []byte("ab"), []byte("c"))) == string(pairKey(nil, []byte("a"), []byte("bc"))) {
		t.Fatal("pairKey collides")
	}
}

func TestSessionCounter(t *testing.T) {
	for id, want := range map[string]string{
		"2025-11-16_cls_001": "2025-11-16_cls 1", "2025-11-16_gg_bot_012": "2025-11-16_gg_bot 12",
		"2025-11-16_cls_": "", "2025-11-16-cls-001": "", "2025-11-16_cls_0x1": "", "short": "",
	} {
		key, n, ok := sessionCounter([]byte(id))
		got := ""
		if ok {
			got = fmt.Sprintf("%s %d", key, n)
		}
		if got != want {
			t.Errorf("sessionCounter(%q) = %q, want %q", id, got, want)
		}
	}
}

// tableBytes returns the memory of the exact tables of a CL100 or CL101
// state (mapped outside the Go heap).
func tableBytes(st FileState) int {
	switch s := st.(type) {
	case *collectorDupIDState:
		return s.uuids.Bytes() + s.offs.Bytes()
	case *spanFile:
		return s.run.spans.Bytes() + pagedIndexBytes(s.run.traces) + pagedIndexBytes(s.run.long) + 24*refChunk*len(s.run.pending)
	}
	return 0
}

// pagedIndexBytes returns the memory of the index of a paged set mapped
// outside the Go heap (its table and filter; its pages are in the heap).
func pagedIndexBytes(s *pagedStrings) int {
	n := s.idx.Bytes()
	if s.disk.bloom != nil {
		n += s.disk.bloom.Bytes()
	}
	return n
}

// heapAfter returns the live heap in bytes after a garbage collection.
func heapAfter() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkIDMemory reports the memory the stream rules keep per distinct
// id (B/id: live heap after GC plus the exact tables, which are mapped
// outside the Go heap, divided by the number of ids), for 1,000,000 ids:
// collector event_ids (CL100, 20-byte UUID entries; the same ids as string
// keys of a Go map are the baseline) and spans (CL101, 12-byte entries).
// flushEvery flushes st after every 500th record, as the engine flushes
// each chunk (rules.Flusher).
func flushEvery(st FileState, rep *StreamReporter, i int) {
	if f, ok := st.(Flusher); ok && i%500 == 499 {
		f.Flush(rep)
	}
}

func BenchmarkIDMemory(b *testing.B) {
	const n = 1000000
	vals := make([]Value, 3)
	b.Run("CL100-event_id", func(b *testing.B) {
		for b.Loop() {
			before := heapAfter()
			st := collectorDupID{}.NewFile("", nil)
			rep := NewStreamReporter("CL100")
			for i := 0; i < n; i++ {
				vals[0] = Value{Type: ValueString, Str: fmt.Appendf(nil, "6f1c2a3e-0b4d-4c8e-9a71-%012x", i)}
				st.Observe(&StreamRecord{Line: i + 1, Valid: true, Values: vals[:1]}, rep)
				flushEvery(st, rep, i)
			}
			b.ReportMetric(float64(int(heapAfter()-before)+tableBytes(st))/n, "B/id")
			runtime.KeepAlive(st)
		}
	})
	// Baseline: the same UUIDs as string keys (firstLines).
	b.Run("string-key-baseline", func(b *testing.B) {
		for b.Loop() {
			before := heapAfter()
			m := firstLines{}
			for i := 0; i < n; i++ {
				m.see(fmt.Appendf(nil, "6f1c2a3e-0b4d-4c8e-9a71-%012x", i), i+1)
			}
			b.ReportMetric(float64(heapAfter()-before)/n, "B/id")
			runtime.KeepAlive(m)
		}
	})
	b.Run("CL101-span", func(b *testing.B) {
		for b.Loop() {
			before := heapAfter()
			st := (&collectorParentSpan{}).NewFile("", nil)
			rep := NewStreamReporter("CL101")
			for i := 0; i < n; i++ {
				vals[0] = Value{Type: ValueString, Str: fmt.Appendf(nil, "trace-%06d", i/50)}
				vals[1] = Value{Type: ValueString, Str: fmt.Appendf(nil, "span-%03d", i%50)}
				vals[2] = Value{}
				st.Observe(&StreamRecord{Line: i + 1, Valid: true, Values: vals}, rep)
				flushEvery(st, rep, i)
			}
			b.ReportMetric(float64(int(heapAfter()-before)+tableBytes(st))/n, "B/id")
			runtime.KeepAlive(st)
		}
	})
}
