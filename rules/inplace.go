package rules

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/agentlint/agentlint/lint/fast"
)

// Reading a record's nested values in place. A document rule whose record
// came in place (Doc.Flat: a JSON Lines record that is valid JSON, its
// declared values where its kind's acceptor recorded them or found by a
// scan when it declined the record) reads the JSON text of the values it
// declared and, inside them,
// members and elements with the scanners below, which decline (ok false)
// whatever they do not read exactly as decoding would: an escaped member
// name, a repeated one, text that is not well formed. Such a rule decides
// in place only that the record has no finding; when it may have one, or a
// scanner declined, it reads the decoded form (Doc.Root) as it does for
// every other record, so a finding is built, worded and placed one way.

// A rule that reads many values (the operator rules: lock resources,
// untrusted strings) reads them through accessors that give the values in
// place while the record is read in place and the decoded ones once Root
// has been called, and has one check over them: inPlaceFirst runs that
// check first in place with a probe (a Reporter that keeps nothing), and
// only when the probe notes a finding, or the values could not be read in
// place, decodes the record and runs the check again to report.

// inPlace reports whether d's values are read in place (Doc.Flat, nothing
// decoded yet).
func (d *Doc) inPlace() bool { return d.Value == nil && d.Flat != nil }

// flatOf returns the declared value at ptr of a record read in place, or
// nil when the record has none.
func (d *Doc) flatOf(ptr string) *Flat {
	for i := range d.Flat {
		if d.Flat[i].Pointer == ptr {
			return &d.Flat[i]
		}
	}
	return nil
}

// flatRaw returns the JSON text of the declared value at ptr of a record
// read in place, and whether the record has it.
func (d *Doc) flatRaw(ptr string) ([]byte, bool) {
	for i := range d.Flat {
		if d.Flat[i].Pointer == ptr {
			return d.Flat[i].Raw, true
		}
	}
	return nil, false
}

// rawMembers calls fn with the name and the JSON text of each member of
// the object raw, in order, until fn returns false; is reports whether raw
// is an object. ok is false (declined) when the object is not well formed
// (nothing but white space may follow it) or objectMembers declines.
func rawMembers(raw []byte, fn func(name, val []byte) bool) (ok, is bool) {
	i := fast.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return true, false
	}
	end, ok := objectMembers(raw, i, func(name, val []byte, _ int) bool { return fn(name, val) })
	switch {
	case !ok:
		return false, true
	case end < 0: // fn stopped
		return true, true
	}
	return fast.SkipWS(raw, end) == len(raw), true
}

// objectMembers reads the object at raw[i] == '{' and calls fn with the
// name, the JSON text and the offset in raw of each member's value, in
// order, until fn returns false (end is then -1). end is the index after
// the object. ok is false (declined) when the object is not well formed
// or has a member name with an escape, a repeated one (the decoder
// rejects it) or more than 32.
func objectMembers(raw []byte, i int, fn func(name, val []byte, at int) bool) (end int, ok bool) {
	i = fast.SkipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return i + 1, true
	}
	var names [32][]byte
	n := 0
	for {
		if i >= len(raw) || raw[i] != '"' {
			return 0, false
		}
		k := fast.SkipString(raw, i)
		if k < 0 || bytes.IndexByte(raw[i:k], '\\') >= 0 || n == len(names) {
			return 0, false
		}
		name := raw[i+1 : k-1]
		for _, x := range names[:n] {
			if string(x) == string(name) {
				return 0, false
			}
		}
		names[n], n = name, n+1
		if i = fast.SkipWS(raw, k); i >= len(raw) || raw[i] != ':' {
			return 0, false
		}
		v := fast.SkipWS(raw, i+1)
		e := fast.SkipValue(raw, v)
		if e < 0 {
			return 0, false
		}
		if !fn(name, raw[v:e], v) {
			return -1, true
		}
		var more bool
		if i, more = fast.Next(raw, e, '}'); i < 0 {
			return 0, false
		} else if !more {
			return i, true
		}
	}
}

// rawString returns the content of the JSON string raw when it has no
// escape (the bytes of raw: valid while raw is); str is false for any
// other value, plain false when it is a string with an escape (declined).
func rawString(raw []byte) (s string, str, plain bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false, true
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 {
		return "", true, false
	}
	return unsafe.String(unsafe.SliceData(in), len(in)), true, true
}

// rawNumber returns the value of the JSON number raw as decoding gives it
// (float64), and false for any other value or a number it cannot hold.
func rawNumber(raw []byte) (float64, bool) {
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, false
	}
	if len(raw) <= 15 { // digits only: an integer float64 holds exactly
		n := 0
		for _, c := range raw {
			if c < '0' || c > '9' {
				n = -1
				break
			}
			n = n*10 + int(c-'0')
		}
		if n >= 0 {
			return float64(n), true
		}
	}
	n, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(raw), len(raw)), 64)
	return n, err == nil
}

// rawMember returns the JSON text of member name of the object raw:
// found is false when raw is not an object or has no such member; ok is
// false when rawMembers declined.
func rawMember(raw []byte, name string) (val []byte, found, ok bool) {
	ok, _ = rawMembers(raw, func(n, v []byte) bool {
		if string(n) == name {
			val, found = v, true
		}
		return true // on to the end: a repeat declines
	})
	return val, found && ok, ok
}

// flatAt returns the JSON text of the value at ptr of a record read in
// place; ptr is a JSON Pointer of member names at or under a pointer the
// rule declared (Rule.Fields: a declared value the record lacks is not in
// Doc.Flat, so any other pointer reads as absent). found is false when the
// record has no value there; ok is false when a scanner declined, ptr has
// "*" or ptr is a parent of the declared values.
func (d *Doc) flatAt(ptr string) (val []byte, found, ok bool) {
	for i := range d.Flat {
		f := &d.Flat[i]
		if f.Pointer == ptr {
			return f.Raw, true, true
		}
		rest, under := strings.CutPrefix(ptr, f.Pointer)
		if !under || rest == "" || rest[0] != '/' {
			continue
		}
		var buf [8]string
		toks, _ := appendPointerTokens(buf[:0], rest)
		val = f.Raw
		for _, t := range toks {
			if t == "*" {
				return nil, false, false
			}
			if val, found, ok = rawMember(val, t); !found || !ok {
				return nil, false, ok
			}
		}
		return val, true, true
	}
	if strings.Contains(ptr, "*") {
		return nil, false, false
	}
	for i := range d.Flat {
		if strings.HasPrefix(d.Flat[i].Pointer, ptr+"/") {
			return nil, false, false // a parent of a declared value: not read
		}
	}
	return nil, false, true
}

// rawElements calls fn with the index and the JSON text of each element of
// the array raw, in order, until fn returns false; is reports whether raw
// is an array. ok is false (declined) when the array is not well formed
// (nothing but white space may follow it).
func rawElements(raw []byte, fn func(i int, val []byte) bool) (ok, is bool) {
	i := fast.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return true, false
	}
	if i = fast.SkipWS(raw, i+1); i < len(raw) && raw[i] == ']' {
		return fast.SkipWS(raw, i+1) == len(raw), true
	}
	for n := 0; ; n++ {
		e := fast.SkipValue(raw, i)
		if e < 0 {
			return false, true
		}
		if !fn(n, raw[i:e]) {
			return true, true
		}
		var more bool
		if i, more = fast.Next(raw, e, ']'); i < 0 {
			return false, true
		} else if !more {
			return fast.SkipWS(raw, i) == len(raw), true
		}
	}
}

// inPlaceState is the state of the rules that read a record in place,
// which a Runner keeps from one record to the next and lends to the
// document it runs (Doc.ip), so that a record read in place with no
// finding costs no allocation.
type inPlaceState struct {
	probe  Reporter
	hit    bool
	op     opFlat // the operator rules' values (opFlatOf)
	digest []byte // scratch of idleDigestFromElems
	// str is the answer of the record's last Doc.DocStr, for the pointer
	// strPtr ("": none): several rules of a kind read the same string
	// (a VerMAS event's event_type).
	strPtr, str string
	strOK       bool
}

// reset forgets the values of the last record (its buffers are kept).
func (s *inPlaceState) reset() { s.op.done, s.strPtr = false, "" }

// maxKept bounds the elements of a buffer kept from one record to the
// next: a larger one (a ledger of ten thousand tasks the replayer
// validates once) is dropped after its record, not held for the run.
const maxKept = 1024

// release drops the buffers of the last record that exceed maxKept.
func (s *inPlaceState) release() {
	if s.op.done { // otherwise no buffer grew since the last release
		s.op.release()
	}
}

// ipState returns the in-place state of d: the Runner's, or one of its own
// when its rules are called without a Runner.
func (d *Doc) ipState() *inPlaceState {
	if d.ip == nil {
		d.ip = &inPlaceState{}
	}
	return d.ip
}

// noFindingInPlace runs check on d, a record read in place, with a probe
// (a Reporter that keeps nothing and says it only counts) and reports
// whether check reported nothing.
func (d *Doc) noFindingInPlace(r *Reporter, check func(*Doc, *Reporter)) bool {
	s := d.ipState()
	s.hit = false
	s.probe = Reporter{rule: r.rule, hit: &s.hit}
	check(d, &s.probe)
	return !s.hit
}

// inPlaceFirst returns the Check of a rule made of check, which reads its
// values through accessors that read a record in place while it is
// (Doc.inPlace) and the decoded form once Root has been called, and of
// read, which reports whether they could read d's values in place (no
// scanner declined). On a record read in place whose values read could
// read, check runs first with a probe and, when it finds nothing, that is
// the verdict; otherwise the record is decoded and check runs again on the
// decoded form, which builds, words and places every finding.
func inPlaceFirst(read func(*Doc) bool, check func(*Doc, *Reporter)) func(*Doc, *Reporter) {
	return func(d *Doc, r *Reporter) {
		if d.inPlace() && read(d) && d.noFindingInPlace(r, check) {
			return
		}
		d.Root()
		check(d, r)
	}
}
