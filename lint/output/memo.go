package output

import (
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/agentlint/agentlint/lint/envelope"
)

// findingMemo remembers the JSON text of what recurs in findings, so that
// it is copied instead of escaped again: the beginning of a rule's
// findings (appendHead), the key of its details (appendDetails), and long
// strings that recur at the same address, such as the reason a rule shares
// between its findings (CL010's, one per event type), with the end of the
// finding's JSON text and of its record's envelope (memoEntry.tail, vhead,
// vtail) when its details are simple. A long string seen twice in a row in
// its slot is kept. A slot is found by the string's data
// pointer and length, but used only when the string equals (byte for
// byte) the copy it holds, so memory used again for other text is never
// mistaken for it. Its goroutines share it: slots hold immutable entries
// (copies of the strings, never the caller's memory), read and replaced
// whole; at most memoSlots strings and 16 beginnings and keys.
type findingMemo struct {
	slots [memoSlots]atomic.Pointer[memoEntry]
	// seen is the key of the last string not found in the slot.
	seen [memoSlots]atomic.Uint64
	// keys are details keys by rule (appendDetails).
	keys [16]atomic.Pointer[detailKey]
	// heads are the beginnings of findings by rule (appendHead).
	heads [16]atomic.Pointer[findingHead]
}

// findingHead is the beginning of the JSON text of a finding of code,
// rule and pointer, up to the key of its line:
// {"code":…,"rule":…,"pointer":…,"line":
type findingHead struct {
	code, rule, pointer string
	b                   []byte
}

// lineKey follows the pointer of a finding that has a line.
const lineKey = `,"line":`

// appendHead appends the beginning of the JSON text of v (findingHead),
// with the key of its line when it has one: copied when the first finding
// its rule's slot holds has v's code, rule and pointer (most rules report
// one pointer), else written. A slot keeps the first finding of a rule it
// held, so that a rule of many pointers does not replace it at every
// finding.
func (m *findingMemo) appendHead(dst []byte, v *envelope.Violation) []byte {
	if m == nil {
		dst = appendHead(dst, v)
		if v.Line != 0 {
			dst = append(dst, lineKey...)
		}
		return dst
	}
	h := keySlot(v.Rule)
	e := m.heads[h].Load()
	if e != nil && same(e.rule, v.Rule) && same(e.pointer, v.Pointer) && same(e.code, string(v.Code)) {
		if v.Line != 0 {
			return append(dst, e.b...)
		}
		return append(dst, e.b[:len(e.b)-len(lineKey)]...)
	}
	n := len(dst)
	dst = append(appendHead(dst, v), lineKey...)
	if (e == nil || e.rule != v.Rule) && len(v.Rule)+len(v.Pointer)+len(v.Code) <= memoMax {
		m.heads[h].Store(&findingHead{code: strings.Clone(string(v.Code)), rule: strings.Clone(v.Rule),
			pointer: strings.Clone(v.Pointer), b: slices.Clone(dst[n:])})
	}
	if v.Line == 0 {
		dst = dst[:len(dst)-len(lineKey)]
	}
	return dst
}

// appendHead appends {"code":…,"rule":…,"pointer":… of v.
func appendHead(dst []byte, v *envelope.Violation) []byte {
	dst = append(dst, `{"code":`...)
	dst = appendString(dst, string(v.Code))
	dst = append(dst, `,"rule":`...)
	dst = appendString(dst, v.Rule)
	dst = append(dst, `,"pointer":`...)
	return appendString(dst, v.Pointer)
}

const (
	memoBits  = 8
	memoSlots = 1 << memoBits
	memoMin   = 64 // shorter strings are escaped each time
	// memoMax bounds the strings the memo keeps (longer ones are escaped
	// each time), and so its size.
	memoMax = 1024
)

// memoEntry is a string findingMemo keeps: its key (memoKey) when stored,
// a copy of it, and its JSON text; tail, when not nil, is the end of the
// JSON text of the finding it was kept for, from the key of its reason on
// (,"reason":…,"severity":…[,"details":…]}), of severity warning (sevError
// false) or error (sevError true) and details of
// none (dkey "") or one key dkey with the string value dval.
//
// When tail is kept, so is the rest of the JSON text of a record envelope
// whose one finding that is: vhead, the beginning of the violations up to
// the finding's line (,"violations":[{"code":…,"rule":…,"pointer":…,"line":),
// for a finding of code, rule and pointer, and vtail, tail and the end of
// the envelope (]}}, newline).
type memoEntry struct {
	key                 uint64
	src                 string
	q                   []byte
	tail                []byte
	sevError            bool
	dkey, dval          string
	code, rule, pointer string
	vhead, vtail        []byte
}

// same reports whether a == b: strings of 4 to 16 bytes (most codes,
// rules, pointers and details values) compared as two words each, without
// a call, where words may be read at any address (unalignedWords).
func same(a, b string) bool {
	n := len(a)
	if !unalignedWords || n < 4 || n > 16 || n != len(b) {
		return a == b
	}
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b))
	if n < 8 {
		return *(*uint32)(pa) == *(*uint32)(pb) && *(*uint32)(unsafe.Add(pa, n-4)) == *(*uint32)(unsafe.Add(pb, n-4))
	}
	return *(*uint64)(pa) == *(*uint64)(pb) && *(*uint64)(unsafe.Add(pa, n-8)) == *(*uint64)(unsafe.Add(pb, n-8))
}

// memoKey is the data pointer of s with its length in the top bits.
func memoKey(s string) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))) ^ uint64(len(s))<<48
}

// tailOf reports whether the end of the JSON text of v can be kept with its
// reason (memoEntry.tail): severity warning or error, details of none or one
// key with a string value; and their key and value (each at most memoMax
// bytes).
func tailOf(v *envelope.Violation) (ok bool, key, val string) {
	if v.Severity != envelope.SeverityWarning && v.Severity != envelope.SeverityError {
		return false, "", ""
	}
	if len(v.Extra) == 0 {
		return true, "", ""
	}
	if len(v.Extra) > 1 {
		return false, "", ""
	}
	for k, x := range v.Extra {
		key = k
		val, ok = x.(string)
	}
	return ok && key != "" && len(key) <= memoMax && len(val) <= memoMax, key, val
}

// sameTail reports whether v's severity and details are those e's tail
// was written for (v's reason is e's string).
func (e *memoEntry) sameTail(v *envelope.Violation) bool {
	if e.tail == nil || e.sevError && v.Severity != envelope.SeverityError || !e.sevError && v.Severity != envelope.SeverityWarning {
		return false
	}
	if e.dkey == "" {
		return len(v.Extra) == 0
	}
	if len(v.Extra) != 1 {
		return false
	}
	x, ok := v.Extra[e.dkey].(string)
	return ok && same(x, e.dval)
}

// appendTail appends the end of the JSON text of the finding v from the
// key of its reason on (,"reason":…,"severity":…[,"details":…]}), its
// reason through the memo (m nil: none): copied whole when v's reason is
// kept with the severity and details v has (memoEntry.tail), its reason
// copied when kept with others. A reason is kept the second time in a row
// its slot sees it, with the severity and details of that finding.
func (m *findingMemo) appendTail(dst []byte, v *envelope.Violation) []byte {
	s := v.Reason
	if m == nil || len(s) < memoMin || len(s) > memoMax {
		dst = append(dst, `,"reason":`...)
		dst = appendString(dst, s)
		return appendSeverityDetails(dst, v, m)
	}
	k := memoKey(s)
	h := (k * 0x9e3779b97f4a7c15) >> (64 - memoBits)
	e := m.slots[h].Load()
	if e != nil && e.key == k && e.src == s {
		if e.sameTail(v) {
			return append(dst, e.tail...)
		}
		dst = append(dst, `,"reason":`...)
		dst = append(dst, e.q...)
		return appendSeverityDetails(dst, v, m)
	}
	n := len(dst)
	dst = append(dst, `,"reason":`...)
	q0 := len(dst)
	dst = appendString(dst, s)
	q1 := len(dst)
	dst = appendSeverityDetails(dst, v, m)
	if m.seen[h].Load() != k {
		m.seen[h].Store(k)
		return dst
	}
	if e == nil || e.key != k { // (a string whose text changes in place stays out)
		ne := &memoEntry{key: k, src: strings.Clone(s), q: slices.Clone(dst[q0:q1])}
		if ok, key, val := tailOf(v); ok {
			ne.tail, ne.sevError = slices.Clone(dst[n:]), v.Severity == envelope.SeverityError
			ne.dkey, ne.dval = strings.Clone(key), strings.Clone(val)
			if len(v.Rule)+len(v.Pointer)+len(v.Code) <= memoMax {
				ne.code, ne.rule, ne.pointer = strings.Clone(string(v.Code)), strings.Clone(v.Rule), strings.Clone(v.Pointer)
				ne.vhead = append(appendHead([]byte(`,"violations":[`), v), lineKey...)
				ne.vtail = append(slices.Clip(ne.tail), "]}}\n"...)
			}
		}
		m.slots[h].Store(ne)
	}
	return dst
}

// record returns the entry that keeps the end of the JSON text of a record
// envelope whose one finding is v (memoEntry.vhead and vtail), or nil.
func (m *findingMemo) record(v *envelope.Violation) *memoEntry {
	s := v.Reason
	if len(s) < memoMin || len(s) > memoMax {
		return nil
	}
	k := memoKey(s)
	e := m.slots[(k*0x9e3779b97f4a7c15)>>(64-memoBits)].Load()
	if e == nil || e.key != k || e.vhead == nil || e.src != s || !same(e.rule, v.Rule) || !same(e.pointer, v.Pointer) ||
		!same(e.code, string(v.Code)) || !e.sameTail(v) {
		return nil
	}
	return e
}

// appendSeverityDetails appends the severity and details of the finding
// v and the closing brace of its JSON text.
func appendSeverityDetails(dst []byte, v *envelope.Violation, m *findingMemo) []byte {
	switch v.Severity {
	case envelope.SeverityWarning:
		dst = append(dst, `,"severity":"warning"`...)
	case envelope.SeverityError:
		dst = append(dst, `,"severity":"error"`...)
	default:
		dst = append(dst, `,"severity":`...)
		dst = appendString(dst, string(v.Severity))
	}
	if len(v.Extra) > 0 {
		dst = append(dst, `,"details":`...)
		dst = m.appendDetails(dst, v.Rule, v.Extra)
	}
	return append(dst, '}')
}

// detailKey is the one key of the last details of one key that a rule's
// finding had, as details begin: {"key":
type detailKey struct {
	key   string
	begin []byte
}

// keySlot is the slot of findingMemo.keys of rule.
func keySlot(rule string) int {
	n := len(rule)
	if n < 2 {
		return n
	}
	return (n*31 + int(rule[n-1]) + int(rule[n-2])*7) & (len(findingMemo{}.keys) - 1)
}

// appendDetails appends the details d of a finding of rule as
// encoding/json marshals them. Details of one key (most findings') are
// looked up by the key the rule's last such details had (m.keys), when
// there is one, instead of walked: a map of length one that holds that key
// holds nothing else.
func (m *findingMemo) appendDetails(dst []byte, rule string, d map[string]any) []byte {
	if m == nil || len(d) != 1 {
		return appendMap(dst, d)
	}
	h := keySlot(rule)
	if k := m.keys[h].Load(); k != nil {
		if x, ok := d[k.key]; ok {
			dst = append(dst, k.begin...)
			dst = appendValue(dst, x)
			return append(dst, '}')
		}
	}
	for key := range d {
		if len(key) > memoMax {
			break
		}
		k := &detailKey{key: strings.Clone(key)}
		k.begin = append(appendString([]byte{'{'}, key), ':')
		m.keys[h].Store(k)
	}
	return appendMap(dst, d)
}
