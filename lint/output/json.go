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
)

// JSON prints JSON Lines: one compact envelope per line (README, Codes and
// precedence). Map keys are sorted, so output is deterministic. The bytes are
// exactly those of encoding/json with HTML escaping off
// (TestAppendMatchesEncodingJSON), produced without reflection: `agentlint lint`
// renders envelopes in its workers with AppendRecord.
type JSON struct {
	W   io.Writer
	buf []byte
	// pre is the beginning of the last allowed record envelope
	// AppendRecordVerdict wrote (its goroutines share it: read and
	// replaced whole).
	pre atomic.Pointer[recordPrefix]
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
		if pre == nil || pre.file != file || pre.kind != kind || pre.ok != okReason {
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

// appendRecordRest appends what follows the kind of a record envelope
// (AppendRecordVerdict): its line, the first error's pointer and rule, and
// the violations.
func (*JSON) appendRecordRest(dst []byte, first *envelope.Violation, line int, vs []envelope.Violation) []byte {
	if line > 0 {
		dst = append(dst, `,"line":`...)
		dst = appendInt(dst, line)
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
			dst = appendViolation(dst, &vs[i])
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}\n"...)
}

func appendViolation(dst []byte, v *envelope.Violation) []byte {
	dst = append(dst, `{"code":`...)
	dst = appendString(dst, string(v.Code))
	dst = append(dst, `,"rule":`...)
	dst = appendString(dst, v.Rule)
	dst = append(dst, `,"pointer":`...)
	dst = appendString(dst, v.Pointer)
	if v.Line != 0 {
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendInt(dst, int64(v.Line), 10)
	}
	if v.Column != 0 {
		dst = append(dst, `,"column":`...)
		dst = strconv.AppendInt(dst, int64(v.Column), 10)
	}
	dst = append(dst, `,"reason":`...)
	dst = appendString(dst, v.Reason)
	dst = append(dst, `,"severity":`...)
	dst = appendString(dst, string(v.Severity))
	if len(v.Extra) > 0 {
		dst = append(dst, `,"details":`...)
		dst = appendMap(dst, v.Extra)
	}
	return append(dst, '}')
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

func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

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
		return appendArray(dst, v, func(dst []byte, x envelope.Violation) []byte { return appendViolation(dst, &x) })
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

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// escMask flags, with the top bit of its byte, each of the eight bytes of
// s from i that appendString does not copy as it is: a byte outside
// printable ASCII (0x20-0x7e), '"' or '\\'. A byte is flagged when
// (x - 0x20) borrows (below 0x20), (x + 1) reaches the top bit (0x7f), the
// top bit is set (from 0x80), or x XOR '"' or x XOR '\\' has a zero byte.
// Every such byte is flagged, and the lowest flagged byte is one (a
// borrow or carry only flags bytes above the byte it comes from); bytes
// above it may be flagged without being such bytes.
func escMask(s string, i int) uint64 {
	x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((x - lsb*0x20) | (x + lsb) | x | (q-lsb)&^q | (b-lsb)&^b) & msb
}

// appendString appends s as a JSON string exactly as encoding/json does with
// HTML escaping off: '"', '\\' and control characters escaped (\b \f \n \r
// \t by name, the others as \u00XX), invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 as \u2028 and \u2029.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start, n := 0, len(s)
	for i := 0; i < n; {
		// Eight bytes at a time over text that needs no escape (printable
		// ASCII but '"', '\\' and DEL): most of what an envelope quotes.
		// A flagged run goes on at its first flagged byte, which needs an
		// escape; fewer than eight bytes left are checked as the last
		// eight of s, those before i shifted out (a byte flagged there may
		// be one only because of a byte before i: then byte by byte).
		if n-i >= 8 {
			m := escMask(s, i)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if n >= 8 && escMask(s, n-8)>>(8*uint(i-(n-8))) == 0 {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != 0x7f {
				i++
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
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r >= 0x80 && r <= 0x9f { // C1 controls: escaped like C0
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
