package fast

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/timefmt"
)

// TestMatchDateTimeRanges: a date-time of the common shape
// (timefmt.Millis24) is accepted exactly when its fields are in range, as
// the numbers Millis24 reads them: every month 00-19, every day 00-39,
// hours, minutes and seconds at and past their bounds, in leap and common
// years (2024, 2023, 2000, 1900), and non-digits in each field.
func TestMatchDateTimeRanges(t *testing.T) {
	inRange := func(f timefmt.Fields) bool {
		return f.Hour <= 23 && f.Minute <= 59 && f.Second <= 60 && f.Month >= 1 && f.Month <= 12 && f.Day >= 1 && f.Day <= daysIn(f.Month, f.Year)
	}
	n := 0
	for _, year := range []string{"2024", "2023", "2000", "1900"} {
		for month := 0; month <= 19; month++ {
			for day := 0; day <= 39; day++ {
				for _, hms := range []string{"00:00:00", "23:59:60", "24:00:00", "19:60:00", "09:09:61", "12:30:45", "2a:00:00", "00:0/:00", "00:00:6:"} {
					for _, z := range []string{"Z", "z"} {
						s := fmt.Sprintf("%s-%02d-%02dT%s.123%s", year, month, day, hms, z)
						f, ok := timefmt.Millis24([]byte(s))
						want := ok && inRange(f)
						if !ok {
							want = matchAnyDateTime([]byte(s), false)
						}
						if got := matchDateTime([]byte(s), false); got != want {
							t.Fatalf("matchDateTime(%q) = %v, want %v", s, got, want)
						}
						if want {
							n++
						}
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("%d date-times accepted", n)
	}
}

// TestAlnumRun: alnumRun is allIn of alnum, for every byte at every
// position of runs of 1 to 20 bytes (the eight-byte words, the overlapping
// last word and the short tail), and for runs with two bytes changed.
func TestAlnumRun(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("aZ09", 5)[:n])
				b[at] = byte(c)
				if got, want := alnumRun(b), allIn(b, &alnum); got != want {
					t.Fatalf("alnumRun(%q) = %v, want %v", b, got, want)
				}
				b[n-1-at] = byte(255 - c)
				if got, want := alnumRun(b), allIn(b, &alnum); got != want {
					t.Fatalf("alnumRun(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
