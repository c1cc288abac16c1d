package timefmt

import (
	"math/rand/v2"
	"testing"
)

// millis24Cases are date-times of Millis24's shape and its near misses:
// each byte of a few valid ones replaced by bytes around digits and the
// separators (and bytes that carry when 6 is added), all days of a leap
// and a common year and century, leap seconds, other lengths.
func millis24Cases() []string {
	var out []string
	seeds := []string{"2026-02-14T09:00:00.191Z", "2024-02-29t23:59:60.999z", "1900-02-28T00:00:00.000Z", "2000-12-31T23:59:59.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"}
	bytes := []byte("/0123456789:;?@-.,TtZzSs +\x00\x7f\x80\xc0\xfa\xff")
	for _, s := range seeds {
		out = append(out, s, s[:23], s+"0", s[:20]+"Z", s[:23]+"+00:00")
		for i := range len(s) {
			for _, c := range bytes {
				b := []byte(s)
				b[i] = c
				out = append(out, string(b))
			}
		}
	}
	for _, y := range []string{"1900", "2000", "2023", "2024"} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				out = append(out, y+"-"+two(m)+"-"+two(d)+"T12:30:45.678Z")
			}
		}
	}
	for h := 0; h <= 25; h++ {
		for mi := 57; mi <= 61; mi++ {
			for sec := 58; sec <= 61; sec++ {
				out = append(out, "2025-06-30T"+two(h)+":"+two(mi)+":"+two(sec)+".000Z")
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		b := []byte(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			b[rng.IntN(len(b))] = bytes[rng.IntN(len(bytes))]
		}
		out = append(out, string(b))
	}
	return out
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// TestMillis24AgreesWithParse: parse, which reads date-times of
// Millis24's shape through it, returns what parseAny, which reads every
// shape byte by byte, returns, for those date-times and their near
// misses; and Millis24 reads its shape whole.
func TestMillis24AgreesWithParse(t *testing.T) {
	valid := 0
	for _, s := range millis24Cases() {
		got, gok := parse(s)
		want, wok := parseAny(s)
		if got != want || gok != wok {
			t.Fatalf("parse(%q) = %+v, %v; parseAny %+v, %v", s, got, gok, want, wok)
		}
		if wok {
			valid++
		}
		if f, ok := Millis24([]byte(s)); ok && (!wok && f.Month >= 1 && f.Month <= 12 && f.Day >= 1 && f.Day <= 28 && f.Hour < 24 && f.Minute < 60 && f.Second < 60) {
			t.Fatalf("Millis24(%q) = %+v: read a date-time parseAny rejects", s, f)
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid cases", valid)
	}
}

// FuzzMillis24 holds parse to parseAny on any string:
// go test ./lint/timefmt -run '^$' -fuzz FuzzMillis24
func FuzzMillis24(f *testing.F) {
	for _, s := range millis24Cases()[:2000] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gok := parse(s)
		want, wok := parseAny(s)
		if got != want || gok != wok {
			t.Fatalf("parse(%q) = %+v, %v; parseAny %+v, %v", s, got, gok, want, wok)
		}
	})
}
