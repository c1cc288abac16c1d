package output

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/internal/swar"
)

// JSON prints JSON Lines: one compact envelope per line (README, Codes and
// precedence). Map keys are sorted, so output is deterministic. The bytes are
// exactly those of encoding/json with HTML escaping off
// (TestAppendMatchesEncodingJSON), produced without reflection: `agentlint lint`
// renders envelopes in its workers with AppendRecord. Its Append methods may
// write past the bytes they append, within the spare capacity of dst (up to
// one 16-byte block more): dst's spare capacity must not be in use.
type JSON struct {
	W   io.Writer
	buf []byte
	// pre is the beginning of the last allowed record envelope
	// AppendRecordVerdict wrote (its goroutines share it: read and
	// replaced whole).
	pre atomic.Pointer[recordPrefix]
	// memo remembers the JSON text of what recurs in findings.
	memo findingMemo
}

// recordPrefix is the beginning of the envelope of an allowed record of
// file, of kind, whose OK reason is ok: up to the kind's value.
type recordPrefix struct {
	file, kind, ok string
	b              []byte
}

// Record implements Printer.
func (p *JSON) Record(e envelope.Envelope) error { return p.write(e) }

// Summary implements Printer.
func (p *JSON) Summary(e envelope.Envelope) error { return p.write(e) }

func (p *JSON) write(e envelope.Envelope) error {
	p.buf = p.AppendRecord(p.buf[:0], e)
	_, err := p.W.Write(p.buf)
	return err
}

// AppendRecord implements Appender: it appends e as one compact JSON line.
func (p *JSON) AppendRecord(dst []byte, e envelope.Envelope) []byte {
	return append(AppendEnvelope(dst, e), '\n')
}

// AppendEnvelope appends the compact JSON form of e (no newline), with the
// field order of envelope.Envelope and sorted map keys, as encoding/json
// would marshal it.
func AppendEnvelope(dst []byte, e envelope.Envelope) []byte {
	dst = append(dst, `{"allow":`...)
	dst = strconv.AppendBool(dst, e.Allow)
	dst = append(dst, `,"code":`...)
	dst = appendString(dst, string(e.Code))
	dst = append(dst, `,"reason":`...)
	dst = appendString(dst, e.Reason)
	if len(e.Details) > 0 {
		dst = append(dst, `,"details":`...)
		dst = appendMap(dst, e.Details)
	}
	return append(dst, '}')
}

// AppendRecordVerdict implements RecordAppender: the bytes of AppendRecord
// of the record envelope envelope.Verdict makes of vs, with the details keys
// in sorted order (column, file, kind, line, pointer, rule, violations).
func (p *JSON) AppendRecordVerdict(dst []byte, file, kind, okReason string, line int, vs []envelope.Violation) []byte {
	envelope.Sort(vs)
	var first *envelope.Violation
	if len(vs) > 0 && vs[0].Severity == envelope.SeverityError {
		first = &vs[0]
	}
	if first == nil {
		// The same for every allowed record of a file (most envelopes).
		pre := p.pre.Load()
		if pre == nil || !sameText(pre.file, file) || !sameText(pre.kind, kind) || !sameText(pre.ok, okReason) {
			pre = &recordPrefix{file: file, kind: kind, ok: okReason}
			b := append([]byte(nil), `{"allow":true,"code":`...)
			b = appendString(b, string(envelope.OK))
			b = append(b, `,"reason":`...)
			b = appendString(b, okReason)
			b = append(b, `,"details":{"file":`...)
			b = appendString(b, file)
			b = append(b, `,"kind":`...)
			pre.b = appendString(b, kind)
			p.pre.Store(pre)
		}
		dst = append(dst, pre.b...)
		if len(vs) == 1 && line > 0 && vs[0].Line == line && vs[0].Column != 0 {
			// One finding kept whole (most findings of a log).
			v := &vs[0]
			if e := p.memo.record(v); e != nil && line < 1e8 {
				// The line's digits are stored twice, as a word each time.
				w, d := digits(line)
				if cap(dst)-len(dst) < len(lineKey)+8+len(e.vhead)+8 {
					dst = slices.Grow(dst, len(lineKey)+8+len(e.vhead)+8)
				}
				dst = append(dst, lineKey...)
				l := len(dst)
				store64(unsafe.SliceData(dst), l, w)
				dst = append(dst[:l+d], e.vhead...)
				l = len(dst)
				store64(unsafe.SliceData(dst), l, w)
				dst = dst[:l+d]
				dst = append(dst, `,"column":`...)
				dst = appendInt(dst, v.Column)
				return append(dst, e.vtail...)
			}
		}
		return p.appendRecordRest(dst, nil, line, vs)
	}
	dst = append(dst, `{"allow":false,"code":`...)
	dst = appendString(dst, string(first.Code))
	dst = append(dst, `,"reason":`...)
	dst = appendString(dst, first.Reason)
	dst = append(dst, `,"details":{`...)
	if first.Line > 0 {
		line = first.Line
		dst = append(dst, `"column":`...)
		dst = appendInt(dst, first.Column)
		dst = append(dst, ',')
	}
	dst = append(dst, `"file":`...)
	dst = appendString(dst, file)
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, kind)
	return p.appendRecordRest(dst, first, line, vs)
}

// sameText reports whether a == b, without a call when they are the same
// bytes of memory (the file, kind and OK reason of the records of a file).
func sameText(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// appendRecordRest appends what follows the kind of a record envelope
// (AppendRecordVerdict): its line, the first error's pointer and rule, and
// the violations.
func (p *JSON) appendRecordRest(dst []byte, first *envelope.Violation, line int, vs []envelope.Violation) []byte {
	var ld []byte
	if line > 0 {
		dst = append(dst, lineKey...)
		n := len(dst)
		dst = appendInt(dst, line)
		ld = dst[n:]
	}
	if first != nil {
		dst = append(dst, `,"pointer":`...)
		dst = appendString(dst, first.Pointer)
		dst = append(dst, `,"rule":`...)
		dst = appendString(dst, first.Rule)
	}
	if len(vs) > 0 {
		dst = append(dst, `,"violations":[`...)
		for i := range vs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendViolationLine(dst, &vs[i], &p.memo, line, ld)
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}\n"...)
}

// appendViolation appends v as encoding/json marshals it, its reason and
// details through m (nil: none).
func appendViolation(dst []byte, v *envelope.Violation, m *findingMemo) []byte {
	return appendViolationLine(dst, v, m, 0, nil)
}

// appendViolationLine is appendViolation with the decimal digits ld of
// line (ld nil: none), copied for a finding on that line.
func appendViolationLine(dst []byte, v *envelope.Violation, m *findingMemo, line int, ld []byte) []byte {
	dst = m.appendHead(dst, v)
	if v.Line != 0 {
		if v.Line == line && ld != nil {
			dst = append(dst, ld...)
		} else {
			dst = appendInt(dst, v.Line)
		}
	}
	if v.Column != 0 {
		dst = append(dst, `,"column":`...)
		dst = appendInt(dst, v.Column)
	}
	return m.appendTail(dst, v)
}

// sortedKeys returns the keys of m in byte order, in keys's storage.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendMap(dst []byte, m map[string]any) []byte { return appendObject(dst, m, appendValue) }

// appendObject appends m with sorted keys (nil: null), its values by elem.
func appendObject[V any](dst []byte, m map[string]V, elem func([]byte, V) []byte) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	if len(m) == 1 { // most details of a finding: no keys to sort
		for k, v := range m {
			dst = append(dst, '{')
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = elem(dst, v)
		}
		return append(dst, '}')
	}
	var store [16]string
	dst = append(dst, '{')
	for i, k := range sortedKeys(store[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		dst = elem(dst, m[k])
	}
	return append(dst, '}')
}

// appendArray appends xs (nil: null), its elements by elem.
func appendArray[T any](dst []byte, xs []T, elem func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, x)
	}
	return append(dst, ']')
}

// appendInt appends n in decimal (strconv.AppendInt): when 0 <= n < 1e8
// (lines, columns, counts), its eight digits (leading zeros included) are
// made two at a time into one word, and the word less its leading zeros
// is stored at once.
func appendInt(dst []byte, n int) []byte {
	switch {
	case uint(n) >= 1e8:
		return strconv.AppendInt(dst, int64(n), 10)
	case n < 10:
		return append(dst, byte('0'+n))
	case n < 100:
		return append(dst, digitPairs[n*2], digitPairs[n*2+1])
	case n < 1000:
		lo := n % 100 * 2
		return append(dst, byte('0'+n/100), digitPairs[lo], digitPairs[lo+1])
	}
	if cap(dst)-len(dst) < 8 {
		dst = slices.Grow(dst, 8)
	}
	// digits, written out: its call would cost as much as the rest.
	u := uint(n)
	hi, lo := u/10000, u%10000
	w := pair(hi/100) | pair(hi%100)<<16 | pair(lo/100)<<32 | pair(lo%100)<<48
	t := bits.Len(u) * 1233 >> 12
	d := t + 1
	if u < pow10[t] {
		d = t
	}
	l := len(dst)
	store64(unsafe.SliceData(dst), l, w>>(8*uint(8-d)))
	return dst[:l+d]
}

// digits returns the decimal digits of 0 < n < 1e8 as the low d bytes of a
// little-endian word (the eight digits of n, leading zeros included, made
// two at a time, less the leading zeros).
func digits(n int) (w uint64, d int) {
	u := uint(n)
	hi, lo := u/10000, u%10000
	w = pair(hi/100) | pair(hi%100)<<16 | pair(lo/100)<<32 | pair(lo%100)<<48
	t := bits.Len(u) * 1233 >> 12 // log10(u), or one more
	d = t + 1
	if u < pow10[t] {
		d = t
	}
	return w >> (8 * uint(8-d)), d
}

// pair returns the two decimal digits of x < 100 as the low two bytes of a
// little-endian word.
func pair(x uint) uint64 {
	return uint64(digitPairs[x*2]) | uint64(digitPairs[x*2+1])<<8
}

// pow10 holds the powers of ten below 1e9.
var pow10 = [9]uint{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendValue appends the JSON form of the value types that envelopes hold;
// any other type goes through encoding/json.
func appendValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return appendString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return appendInt(dst, v)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			return strconv.AppendFloat(dst, v, 'f', -1, 64)
		}
	case envelope.Code:
		return appendString(dst, string(v))
	case []envelope.Violation:
		return appendArray(dst, v, func(dst []byte, x envelope.Violation) []byte { return appendViolation(dst, &x, nil) })
	case map[string]any:
		return appendMap(dst, v)
	case map[string]int:
		return appendObject(dst, v, appendInt)
	case []string:
		return appendArray(dst, v, appendString)
	case []any:
		return appendArray(dst, v, appendValue)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return appendString(dst, "unencodable value: "+err.Error())
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}

const hex = "0123456789abcdef"

// lsb and msb are the low and the top bit of each byte of a word.
const (
	lsb = swar.Lsb
	msb = swar.Msb
)

// load64 returns the eight bytes at p+i as a little-endian word.
func load64(p *byte, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(p), i))[:])
}

// load32 returns the four bytes at p+i as a little-endian word.
func load32(p *byte, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(p), i))[:])
}

// escWord flags, with the top bit of its byte, each of the eight bytes of x
// that appendString does not copy as it is: a byte outside printable ASCII
// (0x20-0x7e), '"' or '\\'. A byte is flagged when x - 0x20 borrows (below
// 0x20) or wraps to the top bit (from 0xa0), x + 1 reaches the top bit (0x7f
// to 0xfe), or x XOR '"' or x XOR '\\' minus one borrows (the byte is '"'
// or '\\'). Every such byte is flagged, and the lowest flagged byte is one:
// a printable byte neither borrows nor carries, so a borrow or carry only
// flags bytes above the byte it comes from, which may be flagged without
// being such bytes.
func escWord(x uint64) uint64 {
	return ((x - lsb*0x20) | (x + lsb) | ((x ^ lsb*'"') - lsb) | ((x ^ lsb*'\\') - lsb)) & msb
}

// plainByte reports, for each byte, whether appendString copies it as it
// is: printable ASCII but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// plainRun returns the index of the first byte of s at or after i that
// appendString may not copy as it is (escWord), or len(s): eight bytes at a
// time, the last fewer than eight as the last eight bytes of s (those
// before i shifted out). The byte at the index returned may still be a
// plain one when a byte before i borrowed into it: the caller checks it
// (plainByte) and goes on after it.
func plainRun(s string, i int) int {
	n := len(s)
	p := unsafe.StringData(s)
	// Sixteen bytes at a time, the constants of escWord in registers (the
	// compiler would load each again for every word).
	k := &escConsts
	c20, c01, c22, c5c, c80 := k[0], k[1], k[2], k[3], k[4]
	for ; i <= n-16; i += 16 {
		x, y := load64(p, i), load64(p, i+8)
		mx := ((x - c20) | (x + c01) | ((x ^ c22) - c01) | ((x ^ c5c) - c01)) & c80
		my := ((y - c20) | (y + c01) | ((y ^ c22) - c01) | ((y ^ c5c) - c01)) & c80
		if mx|my != 0 {
			if mx != 0 {
				return i + bits.TrailingZeros64(mx)>>3
			}
			return i + 8 + bits.TrailingZeros64(my)>>3
		}
	}
	if i <= n-8 {
		if m := escWord(load64(p, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	if i >= n {
		return n
	}
	if n >= 8 {
		m := escWord(load64(p, n-8)) >> (8 * uint(i-(n-8)))
		if m == 0 {
			return n
		}
		return i + bits.TrailingZeros64(m)>>3
	}
	for i < n && plainByte[s[i]] {
		i++
	}
	return i
}

// escConsts are escWord's constants, read into registers by plainRun.
var escConsts = [5]uint64{lsb * 0x20, lsb, lsb * '"', lsb * '\\', msb}

// appendString appends s as a JSON string exactly as encoding/json does with
// HTML escaping off: '"', '\\' and control characters escaped (\b \f \n \r
// \t by name, the others as \u00XX), invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 as \u2028 and \u2029; DEL and the C1 controls are escaped as
// \u007f-\u009f too (escapeJSONControls).
func appendString(dst []byte, s string) []byte {
	var i int
	if n := len(s); n >= 4 && n <= 16 {
		// Most strings of an envelope (codes, rules, pointers, keys): the
		// whole of s as two words (overlapping), else plainRun.
		p := unsafe.StringData(s)
		var x, y uint64
		if n >= 8 {
			x, y = load64(p, 0), load64(p, n-8)
		} else {
			x = uint64(load32(p, 0)) | uint64(load32(p, n-4))<<32
		}
		if escWord(x)|escWord(y) == 0 {
			i = n
		} else {
			i = plainRun(s, 0)
		}
	} else if n > 16 {
		return appendLong(dst, s)
	} else {
		i = plainRun(s, 0)
	}
	dst = append(dst, '"')
	if i < len(s) {
		return appendEscaped(dst, s, 0, i)
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// store64 writes x at p+i as eight little-endian bytes.
func store64(p *byte, i int, x uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(unsafe.Pointer(p), i))[:], x)
}

// copyEscape16Go is copyEscape16 in Go (escWord, two words at a time),
// which leaves the last fewer than 16 bytes to the caller.
func copyEscape16Go(dst *byte, room int, src *byte, n int) (i, o int) {
	k := &escConsts
	c20, c01, c22, c5c, c80 := k[0], k[1], k[2], k[3], k[4]
	for i <= n-16 {
		x, y := load64(src, i), load64(src, i+8)
		store64(dst, o, x)
		store64(dst, o+8, y)
		mx := ((x - c20) | (x + c01) | ((x ^ c22) - c01) | ((x ^ c5c) - c01)) & c80
		my := ((y - c20) | (y + c01) | ((y ^ c22) - c01) | ((y ^ c5c) - c01)) & c80
		if mx|my == 0 {
			i += 16
			o += 16
			continue
		}
		j := 8 + bits.TrailingZeros64(my)>>3
		if mx != 0 {
			j = bits.TrailingZeros64(mx) >> 3
		}
		i += j
		o += j
		b := *(*byte)(unsafe.Add(unsafe.Pointer(src), i))
		if b != '"' && b != '\\' || room-o < n-i+18 {
			break
		}
		*(*byte)(unsafe.Add(unsafe.Pointer(dst), o)) = '\\'
		*(*byte)(unsafe.Add(unsafe.Pointer(dst), o+1)) = b
		o += 2
		i++
	}
	return i, o
}

// appendLong is appendString of a string of more than 16 bytes: it copies
// and scans s in one pass (copyEscape16, then the last word), and escapes
// the ASCII bytes that need it in place; from the first byte outside ASCII
// on, appendEscaped goes on. It keeps room in dst for the rest of s, the
// closing quote and one block more (so that a block or the last word may be
// stored whole): n-i+17 bytes from o on, where i is the next byte of s and
// o where it goes.
func appendLong(dst []byte, s string) []byte {
	n := len(s)
	if cap(dst)-len(dst) < n+18 {
		dst = slices.Grow(dst, n+18)
	}
	o := len(dst)
	dst = dst[:cap(dst)]
	dst[o] = '"'
	o++
	p, d := unsafe.StringData(s), unsafe.SliceData(dst)
	i := 0
	for {
		var j int
		if i <= n-16 {
			di, do := copyEscape16((*byte)(unsafe.Add(unsafe.Pointer(d), o)), cap(dst)-o, (*byte)(unsafe.Add(unsafe.Pointer(p), i)), n-i)
			i += di
			o += do
			if i > n-16 {
				continue
			}
		} else if i <= n-8 {
			x := load64(p, i)
			store64(d, o, x)
			m := escWord(x)
			if m == 0 {
				i += 8
				o += 8
				continue
			}
			j = bits.TrailingZeros64(m) >> 3
		} else if i < n {
			// The last bytes, as the top of the last word of s.
			sh := 8 * uint(i-(n-8))
			x := load64(p, n-8)
			store64(d, o, x>>sh)
			m := escWord(x) >> sh
			if m == 0 {
				o += n - i
				break
			}
			j = bits.TrailingZeros64(m) >> 3
		} else {
			break
		}
		i += j
		o += j
		b := s[i]
		if b >= utf8.RuneSelf {
			return appendEscaped(dst[:o], s, i, i)
		}
		if plainByte[b] { // flagged only through a borrow: stored already
			i++
			o++
			continue
		}
		if cap(dst)-o < n-i+22 {
			dst = slices.Grow(dst[:o], n-i+22)
			dst = dst[:cap(dst)]
			d = unsafe.SliceData(dst)
		}
		switch b {
		case '\\', '"':
			dst[o], dst[o+1] = '\\', b
		case '\b':
			dst[o], dst[o+1] = '\\', 'b'
		case '\f':
			dst[o], dst[o+1] = '\\', 'f'
		case '\n':
			dst[o], dst[o+1] = '\\', 'n'
		case '\r':
			dst[o], dst[o+1] = '\\', 'r'
		case '\t':
			dst[o], dst[o+1] = '\\', 't'
		default:
			copy(dst[o:o+6], []byte{'\\', 'u', '0', '0', hex[b>>4], hex[b&0xF]})
			o += 4
		}
		o += 2
		i++
	}
	dst[o] = '"'
	return dst[:o+1]
}

// appendEscaped is appendString from s[i] on, a byte that may need an
// escape; dst ends with the opening quote and s[:start] as appendString
// writes it.
func appendEscaped(dst []byte, s string, start, i int) []byte {
	n := len(s)
	for i < n {
		b := s[i]
		if b < utf8.RuneSelf {
			if plainByte[b] { // flagged only through a borrow (plainRun)
				i = plainRun(s, i+1)
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			i = plainRun(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case r >= 0x80 && r <= 0x9f: // C1 controls: escaped like C0
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
			start = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i = plainRun(s, i+size)
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
