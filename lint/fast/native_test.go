//go:build devtools

package fast_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/schema"
)

// TestNativesCoverCUE: every pattern with a native matcher is a regular
// expression the generated validators use (so a change of a CUE pattern
// cannot leave a stale, unused matcher behind), and the date-time patterns
// are those of #DateTime and #UTCDateTime.
func TestNativesCoverCUE(t *testing.T) {
	gen, err := os.ReadFile("zz_validators.go")
	if err != nil {
		t.Fatal(err)
	}
	for src := range fast.Natives {
		if !bytes.Contains(gen, []byte("Src: "+strconv.Quote(src))) {
			t.Errorf("native matcher for a pattern the generated validators do not use:\n%s", src)
		}
	}
	m, err := schema.Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{fast.DateTimePattern, fast.UTCDateTimePattern} {
		if _, ok := m.PatternDesc[src]; !ok {
			t.Errorf("not the pattern of a @desc definition of cue/common.cue: %s", src)
		}
	}
}

// dateTimeInputs returns date-times around every edge of the pattern
// (month lengths, leap years and centuries, hour/minute/second limits,
// fractions, offsets), UUIDs, event types and versions near their edges,
// and random mutations of them all.
func dateTimeInputs(r *rand.Rand, n int) [][]byte {
	var out [][]byte
	years := []int{0, 4, 100, 400, 1900, 1999, 2000, 2023, 2024, 2100, 2400, 9999}
	for _, y := range years {
		for m := 0; m <= 13; m++ {
			for _, d := range []int{0, 1, 28, 29, 30, 31, 32} {
				out = append(out, fmt.Appendf(nil, "%04d-%02d-%02dT12:00:00Z", y, m, d))
				out = append(out, fmt.Appendf(nil, "%04d-%02d-%02dT12:00:00.250Z", y, m, d)) // timefmt.Millis24's shape
			}
		}
	}
	for _, tm := range []string{"00:00:00", "23:59:59", "23:59:60", "24:00:00", "12:60:00", "12:00:61", "9:00:00"} {
		for _, off := range []string{"Z", "z", "+00:00", "-00:00", "+23:59", "+24:00", "-12:60", "+0100", "", " Z", "Zz", "+01:00x"} {
			for _, frac := range []string{"", ".", ".1", ".123", ".123456789", ".1.2"} {
				for _, sep := range []string{"T", "t", " "} {
					out = append(out, []byte("2024-02-29"+sep+tm+frac+off))
				}
			}
		}
	}
	for _, seed := range []string{
		"550e8400-e29b-41d4-a716-446655440000", "550E8400-E29B-41D4-A716-44665544000G", "550e8400e29b-41d4-a716-4466554400000",
		"lifecycle.started", "hook.pre_tool_use", "system.", "metrics.cpu", "Lifecycle.started", "decision.made_x", "activity.Tool",
		"1.0.0", "10.20.30", "1.0", "1..0", ".1.0", "1.0.0.", "1.0.0.0", "01.2.3",
		"1", "1.", "1.1.0", "2.0.0", "12", "abc", "",
		"T-12", "T-", "T-1x", "t-12", "T12", "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4", "------------------------------------",
		"3f56dc4d35cf4f97925c0b04a6fe8bf4abcd", "T-3f56dc4d-35cf-4f97-925c-0b04a6fe8bf",
		"grind-1771059600-7", "loop-1-2", "issue-12-345", "issue--1", "grind-1-", "loop1-2", "lope-1-2",
		"bd-a1b2", "bd-a1b2.1.22", "bd-a1b2.", "bd-.1", "Bd-x", "b2-X.1.x", "a-b-c", "work-1",
		"msg-abc123", "msg-", "msg-a-b", "evt-AbC123xyz", "evt-a_b", "proc-ab-12", "proc-", "proc-a.b",
		"work_order.created", "a.b", "a.", ".a", "a..b", "a.b_1.c2", "a.1b", "A.b", "ab",
		"abc", "a1", "1a", "a_b-c", "-", "_",
		"/tmp/x", "/", "C:\\x", "c:/x", "C:x", "1:/", "12/34", "1/", "/1", "1//2",
		"2026-02-14_cls_001", "2024-02-29_a_b_123", "2023-02-29_cls_001", "2026-02-14_cls_01", "2026-02-14__001", "2026-13-01_x_001", "0000-02-29_x-y_999",
	} {
		out = append(out, []byte(seed))
	}
	const alphabet = "0123456789-:TtZz+. x\xffaAfFgG_le/\\_"
	base := len(out)
	for len(out) < base+n {
		b := append([]byte(nil), out[r.IntN(base)]...)
		for k := 1 + r.IntN(3); k > 0 && len(b) > 0; k-- {
			i := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[i] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
			}
		}
		out = append(out, b)
	}
	return out
}

// TestNativesEquivalent: every native matcher accepts exactly what its
// regular expression accepts.
func TestNativesEquivalent(t *testing.T) {
	inputs := dateTimeInputs(rand.New(rand.NewPCG(1, 2)), 200000)
	for src, native := range fast.Natives {
		re := regexp.MustCompile(src)
		matched := 0
		for _, b := range inputs {
			want := re.Match(b)
			if native(b) != want {
				t.Fatalf("%q: native %v, regexp %v (pattern %s)", b, !want, want, src)
			}
			if want {
				matched++
			}
		}
		if matched == 0 || matched == len(inputs) {
			t.Fatalf("inputs do not exercise %s: %d of %d match", src, matched, len(inputs))
		}
	}
}

// FuzzNatives keeps comparing the native matchers with regexp:
// go test ./lint/fast -run '^$' -fuzz FuzzNatives
func FuzzNatives(f *testing.F) {
	for _, b := range dateTimeInputs(rand.New(rand.NewPCG(3, 4)), 50) {
		f.Add(b)
	}
	res := map[string]*regexp.Regexp{}
	for src := range fast.Natives {
		res[src] = regexp.MustCompile(src)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for src, native := range fast.Natives {
			if got, want := native(b), res[src].Match(b); got != want {
				t.Fatalf("%q: native %v, regexp %v (pattern %s)", b, got, want, src)
			}
		}
	})
}

func BenchmarkDateTime(b *testing.B) {
	in := []byte("2025-12-13T20:45:00.123Z")
	re := regexp.MustCompile(fast.DateTimePattern)
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			re.Match(in)
		}
	})
	b.Run("native", func(b *testing.B) {
		native := fast.Natives[fast.DateTimePattern]
		for b.Loop() {
			native(in)
		}
	})
}
