package fast

// Exact comparison of JSON number literals. float64 rounds: 9007199254740993
// and 9007199254740992 are the same float, and 1.0000000000000001 equals 1.
// The CUE evaluator and JSON Schema validators compare decimals exactly, so
// the fast path must too (README, Codes and precedence: engines agree). Rounding is
// monotone, so a float comparison that finds x < y or x > y is right; only
// when the floats are equal does CompareNumbers decide, from the literals.

// decimal is a JSON number literal split without copying: the value is
// (neg ? -1 : 1) × 0.D × 10^point, where D is the digit string formed by
// intPart followed by fracPart, from which lead leading and trail trailing
// zeros are dropped. A zero has no significant digits (n == 0).
type decimal[T ~string | ~[]byte] struct {
	neg               bool
	intPart, fracPart T
	lead, n           int   // first significant digit and count of significant digits
	point             int64 // decimal exponent of the significant digits, see above
}

// digit returns significant digit i (0-based) of x.
func (x *decimal[T]) digit(i int) byte {
	j := x.lead + i
	if j < len(x.intPart) {
		return x.intPart[j]
	}
	return x.fracPart[j-len(x.intPart)]
}

// maxExp bounds exponents: beyond it every literal compares as its sign
// times infinity or zero, and the arithmetic cannot overflow.
const maxExp = 1 << 40

// parseDecimal splits a JSON number literal (RFC 8259 section 6 grammar:
// -? int frac? exp?). ok is false for anything else.
func parseDecimal[T ~string | ~[]byte](s T) (x decimal[T], ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		x.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return x, false
	}
	x.intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return x, false
		}
		x.fracPart = s[fs:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp < maxExp {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return x, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return x, false
	}
	total := len(x.intPart) + len(x.fracPart)
	for x.lead < total && x.digitAt(x.lead) == '0' {
		x.lead++
	}
	end := total
	for end > x.lead && x.digitAt(end-1) == '0' {
		end--
	}
	x.n = end - x.lead
	x.point = int64(len(x.intPart)-x.lead) + exp
	return x, true
}

// digitAt returns digit j of intPart followed by fracPart.
func (x *decimal[T]) digitAt(j int) byte {
	if j < len(x.intPart) {
		return x.intPart[j]
	}
	return x.fracPart[j-len(x.intPart)]
}

// sign is -1, 0 or 1.
func (x *decimal[T]) sign() int {
	switch {
	case x.n == 0:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// CompareNumbers compares two JSON number literals exactly, as decimals:
// -1 if a < b, 0 if equal (1, 1.0 and 10e-1 are equal; so are 0 and -0),
// +1 if a > b. ok is false when either is not a JSON number literal.
// It does not allocate.
func CompareNumbers[A, B ~string | ~[]byte](a A, b B) (c int, ok bool) {
	x, okx := parseDecimal(a)
	y, oky := parseDecimal(b)
	if !okx || !oky {
		return 0, false
	}
	sx, sy := x.sign(), y.sign()
	switch {
	case sx != sy:
		return cmpInt(sx, sy), true
	case sx == 0:
		return 0, true
	}
	// Same sign, both non-zero: compare magnitudes, then apply the sign.
	m := 0
	switch {
	case x.point != y.point:
		m = cmpInt64(x.point, y.point)
	default:
		for i := 0; i < x.n && i < y.n; i++ {
			if dx, dy := x.digit(i), y.digit(i); dx != dy {
				m = cmpInt(int(dx), int(dy))
				break
			}
		}
		if m == 0 {
			m = cmpInt(x.n, y.n)
		}
	}
	return m * sx, true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// holdsCmp reports whether `x op y` is true, given c = compare(x, y).
func holdsCmp(op string, c int) bool {
	switch op {
	case ">=":
		return c >= 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	case "<":
		return c < 0
	}
	return false
}

// compareExact compares the numbers x and y whose literals are xs and ys:
// by float64 when that decides, by the literals otherwise.
func compareExact[A, B ~string | ~[]byte](x, y float64, xs A, ys B) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	if c, ok := CompareNumbers(xs, ys); ok {
		return c
	}
	return 0
}
