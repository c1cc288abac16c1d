package timefmt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseRFC3339(t *testing.T) {
	est := time.FixedZone("", -5*3600)
	cases := []struct {
		in   string
		ok   bool
		want time.Time // checked with Equal when ok
		off  int       // seconds east, checked when ok
	}{
		{"2026-01-06T12:00:00.000Z", true, time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC), 0},
		{"2026-01-06T12:00:00Z", true, time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC), 0},
		{"2026-01-06t12:00:00z", true, time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC), 0},
		{"2025-11-16T02:12:34+07:00", true, time.Date(2025, 11, 15, 19, 12, 34, 0, time.UTC), 7 * 3600},
		{"2025-11-16T02:12:34-05:00", true, time.Date(2025, 11, 16, 2, 12, 34, 0, est), -5 * 3600},
		{"2025-11-16T02:12:34+05:30", true, time.Date(2025, 11, 15, 20, 42, 34, 0, time.UTC), 5*3600 + 30*60},
		{"2025-11-16T02:12:34+00:00", true, time.Date(2025, 11, 16, 2, 12, 34, 0, time.UTC), 0},
		{"2025-11-16T02:12:34-00:00", true, time.Date(2025, 11, 16, 2, 12, 34, 0, time.UTC), 0},
		{"2025-11-16T02:12:34+23:59", true, time.Date(2025, 11, 15, 2, 13, 34, 0, time.UTC), 23*3600 + 59*60},
		{"2025-11-16T02:12:34.5Z", true, time.Date(2025, 11, 16, 2, 12, 34, 500_000_000, time.UTC), 0},
		{"2025-11-16T02:12:34.123456789Z", true, time.Date(2025, 11, 16, 2, 12, 34, 123456789, time.UTC), 0},
		{"2025-11-16T02:12:34.1234567899999Z", true, time.Date(2025, 11, 16, 2, 12, 34, 123456789, time.UTC), 0},
		{"2024-02-29T00:00:00Z", true, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 0},
		{"2000-02-29T00:00:00Z", true, time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC), 0},
		{"2024-12-31T23:59:59Z", true, time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC), 0},
		{"2024-04-30T00:00:00Z", true, time.Date(2024, 4, 30, 0, 0, 0, 0, time.UTC), 0},
		{"0000-01-01T00:00:00Z", true, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{"9999-12-31T23:59:59Z", true, time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), 0},
		// Leap seconds: 23:59:60 UTC, returned as the next instant.
		{"2016-12-31T23:59:60Z", true, time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{"2016-12-31T23:59:60.5Z", true, time.Date(2017, 1, 1, 0, 0, 0, 500_000_000, time.UTC), 0},
		{"2016-12-31T18:59:60-05:00", true, time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), -5 * 3600},
		{"2017-01-01T08:59:60+09:00", true, time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), 9 * 3600},
		{"2016-12-31T23:58:60Z", false, time.Time{}, 0},
		{"2016-12-31T12:59:60Z", false, time.Time{}, 0},
		{"2016-12-31T23:59:60+01:00", false, time.Time{}, 0},

		{"2023-02-29T00:00:00Z", false, time.Time{}, 0},
		{"1900-02-29T00:00:00Z", false, time.Time{}, 0},
		{"2024-04-31T00:00:00Z", false, time.Time{}, 0},
		{"2024-00-10T00:00:00Z", false, time.Time{}, 0},
		{"2024-13-10T00:00:00Z", false, time.Time{}, 0},
		{"2024-01-00T00:00:00Z", false, time.Time{}, 0},
		{"2024-01-32T00:00:00Z", false, time.Time{}, 0},
		{"2024-01-01T24:00:00Z", false, time.Time{}, 0},
		{"2024-01-01T00:60:00Z", false, time.Time{}, 0},
		{"2024-01-01T00:00:61Z", false, time.Time{}, 0},
		{"2025-11-16 02:12:34Z", false, time.Time{}, 0},
		{"2025-11-16_02:12:34Z", false, time.Time{}, 0},
		{"2025-11-16T02:12:34+0700", false, time.Time{}, 0},
		{"2025-11-16T02:12:34+07", false, time.Time{}, 0},
		{"2025-11-16T02:12:34+7:00", false, time.Time{}, 0},
		{"2025-11-16T02:12:34+24:00", false, time.Time{}, 0},
		{"2025-11-16T02:12:34+07:60", false, time.Time{}, 0},
		{"2025-11-16T02:12:34", false, time.Time{}, 0},
		{"2025-11-16T02:12Z", false, time.Time{}, 0},
		{"2025-11-16T02:12:34ZZ", false, time.Time{}, 0},
		{"2025-11-16T02:12:34Z ", false, time.Time{}, 0},
		{" 2025-11-16T02:12:34Z", false, time.Time{}, 0},
		{"2025-11-16T02:12:34.Z", false, time.Time{}, 0},
		{"2025-11-16T02:12:34,5Z", false, time.Time{}, 0},
		{"2025-11-16T02:12:34.5", false, time.Time{}, 0},
		{"2025-11-16T02:12:34UTC", false, time.Time{}, 0},
		{"2025-11-16T02:12:34GMT+0", false, time.Time{}, 0},
		{"2025-11-16", false, time.Time{}, 0},
		{"25-11-16T02:12:34Z", false, time.Time{}, 0},
		{"+2025-11-16T02:12:34Z", false, time.Time{}, 0},
		{"2025/11/16T02:12:34Z", false, time.Time{}, 0},
		{"2025-1a-16T02:12:34Z", false, time.Time{}, 0},
		{"２025-11-16T02:12:34Z", false, time.Time{}, 0},
		{"", false, time.Time{}, 0},
	}
	for _, tc := range cases {
		got, ok := ParseRFC3339(tc.in)
		if ok != tc.ok {
			t.Errorf("ParseRFC3339(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if IsRFC3339(tc.in) != tc.ok {
			t.Errorf("IsRFC3339(%q) = %v, want %v", tc.in, !tc.ok, tc.ok)
		}
		if !ok {
			if !got.IsZero() {
				t.Errorf("ParseRFC3339(%q) = %v on failure, want zero Time", tc.in, got)
			}
			if off, ok := Offset(tc.in); ok || off != 0 {
				t.Errorf("Offset(%q) = %d, %v; want 0, false", tc.in, off, ok)
			}
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("ParseRFC3339(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if _, off := got.Zone(); off != tc.off {
			t.Errorf("ParseRFC3339(%q) zone offset = %d, want %d", tc.in, off, tc.off)
		}
		if off, ok := Offset(tc.in); !ok || off != tc.off {
			t.Errorf("Offset(%q) = %d, %v; want %d, true", tc.in, off, ok, tc.off)
		}
	}
}

// TestParseMatchesTimePackage checks the ordinary cases against time.Parse.
func TestParseMatchesTimePackage(t *testing.T) {
	for _, in := range []string{
		"2026-01-06T12:00:00.000Z", "2025-11-16T02:12:34+07:00", "1999-12-31T23:59:59.999999999-11:30",
		"2024-02-29T12:34:56.7+01:00", "1970-01-01T00:00:00Z",
	} {
		want, err := time.Parse(time.RFC3339Nano, in)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ParseRFC3339(in)
		if !ok || !got.Equal(want) || got.Format(time.RFC3339Nano) != want.Format(time.RFC3339Nano) {
			t.Errorf("ParseRFC3339(%q) = %v, %v; time.Parse = %v", in, got, ok, want)
		}
	}
}

func TestLeapYears(t *testing.T) {
	for y, leap := range map[int]bool{2024: true, 2023: false, 2000: true, 1900: false, 2100: false, 2400: true, 0: true} {
		in := time.Date(y, 2, 1, 0, 0, 0, 0, time.UTC).Format("2006") + "-02-29T00:00:00Z"
		if _, ok := ParseRFC3339(in); ok != leap {
			t.Errorf("ParseRFC3339(%q) ok = %v, want %v", in, ok, leap)
		}
	}
}

func TestIsUTC(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"2026-01-06T12:00:00.000Z", true},
		{"2026-01-06T12:00:00Z", true},
		{"2026-01-06T12:00:00z", true},
		{"2026-01-06T12:00:00+00:00", true},
		{"2016-12-31T23:59:60Z", true},
		{"2026-01-06T12:00:00-00:00", false}, // RFC 3339 4.3: unknown local offset
		{"2026-01-06T12:00:00+01:00", false},
		{"2026-01-06T12:00:00-05:00", false},
		{"2026-01-06T12:00:00+00:01", false},
		{"2026-01-06T12:00:00", false},
		{"2026-01-06 12:00:00Z", false},
		{"2026-01-06T12:00:00+0000", false},
		{"2023-02-29T12:00:00Z", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := IsUTC(tc.in); got != tc.want {
			t.Errorf("IsUTC(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestHasFraction(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"2026-01-06T12:00:00.000Z", true},
		{"2026-01-06T12:00:00.1+02:00", true},
		{"2026-01-06T12:00:00.1234567890123Z", true},
		{"2026-01-06T12:00:00Z", false},
		{"2026-01-06T12:00:00+02:00", false},
		{"2026-01-06T12:00:00.Z", false},    // invalid
		{"2026-01-06 12:00:00.000Z", false}, // invalid
		{"2026-01-06T12:00:00.000", false},  // invalid: no offset
		{"2023-02-29T12:00:00.000Z", false}, // invalid date
		{"", false},
	}
	for _, tc := range cases {
		if got := HasFraction(tc.in); got != tc.want {
			t.Errorf("HasFraction(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestOffset(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"2025-11-16T02:12:34Z", 0, true},
		{"2025-11-16T02:12:34+00:00", 0, true},
		{"2025-11-16T02:12:34-00:00", 0, true},
		{"2025-11-16T02:12:34+07:00", 25200, true},
		{"2025-11-16T02:12:34-05:00", -18000, true},
		{"2025-11-16T02:12:34+05:45", 20700, true},
		{"2025-11-16T02:12:34-23:59", -86340, true},
		{"2025-11-16T02:12:34+0700", 0, false},
		{"2025-11-16T02:12:34", 0, false},
	}
	for _, tc := range cases {
		got, ok := Offset(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Offset(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestZoneCache(t *testing.T) {
	a, _ := ParseRFC3339("2025-11-16T02:12:34+07:00")
	b, _ := ParseRFC3339("2020-01-01T00:00:00+07:00")
	if a.Location() != b.Location() {
		t.Error("one offset should map to one cached *time.Location")
	}
	for _, in := range []string{"2025-11-16T02:12:34-23:59", "2025-11-16T02:12:34+23:59"} {
		if _, ok := ParseRFC3339(in); !ok {
			t.Errorf("ParseRFC3339(%q) failed at the ends of the zone cache", in)
		}
	}
	z, _ := ParseRFC3339("2025-11-16T02:12:34Z")
	if z.Location() != time.UTC {
		t.Errorf("Z should give time.UTC, got %v", z.Location())
	}
}

const canonical = "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"

func TestIDs(t *testing.T) {
	cases := []struct {
		in                string
		uuid, runID, task bool
	}{
		{canonical, true, true, true},
		{"3F56DC4D-35CF-4F97-925C-0B04A6FE8BF4", true, true, true},
		{"3F56dc4d-35CF-4f97-925c-0B04A6FE8BF4", true, true, true},
		{"00000000-0000-0000-0000-000000000000", true, true, true},
		// matches the run_id regex but not the 8-4-4-4-12 layout
		{"3f56dc4d35cf-4f97-925c-0b04a6fe8bf4-", false, true, true},
		{"------------------------------------", false, true, true},
		{"3f56dc4d35cf4f97925c0b04a6fe8bf4abcd", false, true, true},
		// wrong length
		{canonical[:35], false, false, false},
		{canonical + "0", false, false, false},
		{"3f56dc4d35cf4f97925c0b04a6fe8bf4", false, false, false},
		{"{" + canonical[1:35] + "}", false, false, false},
		// not hex
		{"3f56dc4g-35cf-4f97-925c-0b04a6fe8bf4", false, false, false},
		{"3f56dc4d_35cf_4f97_925c_0b04a6fe8bf4", false, false, false},
		{" " + canonical[1:], false, false, false},
		{canonical[:35] + "\n", false, false, false},
		// task ids
		{"T-12", false, false, true},
		{"T-0", false, false, true},
		{"T-007", false, false, true},
		{"T-12345678901234567890123456789012345678", false, false, true},
		{"T-", false, false, false},
		{"t-12", false, false, false},
		{"T12", false, false, false},
		{"T-12a", false, false, false},
		{"T-12\n", false, false, false},
		{"T--12", false, false, false},
		{"T-１2", false, false, false},
		{"", false, false, false},
	}
	for _, tc := range cases {
		if got := IsUUID(tc.in); got != tc.uuid {
			t.Errorf("IsUUID(%q) = %v, want %v", tc.in, got, tc.uuid)
		}
		if got := IsCanonicalUUIDLayout(tc.in); got != tc.uuid {
			t.Errorf("IsCanonicalUUIDLayout(%q) = %v, want %v", tc.in, got, tc.uuid)
		}
		if got := IsRunID(tc.in); got != tc.runID {
			t.Errorf("IsRunID(%q) = %v, want %v", tc.in, got, tc.runID)
		}
		if got := IsTaskID(tc.in); got != tc.task {
			t.Errorf("IsTaskID(%q) = %v, want %v", tc.in, got, tc.task)
		}
	}
}

func TestNoAllocations(t *testing.T) {
	ParseRFC3339("2025-11-16T02:12:34+07:00") // warm the zone cache
	checks := map[string]func(){
		"ParseRFC3339 Z":      func() { ParseRFC3339("2026-01-06T12:00:00.000Z") },
		"ParseRFC3339 offset": func() { ParseRFC3339("2025-11-16T02:12:34+07:00") },
		"ParseRFC3339 bad":    func() { ParseRFC3339("2025-11-16 02:12:34Z") },
		"IsUTC":               func() { IsUTC("2026-01-06T12:00:00.000Z") },
		"HasFraction":         func() { HasFraction("2026-01-06T12:00:00.000Z") },
		"Offset":              func() { Offset("2025-11-16T02:12:34+07:00") },
		"IsUUID":              func() { _ = IsUUID(canonical) },
		"IsTaskID":            func() { _ = IsTaskID("T-12") },
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}

var (
	sinkT time.Time
	sinkB bool
)

func BenchmarkParseRFC3339(b *testing.B) {
	for _, in := range []string{"2026-01-06T12:00:00.000Z", "2025-11-16T02:12:34+07:00", "2025-11-16 02:12:34Z"} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkT, sinkB = ParseRFC3339(in)
			}
		})
	}
}

func BenchmarkTimeParse(b *testing.B) {
	// Baseline: the standard library (which rejects the leap second :60).
	b.ReportAllocs()
	for b.Loop() {
		sinkT, _ = time.Parse(time.RFC3339Nano, "2025-11-16T02:12:34+07:00")
	}
}

func BenchmarkIsUTC(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkB = IsUTC("2026-01-06T12:00:00.000Z")
	}
}

func BenchmarkIDs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkB = IsUUID(canonical) && IsRunID(canonical) && IsTaskID("T-12")
	}
}

// TestUnixNanoMatchesParse: UnixNano is ParseRFC3339(s).UnixNano() for
// every date-time of a sweep over years 0000-9999 (leap days, the last day
// of every month), hours, offsets, fractions and leap seconds, and fails
// where ParseRFC3339 fails.
func TestUnixNanoMatchesParse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 0
	for i := 0; i < 200000; i++ {
		y := r.IntN(10000)
		if i%4 == 0 {
			y = 1600 + r.IntN(800)
		}
		mo := 1 + r.IntN(12)
		d := 1 + r.IntN(daysIn(mo, y)+1) // one day too many now and then
		h, mi, sec := r.IntN(24), r.IntN(60), r.IntN(61)
		if i%50 == 0 {
			h, mi, sec = 23, 59, 60
		}
		frac := []string{"", ".5", ".123456789", ".0000000001", ".999"}[r.IntN(5)]
		off := []string{"Z", "z", "+00:00", "-00:00", "+05:30", "-11:59", "+23:59"}[r.IntN(7)]
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d%s%s", y, mo, d, h, mi, sec, frac, off)
		tm, ok1 := ParseRFC3339(s)
		ns, ok2 := UnixNano(s)
		if ok1 != ok2 || ok1 && tm.UnixNano() != ns {
			t.Fatalf("%s: UnixNano %d %v, ParseRFC3339 %d %v", s, ns, ok2, tm.UnixNano(), ok1)
		}
		if ok1 {
			n++
		}
	}
	if n < 100000 {
		t.Fatalf("only %d valid date-times in the sweep", n)
	}
}

// TestDecodeHex8: eight hex digits decode to the bytes encoding/hex gives;
// any byte value at any position that is not a digit of the allowed case
// is refused, and every digit of both cases is decoded at every position.
func TestDecodeHex8(t *testing.T) {
	base := []byte("0123abcd")
	for _, upper := range []bool{false, true} {
		for pos := range 8 {
			for c := range 256 {
				b := append([]byte(nil), base...)
				b[pos] = byte(c)
				digit := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || upper && c >= 'A' && c <= 'F'
				v, ok := DecodeHex8(binary.LittleEndian.Uint64(b), upper)
				if ok != digit {
					t.Fatalf("upper %v, %q: ok %v, want %v", upper, b, ok, digit)
				}
				if !ok {
					continue
				}
				want, err := hex.DecodeString(string(b))
				if err != nil {
					t.Fatal(err)
				}
				if got := binary.LittleEndian.AppendUint32(nil, v); !bytes.Equal(got, want) {
					t.Fatalf("%q: % x, want % x", b, got, want)
				}
			}
		}
	}
}

// TestIsHex8 tries every byte at every position: IsHex8 accepts exactly
// the hex digits of either case, as DecodeHex8 with upper true does.
func TestIsHex8(t *testing.T) {
	base := []byte("0123abCD")
	for pos := range 8 {
		for c := range 256 {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			x := binary.LittleEndian.Uint64(b)
			digit := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
			if got := IsHex8(x); got != digit {
				t.Fatalf("IsHex8(%q) = %v, want %v", b, got, digit)
			}
		}
	}
}
