package fast

import (
	"strconv"
	"strings"
	"testing"
)

func TestCompareNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"9007199254740993", "9007199254740992", 1},
		{"9007199254740992", "9007199254740993", -1},
		{"9007199254740993", "9007199254740993", 0},
		{"-9007199254740993", "-9007199254740992", -1},
		{"1", "1.0", 0},
		{"10e-1", "1", 0},
		{"1E+0", "1.000", 0},
		{"0", "-0", 0},
		{"0.0", "0e5", 0},
		{"-0.0", "0", 0},
		{"1.0000000000000001", "1", 1},
		{"0.9999999999999999999", "1", -1},
		{"-1", "0", -1},
		{"0", "-1e-400", 1},
		{"1e400", "1e399", 1},
		{"1e400", "-1e400", 1},
		{"100", "1e2", 0},
		{"0.001", "1e-3", 0},
		{"12", "9", 1},
		{"120", "1200", -1},
		{"5", "30", -1},
		{"1e99999999999999999999", "1e99999999999999999998", 0}, // both beyond maxExp: equal
		{"000", "0", 0},
	} {
		got, ok := CompareNumbers(c.a, c.b)
		if !ok || got != c.want {
			t.Errorf("CompareNumbers(%s, %s) = %d, %v; want %d", c.a, c.b, got, ok, c.want)
		}
		rev, _ := CompareNumbers([]byte(c.b), c.a)
		if rev != -c.want {
			t.Errorf("CompareNumbers(%s, %s) = %d; want %d", c.b, c.a, rev, -c.want)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 ", "NaN"} {
		if _, ok := CompareNumbers(bad, "1"); ok {
			t.Errorf("CompareNumbers(%q, 1): ok, want not a number", bad)
		}
	}
}

// Property: for integers that fit in int64, CompareNumbers agrees with
// integer comparison, whatever the notation.
func TestCompareNumbersInt64(t *testing.T) {
	vals := []int64{0, 1, -1, 9, 10, 99, 100, 1 << 53, 1<<53 + 1, -(1<<53 + 1), 1<<62 + 3, -1 << 63}
	for _, a := range vals {
		for _, b := range vals {
			want := cmpInt64(a, b)
			for _, as := range notations(a) {
				for _, bs := range notations(b) {
					if got, ok := CompareNumbers(as, bs); !ok || got != want {
						t.Errorf("CompareNumbers(%s, %s) = %d, %v; want %d", as, bs, got, ok, want)
					}
				}
			}
		}
	}
}

// notations writes n as an integer, with a zero fraction and with an exponent.
func notations(n int64) []string {
	s := strconv.FormatInt(n, 10)
	out := []string{s, s + ".000"}
	digits := strings.TrimPrefix(s, "-")
	sign := s[:len(s)-len(digits)]
	out = append(out, sign+"0."+digits+"e"+strconv.Itoa(len(digits)))
	return out
}

func TestCompareNumbersAllocs(t *testing.T) {
	a, b := []byte("9007199254740993"), "9007199254740992.0e0"
	if n := testing.AllocsPerRun(100, func() { CompareNumbers(a, b) }); n != 0 {
		t.Fatalf("CompareNumbers allocates %v times", n)
	}
}

// TestBoundsAgreesWithHolds: Bounds, which decides an integer against an
// integer bound by float64 alone, agrees with Bound.Holds for
// integers, decimals and numbers beyond float64 against bounds whose
// literals are integers, decimals, exponents and numbers float64 rounds.
func TestBoundsAgreesWithHolds(t *testing.T) {
	lits := []string{"0", "1", "2", "10", "100", "999999999999999", "1000000000000000", "9007199254740993", "1.0000000000000001",
		"0.9999999999999999", "1e2", "1E1", "-1", "-0", "2.5", "99.99999999999999999"}
	raws := []string{"0", "1", "2", "3", "10", "99", "100", "101", "999999999999999", "1000000000000000", "9007199254740992",
		"9007199254740993", "1.0", "1.0000000000000001", "1e2", "100.0", "-1", "-0", "2.5", "1e400", "12345678901234567890"}
	for _, l := range lits {
		num, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []string{">=", ">", "<=", "<"} {
			bs := []Bound{{Op: op, Num: num, Lit: l}}
			for _, r := range raws {
				x, err := strconv.ParseFloat(r, 64)
				want := err == nil && bs[0].Holds(x, []byte(r))
				if got := Bounds([]byte(r), bs); got != want {
					t.Errorf("%s %s %s: Bounds %v, Holds %v", r, op, l, got, want)
				}
			}
		}
	}
}
