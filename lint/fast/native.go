package fast

import (
	"unsafe"

	"github.com/agentlint/agentlint/lint/internal/swar"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Natives maps the source of a regular expression of cue/*.cue to a
// hand-written matcher that accepts exactly the same byte strings, for the
// patterns that every record of most kinds checks: Go's regexp engine costs
// ~0.3 µs on a 24-byte date-time, the matcher ~20 ns. TestNativesEquivalent
// compares each with regexp on generated and mutated inputs, FuzzNatives
// keeps comparing, and TestNativesCoverCUE fails when a definition's regex
// changes without its matcher (the matcher would then silently not be used).
var Natives = map[string]func([]byte) bool{
	// #DateTime (cue/common.cue): RFC 3339 date-time, cue/README.md.
	DateTimePattern: matchDateTimeAny,
	// #UTCDateTime (cue/common.cue): the same with offset Z, z or +00:00.
	UTCDateTimePattern: matchDateTimeUTC,
	// #UUID (cue/collector.cue, seed 004 format uuid): 8-4-4-4-12 hex digits.
	`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`: matchUUID,
	// collector event_type (seed 004 JSON Schema).
	`^(lifecycle|activity|coordination|hook|decision|system)\.[a-z_]+$`: matchCollectorEventType,
	// collector version (seed 004 JSON Schema, \d as [0-9]).
	`^[0-9]+\.[0-9]+\.[0-9]+$`: matchSemver,
	// #RunID (cue/operator.cue, seed 001 Identifier Rules).
	`^[0-9a-fA-F-]{36}$`: matchHexDash36,
	// #TaskID (cue/operator.cue, seed 001 Identifier Rules).
	`^(T-[0-9]+|[0-9a-fA-F-]{36})$`: matchTaskID,
	// #SchemaVersion (cue/operator.cue): major version 1.
	`^1(\.|$)`: matchMajor1,

	// The id patterns of the idle, VerMAS and ledger kinds, which their
	// records check on every line (cue/idle.cue, cue/vermas.cue,
	// cue/ledger.cue): a run id, a frame or work order id, message, process
	// and event ids, dotted event names, names and paths.
	`^(loop|grind|issue)-[0-9]+-[0-9]+$`:       matchRunID,
	`^[a-z][a-z0-9]*-[A-Za-z0-9]+(\.[0-9]+)*$`: matchBeadID,
	`^msg-[A-Za-z0-9]+$`:                       matchMsgID,
	`^evt-[A-Za-z0-9]+$`:                       matchEvtID,
	`^proc-[A-Za-z0-9-]+$`:                     matchProcID,
	`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`:    matchDotted,
	`^[a-z][a-z0-9]*$`:                         matchName,
	`^[a-z0-9_-]+$`:                            matchSlug,
	`^/`:                                       func(b []byte) bool { return len(b) > 0 && b[0] == '/' },
	`^[0-9]+/[0-9]+$`:                          matchRatio,
	`^(/|[A-Za-z]:[\\/])`: func(b []byte) bool {
		return len(b) > 0 && b[0] == '/' || len(b) >= 3 && alpha[b[0]] && b[1] == ':' && (b[2] == '\\' || b[2] == '/')
	},
	`^([0-9]{4}-(((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01]))|((0[469]|11)-(0[1-9]|[12][0-9]|30))|(02-(0[1-9]|1[0-9]|2[0-8])))|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(00|0[48]|[2468][048]|[13579][26])00)-02-29)_[a-z0-9_-]+_[0-9]{3}$`: matchSessionID,
}

// The matchers of Natives that are not written out below.
func matchDateTimeAny(b []byte) bool { return matchDateTime(b, false) }
func matchDateTimeUTC(b []byte) bool { return matchDateTime(b, true) }
func matchMajor1(b []byte) bool      { return len(b) > 0 && b[0] == '1' && (len(b) == 1 || b[1] == '.') }
func matchMsgID(b []byte) bool       { return len(b) > 4 && string(b[:4]) == "msg-" && alnumRun(b[4:]) }
func matchEvtID(b []byte) bool       { return len(b) > 4 && string(b[:4]) == "evt-" && alnumRun(b[4:]) }
func matchProcID(b []byte) bool      { return prefixRun(b, "proc-", &alnumDash) }
func matchName(b []byte) bool        { return len(b) > 0 && lower[b[0]] && allIn(b[1:], &lowerDigit) }
func matchSlug(b []byte) bool        { return len(b) > 0 && allIn(b, &slug) }

// matchTaskID reports whether b is T-<digits> or 36 hex digits and dashes.
func matchTaskID(b []byte) bool {
	if len(b) > 2 && b[0] == 'T' && b[1] == '-' {
		for _, c := range b[2:] {
			if c < '0' || c > '9' {
				return matchHexDash36(b)
			}
		}
		return true
	}
	return matchHexDash36(b)
}

// Byte classes of the id patterns.
var (
	lower      = byteSet("az")
	alpha      = byteSet("azAZ")
	lowerDigit = byteSet("az09")
	alnum      = byteSet("azAZ09")
	alnumDash  = byteSet("azAZ09--")
	slug       = byteSet("az09__--")
	word       = byteSet("az09__")
	lowerUnder = byteSet("az__")
	digit      = byteSet("09")
)

// byteSet returns the set of the bytes of the inclusive ranges given as
// pairs of their ends ("azAZ": the ASCII letters).
func byteSet(ranges string) (t [256]bool) {
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := int(ranges[i]); c <= int(ranges[i+1]); c++ {
			t[c] = true
		}
	}
	return t
}

// allIn reports whether every byte of b is in set.
func allIn(b []byte, set *[256]bool) bool {
	for _, c := range b {
		if !set[c] {
			return false
		}
	}
	return true
}

// allIn8 is allIn eight bytes at a time, their entries (a bool is one
// byte, 0 or 1) ANDed with no branch, the last eight bytes read as a word
// too (again in part): for runs of eight bytes or more (allIn is inlined,
// allIn8 is not).
func allIn8(b []byte, set *[256]bool) bool {
	if len(b) < 8 {
		return allIn(b, set)
	}
	t := (*[256]uint8)(unsafe.Pointer(set))
	in8 := func(w []byte) bool {
		w = w[:8]
		return t[w[0]]&t[w[1]]&t[w[2]]&t[w[3]]&t[w[4]]&t[w[5]]&t[w[6]]&t[w[7]] != 0
	}
	last := b[len(b)-8:]
	for ; len(b) > 8; b = b[8:] {
		if !in8(b) {
			return false
		}
	}
	return in8(last)
}

// alnumRun reports whether every byte of b is an ASCII letter or digit
// (allIn of alnum), eight at a time as words (alnum8), the last eight
// bytes read as a word too (again in part).
func alnumRun(b []byte) bool {
	if len(b) < 8 {
		return allIn(b, &alnum)
	}
	last := Load64(b, len(b)-8)
	for ; len(b) > 8; b = b[8:] {
		if !alnum8(Load64(b, 0)) {
			return false
		}
	}
	return alnum8(last)
}

// alnum8 reports whether the eight bytes of x are ASCII letters and
// digits: a letter's lower-case form (bit 0x20 set: only 'A'-'Z' become
// 'a'-'z') is between 'a' and 'z'.
func alnum8(x uint64) bool {
	return x&msb == 0 && swar.InRange8(x, '0', '9')|swar.InRange8(x|lsb*0x20, 'a', 'z') == msb
}

// prefixRun reports whether b is prefix followed by one or more bytes of set.
func prefixRun(b []byte, prefix string, set *[256]bool) bool {
	return len(b) > len(prefix) && string(b[:len(prefix)]) == prefix && allIn8(b[len(prefix):], set)
}

// matchRunID reports whether b is loop, grind or issue, a dash, digits, a
// dash and digits (seed 002 run ids).
func matchRunID(b []byte) bool {
	var rest []byte
	switch {
	case len(b) > 5 && string(b[:5]) == "loop-":
		rest = b[5:]
	case len(b) > 6 && (string(b[:6]) == "grind-" || string(b[:6]) == "issue-"):
		rest = b[6:]
	default:
		return false
	}
	return matchRatioSep(rest, '-')
}

// matchRatio reports whether b is digits, a slash and digits.
func matchRatio(b []byte) bool { return matchRatioSep(b, '/') }

// matchRatioSep reports whether b is one or more digits, sep and one or
// more digits.
func matchRatioSep(b []byte, sep byte) bool {
	i := 0
	for i < len(b) && digit[b[i]] {
		i++
	}
	return i > 0 && i < len(b)-1 && b[i] == sep && allIn(b[i+1:], &digit)
}

// matchBeadID reports whether b is a lowercase letter, lowercase letters
// and digits, a dash, one or more letters and digits, then any number of
// dot-and-digits groups.
func matchBeadID(b []byte) bool {
	if len(b) == 0 || !lower[b[0]] {
		return false
	}
	i := 1
	for i < len(b) && lowerDigit[b[i]] {
		i++
	}
	if i >= len(b) || b[i] != '-' {
		return false
	}
	i++
	j := i
	for j < len(b) && alnum[b[j]] {
		j++
	}
	if j == i {
		return false
	}
	for j < len(b) {
		if b[j] != '.' {
			return false
		}
		k := j + 1
		for k < len(b) && digit[b[k]] {
			k++
		}
		if k == j+1 {
			return false
		}
		j = k
	}
	return true
}

// matchDotted reports whether b is two or more names joined by dots, each
// a lowercase letter followed by lowercase letters, digits and '_'.
func matchDotted(b []byte) bool {
	names := 0
	for i := 0; ; {
		if i >= len(b) || !lower[b[i]] {
			return false
		}
		i++
		for i < len(b) && word[b[i]] {
			i++
		}
		names++
		if i == len(b) {
			return names >= 2
		}
		if b[i] != '.' {
			return false
		}
		i++
	}
}

// matchSessionID reports whether b is a date YYYY-MM-DD (the day checked
// against the month and leap years, as matchDateTime), '_', one or more of
// [a-z0-9_-], '_' and three digits (seed 003 session ids).
func matchSessionID(b []byte) bool {
	n := len(b)
	if n < 16 || b[10] != '_' || b[n-4] != '_' || !validDate(b[:10]) || !allIn(b[n-3:], &digit) {
		return false
	}
	return allIn(b[11:n-4], &slug)
}

// validDate reports whether b is YYYY-MM-DD, a day of the Gregorian calendar.
func validDate(b []byte) bool {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return false
	}
	year, ok := digits(b[0:4])
	month, ok1 := digits(b[5:7])
	day, ok2 := digits(b[8:10])
	return ok && ok1 && ok2 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year)
}

// DateTimePattern and UTCDateTimePattern are the regular expressions of
// #DateTime and #UTCDateTime in cue/common.cue.
const (
	DateTimePattern    = `^([0-9]{4}-(((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01]))|((0[469]|11)-(0[1-9]|[12][0-9]|30))|(02-(0[1-9]|1[0-9]|2[0-8])))|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(00|0[48]|[2468][048]|[13579][26])00)-02-29)[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	UTCDateTimePattern = `^([0-9]{4}-(((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01]))|((0[469]|11)-(0[1-9]|[12][0-9]|30))|(02-(0[1-9]|1[0-9]|2[0-8])))|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(00|0[48]|[2468][048]|[13579][26])00)-02-29)[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|\+00:00)$`
)

// matchDateTime reports whether b is YYYY-MM-DD[Tt]hh:mm:ss[.f+] followed by
// an offset (Z, z or ±hh:mm; with utc only Z, z or +00:00), with the day
// checked against the month and the Gregorian leap years (29 February in
// years divisible by 4, except centuries not divisible by 400; 0000 is a
// leap year), hours 00–23, minutes 00–59 and seconds 00–60.
func matchDateTime(b []byte, utc bool) bool {
	if len(b) == 24 {
		// The common shape (timefmt.Millis24), its bytes checked.
		w0, w1, w2 := Load64(b, 0), Load64(b, 8), Load64(b, 16)
		if timefmt.IsMillis24Shape(w0, w1, w2) {
			return millis24InRange(w0, w1, w2)
		}
	}
	return matchAnyDateTime(b, utc)
}

// millis24InRange reports whether the date-time of Millis24's shape in the
// three little-endian words w0, w1 and w2 (YYYY-MM-, DDThh:mm, :ss.sssZ)
// has its month, day, hour, minute and second in range, as
// matchAnyDateTime checks them. A field's two digits are read as a number
// of two bytes, the tens first, and compared with the bounds written the
// same way: two digits order as their numbers do. A day past the 28th is
// checked against its month (daysIn).
func millis24InRange(w0, w1, w2 uint64) bool {
	two := func(w uint64, at uint) uint64 { return w>>at&0xff<<8 | w>>(at+8)&0xff }
	month, day := two(w0, 40), two(w1, 0)
	if month < 0x3031 || month > 0x3132 || day < 0x3031 || two(w1, 24) > 0x3233 || two(w1, 48) > 0x3539 || two(w2, 8) > 0x3630 {
		return false
	}
	if day <= 0x3238 {
		return true
	}
	const lo = 0x0f0f0f0f0f0f0f0f
	w0 &= lo
	year := int(w0&0xff)*1000 + int(w0>>8&0xff)*100 + int(w0>>16&0xff)*10 + int(w0>>24&0xff)
	return int(day>>8&0x0f)*10+int(day&0x0f) <= daysIn(int(month>>8&0x0f)*10+int(month&0x0f), year)
}

// matchAnyDateTime is matchDateTime of a date-time of any shape.
func matchAnyDateTime(b []byte, utc bool) bool {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return false
	}
	year, ok := digits(b[0:4])
	if !ok {
		return false
	}
	month, ok1 := digits(b[5:7])
	day, ok2 := digits(b[8:10])
	hour, ok3 := digits(b[11:13])
	minute, ok4 := digits(b[14:16])
	second, ok5 := digits(b[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || hour > 23 || minute > 59 || second > 60 {
		return false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return false
	}
	i := 19
	if b[i] == '.' {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	rest := b[i:]
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
		return true
	case len(rest) != 6 || rest[3] != ':':
		return false
	case utc:
		return string(rest) == "+00:00"
	}
	if rest[0] != '+' && rest[0] != '-' {
		return false
	}
	oh, ok1 := digits(rest[1:3])
	om, ok2 := digits(rest[4:6])
	return ok1 && ok2 && oh <= 23 && om <= 59
}

// digits returns the value of b, which must be all ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// matchUUID reports whether b is 8-4-4-4-12 hex digits (timefmt.IsUUID).
func matchUUID(b []byte) bool { return timefmt.IsUUID(unsafe.String(unsafe.SliceData(b), len(b))) }

// matchCollectorEventType reports whether b is one of seed 004's six
// namespaces, a dot and one or more of [a-z_].
func matchCollectorEventType(b []byte) bool {
	var n int // the category and its dot
	switch {
	case len(b) > 5 && string(b[:5]) == "hook.":
		n = 5
	case len(b) > 7 && string(b[:7]) == "system.":
		n = 7
	case len(b) > 9 && (string(b[:9]) == "activity." || string(b[:9]) == "decision."):
		n = 9
	case len(b) > 10 && string(b[:10]) == "lifecycle.":
		n = 10
	case len(b) > 13 && string(b[:13]) == "coordination.":
		n = 13
	default:
		return false
	}
	return allIn(b[n:], &lowerUnder)
}

// matchSemver reports whether b is three dot-separated runs of ASCII digits.
func matchSemver(b []byte) bool {
	parts, run := 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			run++
		case c == '.' && run > 0 && parts < 2:
			parts, run = parts+1, 0
		default:
			return false
		}
	}
	return parts == 2 && run > 0
}

// matchHexDash36 reports whether b is 36 hex digits and dashes in any order
// (seed 001's run id pattern, timefmt.IsRunID; the canonical layout is a
// warning, OP004).
func matchHexDash36(b []byte) bool {
	return timefmt.IsRunID(unsafe.String(unsafe.SliceData(b), len(b)))
}
