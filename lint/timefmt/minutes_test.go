package timefmt

import (
	"math/rand/v2"
	"testing"
)

// TestMinutesAgree holds Minutes.UnixNano, which reads a date-time of the
// minute it read last from its seconds, to UnixNano, on a sequence of
// date-times mostly of the same minute: valid, leap seconds, every byte
// of the seconds and milliseconds replaced, other shapes and minutes.
func TestMinutesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 24))
	subst := []byte("0123456789:.Zz+- \x00\xff")
	bases := []string{"2026-02-14T00:00:", "2016-12-31T23:59:", "2024-02-29t12:30:", "2023-02-29T12:30:", "1900-01-01T00:00:"}
	var m Minutes
	agree := 0
	for n := 0; n < 300000; n++ {
		var s string
		if rng.IntN(50) == 0 {
			s = []string{"2026-02-14T00:00:00Z", "2026-02-14T00:00:00.5Z", "2026-02-14T00:00:00.000+00:00", "2026-02-14 00:00:00.000Z"}[rng.IntN(4)]
		} else {
			b := []byte(bases[rng.IntN(len(bases))] + two(rng.IntN(61)) + "." + two(rng.IntN(100)) + string(byte('0'+rng.IntN(10))) + "Z")
			if rng.IntN(8) == 0 {
				b[17+rng.IntN(7)] = subst[rng.IntN(len(subst))]
			}
			s = string(b)
		}
		got, gok := m.UnixNano(s)
		want, wok := UnixNano(s)
		if got != want || gok != wok {
			t.Fatalf("Minutes.UnixNano(%q) = %d, %v; UnixNano %d, %v", s, got, gok, want, wok)
		}
		if wok {
			agree++
		}
	}
	if agree < 100000 {
		t.Fatalf("only %d valid date-times", agree)
	}
}
