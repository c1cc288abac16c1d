// Package timefmt checks the timestamp and identifier formats shared by the
// agentlint families:
//
//   - RFC 3339 date-time (cue/README.md, "All families": "T (or t)
//     between date and time, an offset (Z or ±HH:MM), leap second :60
//     accepted. A space instead of T, +0100, or no offset is
//     SCHEMA_INVALID");
//   - "ISO-8601 UTC" fields (cue/README.md, operator: generated_at,
//     last_heartbeat_at, worklog timestamp "need offset Z or +00:00");
//   - the uuid format of collector events (cue/README.md, collector:
//     "uuid in the 8-4-4-4-12 form");
//   - the run_id and task_id regexes of seed 001 ("Identifier Rules").
//
// Everything is checked byte by byte: no time.Parse layout, no regular
// expression, and no allocation (ParseRFC3339 allocates once per distinct
// non-zero offset for the whole process, see ParseRFC3339).
package timefmt

import (
	"encoding/binary"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/agentlint/agentlint/lint/internal/swar"
)

// stamp is a syntactically and range-checked RFC 3339 date-time.
type stamp struct {
	year, month, day     int
	hour, minute, second int // second may be 60
	nsec                 int // fraction, truncated to nanoseconds
	frac                 bool
	offset               int  // seconds east of UTC
	offKind              byte // 'Z' (Z or z), '+' or '-'
}

// digits2 returns the two-digit decimal number at s[i:i+2].
func digits2(s string, i int) (int, bool) {
	a, b := s[i]-'0', s[i+1]-'0'
	if a > 9 || b > 9 {
		return 0, false
	}
	return int(a)*10 + int(b), true
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(month, year int) int {
	switch month {
	case 2:
		if isLeap(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// parse checks s against RFC 3339 section 5.6 date-time:
//
//	YYYY-MM-DD ("T"|"t") hh:mm:ss ["." 1*DIGIT] ("Z"|"z"|("+"|"-") hh:mm)
func parse(s string) (st stamp, ok bool) {
	if f, ok := millis24String(s); ok {
		// The common shape, its bytes checked: the ranges as below.
		if f.Month < 1 || f.Month > 12 || f.Day < 1 || f.Day > daysIn(f.Month, f.Year) || f.Hour > 23 || f.Minute > 59 || f.Second > 60 ||
			f.Second == 60 && f.Hour*60+f.Minute != 23*60+59 {
			return st, false
		}
		return stamp{year: f.Year, month: f.Month, day: f.Day, hour: f.Hour, minute: f.Minute, second: f.Second,
			nsec: f.Milli * 1e6, frac: true, offKind: 'Z'}, true
	}
	return parseAny(s)
}

// parseAny is parse of a date-time of any shape.
func parseAny(s string) (st stamp, ok bool) {
	// 2006-01-02T15:04:05Z: 20 bytes at least.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return st, false
	}
	y1, ok1 := digits2(s, 0)
	y2, ok2 := digits2(s, 2)
	mo, ok3 := digits2(s, 5)
	d, ok4 := digits2(s, 8)
	h, ok5 := digits2(s, 11)
	mi, ok6 := digits2(s, 14)
	sec, ok7 := digits2(s, 17)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return st, false
	}
	y := y1*100 + y2
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || sec > 60 {
		return st, false
	}
	st = stamp{year: y, month: mo, day: d, hour: h, minute: mi, second: sec}

	i := 19
	if s[i] == '.' {
		i++
		start := i
		scale := 100_000_000
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			st.nsec += int(s[i]-'0') * scale
			scale /= 10 // 0 after nine digits: further digits are truncated
			i++
		}
		if i == start {
			return stamp{}, false
		}
		st.frac = true
	}

	rest := s[i:]
	switch {
	case rest == "Z" || rest == "z":
		st.offKind = 'Z'
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, okh := digits2(rest, 1)
		om, okm := digits2(rest, 4)
		if !okh || !okm || oh > 23 || om > 59 {
			return stamp{}, false
		}
		st.offKind = rest[0]
		st.offset = (oh*60 + om) * 60
		if rest[0] == '-' {
			st.offset = -st.offset
		}
	default:
		return stamp{}, false
	}

	if sec == 60 {
		// A leap second is inserted at 23:59:60 UTC (RFC 3339 section 5.7);
		// like the jsonschema date-time format, check the UTC hour and
		// minute but not the day.
		m := (h*60 + mi - st.offset/60) % (24 * 60)
		if m < 0 {
			m += 24 * 60
		}
		if m != 23*60+59 {
			return stamp{}, false
		}
	}
	return st, true
}

// zones caches one *time.Location per offset in minutes (-23:59 … +23:59),
// so that ParseRFC3339 allocates a location only the first time it sees an
// offset.
var zones [2*(24*60-1) + 1]atomic.Pointer[time.Location]

func zone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	slot := &zones[offset/60+(24*60-1)]
	if loc := slot.Load(); loc != nil {
		return loc
	}
	loc := time.FixedZone("", offset)
	if slot.CompareAndSwap(nil, loc) {
		return loc
	}
	return slot.Load()
}

// ParseRFC3339 parses a strict RFC 3339 date-time (cue/README.md,
// "All families"): "YYYY-MM-DD", 'T' or 't', "HH:MM:SS", an optional '.'
// and one or more digits (digits beyond the ninth are truncated, not
// rounded), then 'Z', 'z' or "±HH:MM". Years 0000-9999, months 1-12, days
// valid for the month (leap years by the Gregorian rule), hours 0-23,
// minutes 0-59, seconds 0-60, offset hours 0-23 and minutes 0-59 are
// accepted. Anything else fails: a space instead of 'T', "+0100", a missing
// offset, missing seconds, a '.' without digits, a ',' fraction, leading or
// trailing characters, non-ASCII digits.
//
// A leap second (":60") is accepted only when it falls at 23:59:60 UTC once
// the offset is applied (as RFC 3339 section 5.7 and the jsonschema
// date-time format that checks collector events); since time.Time has no
// leap seconds it is returned as the following instant, 23:59:59 plus one
// second (00:00:00 of the next day, plus the fraction).
//
// The returned time carries the offset of s: time.UTC for Z, +00:00 and
// -00:00, otherwise a fixed zone without a name (one *time.Location per
// distinct offset is allocated on first use and reused, so steady-state
// parsing does not allocate). ok is false, and t the zero Time, when s is
// not a valid date-time.
func ParseRFC3339(s string) (t time.Time, ok bool) {
	st, ok := parse(s)
	if !ok {
		return time.Time{}, false
	}
	sec := st.second
	if sec == 60 {
		sec = 59
	}
	t = time.Date(st.year, time.Month(st.month), st.day, st.hour, st.minute, sec, st.nsec, time.UTC)
	t = t.Add(-time.Duration(st.offset) * time.Second)
	if st.second == 60 {
		t = t.Add(time.Second)
	}
	return t.In(zone(st.offset)), true
}

// UnixNano is ParseRFC3339(s).UnixNano() without building a time.Time: the
// instant of a valid date-time in nanoseconds since 1970-01-01T00:00:00Z
// (a leap second counts as the following instant), computed from the
// proleptic Gregorian day number. Like time.Time.UnixNano, the result wraps
// for instants before 1678 or after 2262. ok is false when s is not a
// valid date-time. The stream rules compare timestamps with it (CL102).
func UnixNano(s string) (ns int64, ok bool) {
	st, ok := parse(s)
	if !ok {
		return 0, false
	}
	sec := daysFromCivil(st.year, st.month, st.day)*86400 + int64(st.hour*3600+st.minute*60+st.second) - int64(st.offset)
	return sec*1e9 + int64(st.nsec), true
}

// Minutes remembers the minute of the last date-time of Millis24's shape
// that its UnixNano read (its first 17 bytes, YYYY-MM-DDThh:mm:, and that
// minute's UnixNano), so that the next one of the same minute, as the
// timestamps of one log mostly are, is read from its last seven bytes.
// The zero value is ready; not safe for concurrent use.
type Minutes struct {
	prefix [17]byte
	ns     int64 // UnixNano of prefix + "00.000Z"; valid when ok
	ok     bool
}

// UnixNano is the package's UnixNano of s, read through the memo.
func (m *Minutes) UnixNano(s string) (ns int64, ok bool) {
	if len(s) != 24 {
		return UnixNano(s)
	}
	if m.ok && s[:17] == string(m.prefix[:]) {
		// ss.sssZ: the same checks as millis24 and parse for these bytes.
		sec, ok1 := digits2(s, 17)
		ms1, ok2 := digits2(s, 20)
		ms2 := s[22] - '0'
		if ok1 && ok2 && ms2 <= 9 && s[19] == '.' && (s[23] == 'Z' || s[23] == 'z') && sec <= 59 {
			return m.ns + int64(sec)*1e9 + int64(ms1*10+int(ms2))*1e6, true
		}
	}
	ns, ok = UnixNano(s)
	if _, shaped := millis24String(s); ok && shaped { // the minute of s, valid: remember it
		sec, _ := digits2(s, 17)
		ms1, _ := digits2(s, 20)
		m.ns = ns - int64(sec)*1e9 - int64(ms1*10+int(s[22]-'0'))*1e6
		copy(m.prefix[:], s[:17])
		m.ok = true
	}
	return ns, ok
}

// daysFromCivil is the number of days from 1970-01-01 to year-month-day
// of the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// IsRFC3339 reports whether s is a valid date-time by the rules of
// ParseRFC3339, without building a time.Time.
func IsRFC3339(s string) bool {
	_, ok := parse(s)
	return ok
}

// IsUTC reports whether s is a valid RFC 3339 date-time (see ParseRFC3339)
// whose offset is 'Z', 'z' or "+00:00", as cue/README.md (operator)
// requires of the "ISO-8601 UTC" fields generated_at, last_heartbeat_at and
// worklog timestamp. "-00:00" is not UTC: RFC 3339 section 4.3 reserves it
// for "the offset to local time is unknown".
func IsUTC(s string) bool {
	st, ok := parse(s)
	return ok && (st.offKind == 'Z' || (st.offKind == '+' && st.offset == 0))
}

// HasFraction reports whether s is a valid RFC 3339 date-time (see
// ParseRFC3339) whose seconds carry a fraction ("…:05.000Z" yes, "…:05Z"
// no). It is false for an invalid s. The vermas family warns about
// timestamps without milliseconds with it (cue/README.md, vermas).
func HasFraction(s string) bool {
	st, ok := parse(s)
	return ok && st.frac
}

// Offset returns the offset of a valid RFC 3339 date-time s, in seconds east
// of UTC: 0 for 'Z', 'z', "+00:00" and "-00:00", 25200 for "+07:00",
// -18000 for "-05:00". ok is false (and seconds 0) when s is not valid (see
// ParseRFC3339).
func Offset(s string) (seconds int, ok bool) {
	st, ok := parse(s)
	if !ok {
		return 0, false
	}
	return st.offset, true
}

// IsUUID reports whether s is a UUID in the canonical textual layout: 36
// bytes, hex digits of either case in groups of 8-4-4-4-12 separated by '-'
// ("3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"). The version and variant digits
// are not checked, as in the jsonschema uuid format that checks collector
// events (cue/README.md, collector). No braces, "urn:uuid:" prefix
// or surrounding white space.
func IsUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	// The 32 hex digits as four words, eight at a time.
	b := unsafe.Slice(unsafe.StringData(s), 36)
	le := binary.LittleEndian
	return hex8(le.Uint64(b[0:])) &&
		hex8(uint64(le.Uint32(b[9:]))|uint64(le.Uint32(b[14:]))<<32) &&
		hex8(uint64(le.Uint32(b[19:]))|uint64(le.Uint32(b[24:]))<<32) &&
		hex8(le.Uint64(b[28:]))
}

// hex8 reports whether each of the eight bytes of x is a hex digit of
// either case.
func hex8(x uint64) bool {
	return x&msb8 == 0 && hexDigits8(x) == msb8
}

// IsHex8 reports whether each of the eight bytes of x (the first in the
// low byte, as binary.LittleEndian reads them) is a hex digit of either
// case, as DecodeHex8 with upper true accepts them, without decoding: a
// caller that only compares hex texts folds the case by setting bit 5 of
// each byte (x | 0x2020202020202020 maps 'A'-'F' to 'a'-'f' and leaves
// the digits as they are).
func IsHex8(x uint64) bool { return hex8(x) }

// hexDash8 reports whether each of the eight bytes of x is a hex digit of
// either case or '-' (seed 001's run_id class).
func hexDash8(x uint64) bool {
	return x&msb8 == 0 && hexDigits8(x)|swar.InRange8(x, '-', '-') == msb8
}

// lsb8 and msb8 are the low and the top bit of each byte of a word.
const (
	lsb8 = swar.Lsb
	msb8 = swar.Msb
)

// hexDigits8 returns the top bit of each byte of x that is a hex digit of
// either case, for x without a byte of 0x80 or more.
func hexDigits8(x uint64) uint64 {
	return swar.InRange8(x, '0', '9') | swar.InRange8(x|lsb8*0x20, 'a', 'f')
}

// hexClasses8 returns the top bit of each byte of x that is a decimal
// digit (digit) and of each that is 'a'-'f' (letter; 'A'-'F' too when fold
// is lsb8*0x20, nothing else when it is 0), for x without a byte of 0x80
// or more (swar.InRange8); setting bit 5 folds 'A'-'F' onto 'a'-'f' and
// moves no other byte there.
func hexClasses8(x, fold uint64) (digit, letter uint64) {
	return swar.InRange8(x, '0', '9'), swar.InRange8(x|fold, 'a', 'f')
}

// DecodeHex8 decodes eight hex digits, the first in the low byte of x
// (as binary.LittleEndian reads them), into the four bytes they spell, the
// first in the low byte of the result; digits of either case when upper is
// true, lowercase only when false (an OpenTelemetry span_id, seed 004's
// correlation). ok is false when a byte is not such a digit (the value is
// then meaningless). Each byte is tested and decoded in its lane of the
// word.
func DecodeHex8(x uint64, upper bool) (v uint32, ok bool) {
	fold := uint64(0)
	if upper {
		fold = lsb8 * 0x20
	}
	digit, letter := hexClasses8(x, fold)
	ok = x&msb8 == 0 && digit|letter == msb8
	// A digit's value is its low nibble, a letter's its low nibble + 9.
	w := x&(0x0f*lsb8) + (letter>>7)*9
	// Byte 2i+1's nibble goes under byte 2i's, then the pairs together.
	w = (w&0x000f000f000f000f)<<4 | (w&0x0f000f000f000f00)>>8
	w = (w | w>>8) & 0x0000ffff0000ffff
	w = (w | w>>16) & 0xffffffff
	return uint32(w), ok
}

// IsCanonicalUUIDLayout is IsUUID. The operator family uses it to warn about
// a run_id that matches seed 001's regex (IsRunID) but not the 8-4-4-4-12
// layout (cue/README.md, operator: "a value that is not the canonical
// 8-4-4-4-12 layout is a warning").
func IsCanonicalUUIDLayout(s string) bool { return IsUUID(s) }

// IsRunID reports whether s matches seed 001's run_id regex
// ^[0-9a-fA-F-]{36}$ ("Identifier Rules"): exactly 36 bytes, each a hex
// digit or '-', in any arrangement. Unlike Python's '$', a trailing newline
// is not allowed. The 36 bytes are read as five words (the last two
// overlap).
func IsRunID(s string) bool {
	if len(s) != 36 {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(s), 36)
	le := binary.LittleEndian
	return hexDash8(le.Uint64(b[0:])) && hexDash8(le.Uint64(b[8:])) && hexDash8(le.Uint64(b[16:])) &&
		hexDash8(le.Uint64(b[24:])) && hexDash8(le.Uint64(b[28:]))
}

// IsTaskID reports whether s matches seed 001's task_id regex
// ^(T-[0-9]+|[0-9a-fA-F-]{36})$ ("Identifier Rules"): "T-" and one or more
// ASCII digits (leading zeros and any length allowed: "T-0", "T-007"), or a
// string that IsRunID accepts. The 'T' is upper case only; no trailing
// newline.
func IsTaskID(s string) bool {
	if len(s) >= 3 && s[0] == 'T' && s[1] == '-' {
		for i := 2; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	return IsRunID(s)
}

// Fields are the numbers of a date-time written YYYY-MM-DDThh:mm:ss.sssZ
// (Millis24), not range-checked: Milli is the three-digit fraction, in
// milliseconds.
type Fields struct {
	Year, Month, Day, Hour, Minute, Second, Milli int
}

// Millis24 reads b when it has the shape in which logs most often write a
// date-time, YYYY-MM-DDThh:mm:ss.sssZ (24 bytes, "T" or "t", "Z" or "z":
// a UTC instant with milliseconds, as seed 000 writes VerMAS timestamps),
// checking its bytes eight at a time; ok is false for any other shape or
// a byte that is not a digit where one is due. It checks no range (a
// month 13 reads as such): a caller goes on to check ranges as for any
// date-time.
func Millis24(b []byte) (f Fields, ok bool) {
	if len(b) != 24 {
		return f, false
	}
	return millis24(binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:]))
}

// millis24String is Millis24 of a string.
func millis24String(s string) (f Fields, ok bool) {
	if len(s) != 24 {
		return f, false
	}
	return millis24(le64(s[0:8]), le64(s[8:16]), le64(s[16:24]))
}

// millis24 is Millis24 of the three little-endian words of the 24 bytes.
func millis24(w0, w1, w2 uint64) (f Fields, ok bool) {
	if !IsMillis24Shape(w0, w1, w2) {
		return f, false
	}
	const lo = 0x0f0f0f0f0f0f0f0f
	w0, w1, w2 = w0&lo, w1&lo, w2&lo
	f.Year = int(w0&0xff)*1000 + int(w0>>8&0xff)*100 + int(w0>>16&0xff)*10 + int(w0>>24&0xff)
	f.Month, f.Day = int(w0>>40&0xff)*10+int(w0>>48&0xff), int(w1&0xff)*10+int(w1>>8&0xff)
	f.Hour, f.Minute = int(w1>>24&0xff)*10+int(w1>>32&0xff), int(w1>>48&0xff)*10+int(w1>>56)
	f.Second, f.Milli = int(w2>>8&0xff)*10+int(w2>>16&0xff), int(w2>>32&0xff)*100+int(w2>>40&0xff)*10+int(w2>>48&0xff)
	return f, true
}

// IsMillis24Shape reports whether the three little-endian words of 24
// bytes have Millis24's shape, YYYY-MM-DDThh:mm:ss.sssZ ("T" or "t", "Z" or
// "z"), with a digit wherever one is due; it checks no range.
func IsMillis24Shape(w0, w1, w2 uint64) bool {
	// Per word: the digit bytes (0xff), the others' bytes as due (a bit
	// 0x20 set first, for "T"/"t" and "Z"/"z").
	const (
		d0, p0 = 0x00ffff00ffffffff, 0x2d00002d00000000 // YYYY-MM-
		d1, p1 = 0xffff00ffff00ffff, 0x00003a0000740000 // DDThh:mm
		d2, p2 = 0x00ffffff00ffff00, 0x7a0000002e00003a // :ss.sssZ
		hi     = 0xf0f0f0f0f0f0f0f0
		three  = 0x3030303030303030
		six    = 0x0606060606060606
	)
	if w0&^d0 != p0 || (w1|0x200000)&^d1 != p1 || (w2|0x2000000000000000)&^d2 != p2 {
		return false
	}
	// A digit is 0x30-0x39: its high nibble is 3, also after adding 6 (a
	// byte that is not has a high nibble other than 3 first; a carry out of
	// it then changes nothing).
	return w0&d0&hi == d0&three && (w0+d0&six)&d0&hi == d0&three &&
		w1&d1&hi == d1&three && (w1+d1&six)&d1&hi == d1&three &&
		w2&d2&hi == d2&three && (w2+d2&six)&d2&hi == d2&three
}

// le64 is the little-endian word of the first eight bytes of s.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
