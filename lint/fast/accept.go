package fast

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/agentlint/agentlint/lint/internal/swar"
	"github.com/go-json-experiment/json/jsontext"
)

// Acceptors: the one-pass form of the generated validators.
//
// A validator (Validators) reads a record token by token and reports every
// violation with its pointer, position and reason. Most records of a log
// have none, so every kind also has an acceptor, generated from the same
// model (lint/schema): one pass over the record's bytes that checks the
// grammar and every constraint of the kind as it goes, with no tokenizer,
// no path, no panic and no allocation, and that answers only "certainly
// valid" or "not sure". On "not sure" the engine runs the validator, which
// then names the violations, so an acceptor need only be right when it
// accepts: it accepts a text only if the validator, with the same Strict
// setting, reports no violation at all. It declines (returns -1) on
// everything else and on the rare shapes it leaves to the validator:
// escaped member names, objects of more than maxAccNames undeclared
// members and nesting deeper than maxAccDepth. A sibling bound is checked
// on the two members' literals (RefHolds). TestAcceptAgreement and FuzzAccept
// hold every acceptor to its validator.
//
// While it checks, an acceptor records where the value of every declared
// member outside arrays starts and ends (Acc.Spans, in the capture slots
// of Acceptor.Fields), so that the document rules and the stream rules read
// their values from those spans instead of scanning the record again.

// AcceptFunc checks the value that starts at b[i] (not white space) and
// returns the index just after it, or -1 when it declines.
type AcceptFunc func(a *Acc, b []byte, i int) int

// Acceptor is the acceptor of one kind and the JSON Pointers of its
// capture slots: Fields[s] is the member whose value slot s records
// (declared members outside arrays, and the members that the declarations
// under conditions of a member declare inside its value: the slots of
// Cond).
type Acceptor struct {
	Func   AcceptFunc
	Fields []string
	// Cond has bit s set when slot s is a member inside the value of a
	// member declared under conditions (a VerMAS event's /data/title,
	// declared by the work_order.created event of seed 000 "Event
	// Types"): it is recorded only when the declaration that holds for the
	// record declares it (Acc.Decl has the bit of that member's slot), so
	// its slot being empty does not mean the record lacks it unless
	// Acc.Decl says that declaration read the value and Acc.Loose is
	// false.
	Cond uint64
	// Names are the member names the kind's top-level object declares,
	// under conditions too: a member of another name is undeclared (and
	// recorded when Acc.Want names it).
	Names []string
	// ElemNames are, per top-level member whose value is an array of
	// objects, the member names those objects declare, by their index
	// (ElemSpan.Member; Acc.WantElems).
	ElemNames map[string][]string
}

// ElemSpan is one thing the acceptor recorded of the objects of a
// top-level array (Acc.WantElems): the start of an object of the array
// (Member ElemObject; Start is its '{'), or the value of a member of the
// last object started (Member is its index in the Acceptor's ElemNames of
// the array's member). Top is the array's member, by its index in the
// Acceptor's Names.
type ElemSpan struct {
	Top, Member uint8
	Span32
}

// ElemObject is ElemSpan.Member of the start of an object.
const ElemObject = 0xff

// maxKeptElems bounds the Elems kept from one record to the next.
const maxKeptElems = 1 << 14

// MaxCaptures is the most capture slots a kind has; members declared
// beyond it are checked but not recorded.
const MaxCaptures = 64

// Span32 is a byte range [Start, End) of a record.
type Span32 struct{ Start, End int32 }

// Acc is the state of acceptance runs; reuse one per goroutine (it is not
// safe for concurrent use).
type Acc struct {
	// Strict declines undeclared members that are not x_ extensions where
	// the definition is closed (the validator's Dec.Strict).
	Strict bool
	// Got has bit s set when slot s was recorded by the last Accept;
	// Spans[s] is then the byte range of that member's value (a string
	// with its quotes).
	Got   uint64
	Spans [MaxCaptures]Span32
	// Decl has bit s set when the last Accept read the value of the
	// member of slot s, one declared under conditions, with a
	// declaration that records the members it declares inside it (in
	// slots of Acceptor.Cond).
	Decl uint64
	// Loose is set by Accept when the record has a member its definition
	// does not declare where it is (Undeclared) or an object its
	// definition does not type (Any): such a member may have the name of
	// a slot of Acceptor.Cond that another declaration declares, so the
	// slots of Acceptor.Cond are then not the whole truth.
	Loose bool
	// Want names undeclared members of the top-level object whose values
	// the caller needs too (document rules that declare a member the
	// kind's definition does not, e.g. a secret scan of every operator
	// kind): member Want[k] is recorded in slot MaxCaptures-1-k. The
	// kind's own slots and these must not overlap.
	Want []string
	// WantElems has bit k set when the caller needs the objects of the
	// array that is the value of the top-level member Names[k] (its
	// Acceptor's ElemNames names their members): Accept records in Elems,
	// in order, the start of each object that is an element of that array
	// and the value of each member of it that the object's definition
	// declares (read as declared, not as an undeclared member where a
	// condition does not declare it). An array read by a declaration that
	// does not type its elements as those objects (a declaration under
	// other conditions) records nothing. The idle STATE's stack frames
	// are read so (seed 002 section 5: their ids and iters, for IL009,
	// IL012, IL015 and IL101).
	WantElems uint64
	// Elems is what the last Accept recorded for WantElems, in record
	// order (offsets in the record); reused by the next Accept.
	Elems   []ElemSpan
	elemTop int // the wanted top-level member whose objects are being recorded, or -1
	// Wide is set by Accept when the record holds a number with an
	// exponent or of more than 300 characters (Acc.Num): only such a number
	// can lie beyond float64's range, which decoding the value rejects.
	Wide bool
	// names holds the undeclared member names of the objects being read,
	// as ranges of the record, for the duplicate check.
	names   []Span32
	scratch []byte
	depth   int
	conds   Dec // its buf and scratch, for Conds
	// memo holds the conditions CondsFrom found for values of the
	// single discriminators of CondSets (an idle STATE's event and its
	// frames' modes, a VerMAS event's event_type: the same few values
	// record after record, nineteen event types for VerMAS), each in the
	// first free entry from that of a hash of its CondSet and value
	// (condMemoSlot) on, up to condMemos/2 of them (memoN; then it is
	// emptied); nil until the first use. No value pushes another out
	// while it has room: whether a value is found does not depend on
	// which others share its hash (nor on where the CondSets lie in
	// memory).
	memo  *[condMemos]condMemo
	memoN int
	// elems holds, per index of an element of a recorded array (below
	// elemMemos), the last such element MemoElem saw accepted.
	elems [elemMemos]elemMemo
}

// elemMemos is the number of elements of an array MemoElem remembers (the
// first ones); maxMemoElem the longest element it keeps.
const (
	elemMemos   = 4
	maxMemoElem = 1024
)

// elemMemo is an element of an array that an element acceptor accepted
// (MemoElem): its text, its acceptor (its func value; nil: none), the state
// the acceptance depended on (nesting depth, Strict, the array being
// recorded), and what it did besides: its entries of Elems (offsets from
// the element's start) and whether it set Wide.
type elemMemo struct {
	fn           unsafe.Pointer
	depth, top   int
	strict, wide bool
	misses       uint8 // since the last hit
	text         []byte
	elems        []ElemSpan
}

// condMemos is the size of Acc.memo (a power of two), twice the most
// values it holds; condMemoLen the longest value it holds.
const (
	condMemos   = 64
	condMemoLen = 32
)

// condMemoSlot returns the entry of Acc.memo where the search for the
// value v (at most condMemoLen bytes) of the discriminator of cs starts.
func condMemoSlot(cs *CondSet, v []byte) uint {
	h := uint64(uintptr(unsafe.Pointer(cs)))>>4 ^ uint64(len(v))<<56
	if len(v) >= 8 {
		h ^= binary.LittleEndian.Uint64(v) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(v[len(v)-8:]), 29)
	} else {
		for i, c := range v {
			h ^= uint64(c) << (8 * i)
		}
	}
	return uint((h * 0x9e3779b97f4a7c15) >> (64 - condMemoBits))
}

// condMemoBits is the base-2 logarithm of condMemos.
const condMemoBits = 6

// condMemo is what CondsFrom found for a CondSet of one discriminator:
// m, when the discriminator is absent (!found) or its value is val[:n].
type condMemo struct {
	cs    *CondSet
	found bool
	n     uint8
	val   [condMemoLen]byte
	m     uint64
}

// maxAccNames is the most undeclared members per object an acceptor
// checks for duplicates; maxAccDepth the deepest nesting it reads.
const (
	maxAccNames = 32
	maxAccDepth = 64
)

// Accept reports whether the JSON text b is certainly a valid record for
// acc (one value, surrounded by JSON white space only, satisfying every
// constraint of its kind): see the package's acceptor notes. It records the
// declared members' spans in a.Spans and a.Got.
func (a *Acc) Accept(acc *Acceptor, b []byte) bool {
	a.Got, a.Decl, a.Loose = 0, 0, false
	a.Wide = false
	a.names = a.names[:0]
	a.depth = 0
	if cap(a.Elems) > maxKeptElems {
		a.Elems = nil
	}
	a.Elems, a.elemTop = a.Elems[:0], -1
	if len(b) >= 1<<31-1 {
		return false
	}
	i := SkipWS(b, 0)
	if i >= len(b) {
		return false
	}
	i = acc.Func(a, b, i)
	return i >= 0 && SkipWS(b, i) == len(b)
}

// Member reads the member name at b[i] (a '"') and the ':' after it, and
// returns the name (without quotes) and the index of the value, or i < 0
// when it declines: a name with escapes, control characters or invalid
// UTF-8, a missing ':' or the end of the text.
func (a *Acc) Member(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] != '"' {
		return nil, -1
	}
	j := scanPlain(b, i+1)
	if j >= len(b) {
		return nil, -1
	}
	if b[j] != '"' {
		if b[j] < utf8.RuneSelf {
			return nil, -1 // escape or control character
		}
		var esc bool
		if j, esc = strEnd(b, i); j < 0 || esc {
			return nil, -1
		}
		j--
	}
	name := b[i+1 : j]
	k := j + 1
	if k < len(b) && b[k] == ':' {
		k++
	} else {
		k = SkipWS(b, k)
		if k >= len(b) || b[k] != ':' {
			return nil, -1
		}
		k++
	}
	if k < len(b) && b[k] > ' ' {
		return name, k
	}
	k = SkipWS(b, k)
	if k >= len(b) {
		return nil, -1
	}
	return name, k
}

// Is reports whether b holds the bytes tok at i: a member name as
// machine writers write it ("name":), recognized without reading the name.
func Is(b []byte, i int, tok string) bool {
	return len(b)-i >= len(tok) && string(b[i:i+len(tok)]) == tok
}

// Load64 returns the eight bytes at b[i:i+8] in little-endian order (a
// member name's first eight bytes, compared with a name token's as one
// word).
func Load64(b []byte, i int) uint64 {
	b = b[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Next reads what follows a member or an element at b[i]: white space,
// then ',' (more follows: it returns the index of the next member or
// element and true) or the closing byte end ('}' or ']': it returns the
// index after it and false). It returns -1 on anything else.
func Next(b []byte, i int, end byte) (int, bool) {
	if i < 0 {
		return -1, false
	}
	if i < len(b) && b[i] > ' ' {
		// common case: no white space
	} else {
		i = SkipWS(b, i)
		if i >= len(b) {
			return -1, false
		}
	}
	switch b[i] {
	case ',':
		i++
		if i < len(b) && b[i] > ' ' {
			return i, true
		}
		i = SkipWS(b, i)
		if i >= len(b) {
			return -1, false
		}
		return i, true
	case end:
		return i + 1, false
	}
	return -1, false
}

// Open reads the '{' or '[' at b[i] and the white space after it; it
// returns the index of the first member or element, and empty when the
// container closes at once (the index is then after the closing byte). It
// returns -1 when the nesting would be deeper than maxAccDepth or the text
// ends.
func (a *Acc) Open(b []byte, i int) (j int, empty bool) {
	if a.depth >= maxAccDepth {
		return -1, false
	}
	a.depth++
	j = SkipWS(b, i+1)
	if j >= len(b) {
		return -1, false
	}
	if c := b[j]; c == '}' && b[i] == '{' || c == ']' && b[i] == '[' {
		a.depth--
		return j + 1, true
	}
	return j, false
}

// Close ends a container opened by Open.
func (a *Acc) Close() { a.depth-- }

// Field checks the value of a declared member at b[i] with fn: bit is
// the member's bit in seen (a second occurrence is a duplicate name, which
// jsontext rejects). It returns the index after the value, or -1 (also
// when i is -1 or the text ends).
func (a *Acc) Field(b []byte, i int, seen *uint64, bit uint, fn AcceptFunc) int {
	if uint(i) >= uint(len(b)) || *seen&(1<<bit) != 0 {
		return -1
	}
	*seen |= 1 << bit
	return fn(a, b, i)
}

// BeginElems starts recording in Elems the objects of the array that is
// the value of top-level member top (its index in the Acceptor's Names),
// when WantElems wants them; it reports whether it does. The acceptor of
// that array calls it, ElemStart before each element and EndElems after
// the last; the acceptor of its objects calls ElemMember.
func (a *Acc) BeginElems(top int) bool {
	if a.WantElems&(1<<uint(top)) == 0 {
		return false
	}
	a.elemTop = top
	return true
}

// MemoElem accepts the element at b[i] of an array, its n-th (from 0),
// with fn: it returns the index after the element, or -1. When the bytes at b[i] begin with the text of the n-th
// element that fn last accepted, at the same nesting depth, with the same
// Strict and for the same recording (BeginElems), it returns what fn
// returned then, without reading the element again: fn's result depends
// on the element's text and that state only, and an element's acceptor
// changes nothing of the Acc but Elems (ElemMember) and Wide, which it
// does again. The objects of the idle stack repeat so from record to
// record (a frame's iter changes, the frames below it mostly do not).
func (a *Acc) MemoElem(b []byte, i, n int, fn AcceptFunc) int {
	if n >= elemMemos {
		return fn(a, b, i)
	}
	id := *(*unsafe.Pointer)(unsafe.Pointer(&fn)) // the function's identity
	m := &a.elems[n]
	if m.fn == id && m.depth == a.depth && m.top == a.elemTop && m.strict == a.Strict &&
		len(b)-i >= len(m.text) && string(b[i:i+len(m.text)]) == string(m.text) {
		a.Wide = a.Wide || m.wide
		m.misses = 0
		for _, e := range m.elems {
			e.Start += int32(i)
			e.End += int32(i)
			a.Elems = append(a.Elems, e)
		}
		return i + len(m.text)
	}
	depth, top, wide, e0 := a.depth, a.elemTop, a.Wide, len(a.Elems)
	a.Wide = false
	k := fn(a, b, i)
	w := a.Wide
	a.Wide = wide || w
	if k < 0 || k-i > maxMemoElem || a.depth != depth || a.elemTop != top {
		m.fn = nil
		return k
	}
	if m.misses++; m.misses > 1 && m.misses&3 != 0 {
		// An element that changes record after record (an idle frame
		// whose iter grows): remembered on every fourth miss only, so
		// that the memo catches it when it settles, without copying it
		// each time. What the memo holds stays true.
		return k
	}
	m.fn, m.depth, m.top, m.strict, m.wide = id, depth, top, a.Strict, w
	m.text = append(m.text[:0], b[i:k]...)
	m.elems = m.elems[:0]
	for _, e := range a.Elems[e0:] {
		e.Start -= int32(i)
		e.End -= int32(i)
		m.elems = append(m.elems, e)
	}
	return k
}

// EndElems ends the recording BeginElems started.
func (a *Acc) EndElems() { a.elemTop = -1 }

// ElemStart records that an element of the array being recorded starts
// at b[i] (an object when b[i] is '{'; any other element is not recorded).
func (a *Acc) ElemStart(b []byte, i int) {
	if a.elemTop >= 0 && i < len(b) && b[i] == '{' {
		a.Elems = append(a.Elems, ElemSpan{Top: uint8(a.elemTop), Member: ElemObject, Span32: Span32{int32(i), int32(i)}})
	}
}

// ElemMember records b[i:j] as the value of member (its index in the
// Acceptor's ElemNames) of the object of the array being recorded that
// started last.
func (a *Acc) ElemMember(member, i, j int) {
	if a.elemTop >= 0 {
		a.elemMember(member, i, j)
	}
}

func (a *Acc) elemMember(member, i, j int) {
	a.Elems = append(a.Elems, ElemSpan{Top: uint8(a.elemTop), Member: uint8(member), Span32: Span32{int32(i), int32(j)}})
}

// Conds returns the conditions of cs that hold for the object at b[i]
// ('{'), as the validator's pre-scan finds them (Dec.Conds): bit c is set
// when condition cs.Conds[c] holds. The object is read by the acceptor
// afterwards, which declines it if it is not well-formed.
func (a *Acc) Conds(b []byte, i int, cs *CondSet) uint64 {
	a.conds.buf = b
	m := a.conds.Conds(int64(i), cs)
	a.conds.buf = nil
	return m
}

// CondsFrom returns the conditions of cs that hold for the object the
// acceptor has read in b, as Conds finds them, from the value spans of its
// discriminators that the acceptor read: spans[f] is the value of
// cs.Fields[f] when bit f of found is set, and the object has no such
// member when it is clear. The acceptor calls it once it has read every
// discriminator, or the whole object: then no pre-scan is needed (the
// acceptor declines an object whose members Conds' pre-scan would read
// otherwise: escaped or repeated names, text that is not well formed).
func (a *Acc) CondsFrom(b []byte, cs *CondSet, spans []Span32, found uint) uint64 {
	if len(cs.Fields) != 1 {
		return a.condsFrom(b, cs, spans, found)
	}
	// One discriminator: the conditions are those of its value (or of
	// its absence), which the memo may hold.
	var v []byte
	if found&1 != 0 {
		if v = b[spans[0].Start:spans[0].End]; len(v) > condMemoLen {
			return a.condsFrom(b, cs, spans, found)
		}
	}
	if a.memo == nil {
		a.memo = new([condMemos]condMemo)
	}
	fd := found&1 != 0
	h := condMemoSlot(cs, v)
	for s := h; ; s = (s + 1) & (condMemos - 1) {
		e := &a.memo[s]
		if e.cs == nil {
			break // not held
		}
		if e.cs == cs && e.found == fd && string(e.val[:e.n]) == string(v) {
			return e.m
		}
	}
	m := a.condsFrom(b, cs, spans, found)
	if a.memoN >= condMemos/2 {
		*a.memo, a.memoN = [condMemos]condMemo{}, 0
	}
	for s := h; ; s = (s + 1) & (condMemos - 1) {
		if e := &a.memo[s]; e.cs == nil {
			e.cs, e.found, e.n, e.m = cs, fd, uint8(copy(e.val[:], v)), m
			a.memoN++
			return m
		}
	}
}

// condsFrom is CondsFrom without the memo.
func (a *Acc) condsFrom(b []byte, cs *CondSet, spans []Span32, found uint) uint64 {
	var sp [maxDiscriminators][2]int
	var fd [maxDiscriminators]bool
	nf := min(len(cs.Fields), maxDiscriminators)
	for f := range nf {
		if found&(1<<uint(f)) != 0 {
			fd[f], sp[f] = true, [2]int{int(spans[f].Start), int(spans[f].End)}
		}
	}
	a.conds.buf = b
	m := a.conds.condsOf(cs, nf, &sp, &fd)
	a.conds.buf = nil
	return m
}

// Set records b[i:j] as the value of capture slot slot (Spans, Got).
func (a *Acc) Set(slot, i, j int) {
	a.Spans[slot] = Span32{int32(i), int32(j)}
	a.Got |= 1 << uint(slot)
}

// How an object treats the members its definition does not declare
// (Acc.Undeclared).
const (
	// OpenMembers: any member ({...}).
	OpenMembers = iota
	// XMembers: x_ extensions; others only without Strict.
	XMembers
	// NoMembers: none with Strict.
	NoMembers
)

// Undeclared reads the value at b[i] of the undeclared member name, whose
// '"' is at b[at], in an object whose names start at mark and whose
// definition treats such members as mode says. It returns the index after
// the value, or -1 (also when i is -1 or the text ends).
func (a *Acc) Undeclared(b []byte, at, i int, name []byte, mark, mode int) int {
	if i < 0 || i >= len(b) || a.Strict && (mode == NoMembers || mode == XMembers && !IsX(name)) {
		return -1
	}
	if !a.AddName(b, at+1, at+1+len(name), mark) {
		return -1
	}
	a.Loose = true
	j := a.Any(b, i)
	if j >= 0 && a.depth == 1 && len(a.Want) > 0 {
		for k, w := range a.Want {
			if w == string(name) {
				a.Set(MaxCaptures-1-k, i, j)
			}
		}
	}
	return j
}

// Names returns a mark of the undeclared member names recorded so far, for
// AddName and DropNames of one object.
func (a *Acc) Names() int { return len(a.names) }

// AddName records the undeclared member name b[i:j] of the object whose
// names start at mark; false when the object already has it (a duplicate
// name, which jsontext rejects) or has maxAccNames of them.
func (a *Acc) AddName(b []byte, i, j, mark int) bool {
	if len(a.names)-mark >= maxAccNames {
		return false
	}
	name := b[i:j]
	for _, r := range a.names[mark:] {
		if int(r.End-r.Start) == len(name) && string(b[r.Start:r.End]) == string(name) {
			return false
		}
	}
	a.names = append(a.names, Span32{int32(i), int32(j)})
	return true
}

// DropNames forgets the names of an object read to its end.
func (a *Acc) DropNames(mark int) { a.names = a.names[:mark] }

// IsX reports whether a member name is an x_ extension.
func IsX(name []byte) bool { return len(name) >= 2 && name[0] == 'x' && name[1] == '_' }

// lsb and msb are the low and the top bit of each byte of a word.
const (
	lsb = swar.Lsb
	msb = swar.Msb
)

// scanPlain returns the index of the first byte at or after b[j] that a
// string cannot hold as it is ('"', '\\', a control character or a byte
// of a multi-byte UTF-8 sequence), or len(b). It reads eight bytes at a
// time: each of the four tests below (stops8's) sets the top bit of every
// byte it matches, and may set it in bytes that are special themselves or
// above a match (a borrow) but never below the first one, so the lowest
// bit set is the first special byte.
func scanPlain(b []byte, j int) int {
	for ; j <= len(b)-8; j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q := x ^ (lsb * '"')
		s := x ^ (lsb * '\\')
		if t := ((q - lsb) | (s - lsb) | (x - lsb*0x20) | x) & msb; t != 0 { // stops8's test
			return j + bits.TrailingZeros64(t)/8
		}
	}
	for j < len(b) && plain[b[j]] {
		j++
	}
	return j
}

// strEnd returns the index after the string literal at b[i] == '"' and
// whether it has escapes, or -1 when it is not a valid JSON string
// (control characters, invalid UTF-8, a bad escape, no closing quote).
// Eight bytes at a time while they are printable ASCII without '"' and '\\',
// sixteen (plainRun16) past the first 32 when 48 bytes or more follow.
func strEnd(b []byte, i int) (int, bool) {
	// The common case first: printable ASCII up to the closing quote.
	j := i + 1
	if hasPlainRun16 && j+48 <= len(b) {
		// The first 32 bytes eight at a time (most strings end there;
		// w's fixed length spares the bounds checks), then sixteen at a
		// time.
		w := b[j : j+32 : j+32]
		k := 0
		t := stops8(w[0:8])
		if t == 0 {
			k, t = 8, stops8(w[8:16])
			if t == 0 {
				k, t = 16, stops8(w[16:24])
				if t == 0 {
					k, t = 24, stops8(w[24:32])
				}
			}
		}
		if t != 0 {
			j += k + bits.TrailingZeros64(t)>>3
			if b[j] == '"' {
				return j + 1, false
			}
			return strRest(b, i, j)
		}
		j += 32
		j += plainRun16(&b[j], len(b)-j)
		if j < len(b) && b[j] == '"' {
			return j + 1, false
		}
	}
	for j+8 <= len(b) {
		if t := stops8(b[j : j+8]); t != 0 {
			j += bits.TrailingZeros64(t) >> 3
			if b[j] == '"' {
				return j + 1, false
			}
			return strRest(b, i, j)
		}
		j += 8
	}
	return strRest(b, i, j)
}

// stops8 reads the eight bytes at b[0:8] and returns a word whose lowest
// set bit is the top bit of the first byte a string cannot hold as it is
// (see scanPlain), or 0 when there is none.
//
// It is scanPlain's test without its three masks: a byte of q or s at
// 0x81 or more, whose top bit the subtraction leaves set, and a byte of x
// at 0xa0 or more, which stays at 0x80 or more, are bytes >= 0x80, stops
// themselves, that the last term tests anyway; and a borrow comes only
// from a byte that is a stop too, into the bytes above it.
func stops8(b []byte) uint64 {
	x := binary.LittleEndian.Uint64(b)
	q := x ^ (lsb * '"')
	s := x ^ (lsb * '\\')
	return ((q - lsb) | (s - lsb) | (x - lsb*0x20) | x) & msb
}

// strRest is strEnd from b[j], a byte of the string at b[i].
func strRest(b []byte, i, j int) (int, bool) {
	esc := false
	for {
		j = scanPlain(b, j)
		if j >= len(b) {
			return -1, false
		}
		switch c := b[j]; {
		case c == '"':
			j++
			if esc {
				var tmp [64]byte
				if _, err := jsontext.AppendUnquote(tmp[:0], b[i:j]); err != nil {
					return -1, false
				}
			}
			return j, esc
		case c == '\\':
			esc = true
			j += 2
			if j > len(b) {
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default:
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n == 1 {
				return -1, false
			}
			j += n
		}
	}
}

// Str reads the string at b[i] == '"' and returns the index after it and
// its content, unescaped (valid until the next Str), or -1.
func (a *Acc) Str(b []byte, i int) (int, []byte) {
	j, esc := strEnd(b, i)
	if j < 0 {
		return -1, nil
	}
	if !esc {
		return j, b[i+1 : j-1]
	}
	var err error
	a.scratch, err = jsontext.AppendUnquote(a.scratch[:0], b[i:j])
	if err != nil {
		return -1, nil
	}
	return j, a.scratch
}

// QuoteStr returns the index after the first '"' after b[i+min] (b[i] is
// a '"') and the bytes between b[i] and it, or -1 when there is none. It
// reads the string as JSON only when the caller's check of the bytes
// passes and implies that they are plain (printable ASCII but '"' and
// '\\': a JSON string holds them as they are, and then the first '"'
// closes it) and that there are min of them at least, e.g. a date-time's
// pattern or an enum of such words: that check is then the whole check of
// the string (a '"' among the first min bytes, which QuoteStr does not
// look for, makes it fail); otherwise the caller reads it with Str.
// Eight bytes at a time, testing for '"' only.
func QuoteStr(b []byte, i, min int) (int, []byte) {
	j := i + 1 + min
	for ; j <= len(b)-8; j += 8 {
		x := binary.LittleEndian.Uint64(b[j:]) ^ (lsb * '"')
		if t := (x - lsb) &^ x & msb; t != 0 {
			j += bits.TrailingZeros64(t) >> 3
			return j + 1, b[i+1 : j]
		}
	}
	for ; j < len(b); j++ {
		if b[j] == '"' {
			return j + 1, b[i+1 : j]
		}
	}
	return -1, nil
}

// SkipStr reads the string at b[i] == '"' whose content no constraint
// reads and returns the index after it, or -1.
func SkipStr(b []byte, i int) int {
	j, _ := strEnd(b, i)
	return j
}

// Lit reads the literal w ("true", "false", "null") at b[i].
func Lit(b []byte, i int, w string) int {
	if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
		return i + len(w)
	}
	return -1
}

// Num reads the number at b[i] and returns the index after it and whether
// it is written as an integer (no fraction, no exponent), or -1.
func Num(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return -1, false
	}
	isInt := true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	return i, isInt
}

// Num is the package's Num for an acceptor's number: it also sets a.Wide
// for a number with an exponent or of more than 300 characters.
func (a *Acc) Num(b []byte, i int) (int, bool) {
	j, isInt := Num(b, i)
	if j-i > 300 {
		a.Wide = true
	} else if !isInt && j > i {
		for _, c := range b[i:j] {
			if c == 'e' || c == 'E' {
				a.Wide = true
			}
		}
	}
	return j, isInt
}

// Bounds reports whether the number literal raw satisfies every bound.
func Bounds(raw []byte, bs []Bound) bool {
	var x float64
	n, isInt := plainInt(raw)
	if isInt {
		x = float64(n)
	} else {
		var err error
		if x, err = strconv.ParseFloat(unsafe.String(unsafe.SliceData(raw), len(raw)), 64); err != nil {
			return false // beyond float64: the validator decides
		}
	}
	for i := range bs {
		b := &bs[i]
		if isInt && plainIntLit(b.Lit) {
			// Both exact integers: float64 compares them exactly, as
			// Holds would, which compares the literals when they are
			// equal.
			c := 0
			if x < b.Num {
				c = -1
			} else if x > b.Num {
				c = 1
			}
			if !holdsCmp(b.Op, c) {
				return false
			}
			continue
		}
		if !b.Holds(x, raw) {
			return false
		}
	}
	return true
}

// plainIntLit reports whether s is the literal of an integer plainInt
// reads (at most 15 digits): its float64 is exact.
func plainIntLit(s string) bool {
	if len(s) == 0 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// RefHolds reports whether the number literal xs stands in relation op
// (">=", ">", "<=" or "<") to the number literal ys, compared as
// Dec.RefBound compares a member with the sibling its bound names (by
// float64 when that decides, by the literals otherwise). It is false when
// either is not a whole JSON number or is beyond float64: the validator
// decides those.
func RefHolds(op string, xs, ys []byte) bool {
	if j, _ := Num(xs, 0); j < 0 || j != len(xs) {
		return false
	}
	if j, _ := Num(ys, 0); j < 0 || j != len(ys) {
		return false
	}
	x, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(xs), len(xs)), 64)
	if err != nil {
		return false
	}
	y, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(ys), len(ys)), 64)
	if err != nil {
		return false
	}
	return holdsCmp(op, compareExact(x, y, xs, ys))
}

// plainInt returns the value of raw when it is digits only, at most 15 of
// them (an integer float64 holds exactly, as strconv.ParseFloat reads it).
func plainInt(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// RunesOK reports whether the string s has at least min and at most max
// code points (a limit below 0 is unset), as strings.MinRunes and
// strings.MaxRunes count them.
func RunesOK(s []byte, min, max int) bool {
	n := utf8.RuneCount(s)
	return (min < 0 || n >= min) && (max < 0 || n <= max)
}

// AnyObject reads the object at b[i] ('{') of a definition that declares
// no members and leaves it open, as Any reads an object (setting Loose once
// it has a member, as Undeclared does): it returns the index after the
// object, or -1. The definition must not be a kind's top-level object (its
// members are not recorded for Want).
func (a *Acc) AnyObject(b []byte, i int) int {
	j, empty := a.Open(b, i)
	if j < 0 || empty {
		return j
	}
	a.Loose = true
	return a.anyMembers(b, j)
}

// anyNames is the most members of an object anyMembers tells apart by
// their keys (nameKey); anyMembersNamed reads objects with more.
const anyNames = 8

// anyMembers reads the members of an object opened by Open, the first at
// b[j], to the object's end (Any). It keeps the names of the object in
// registers, as keys (nameKey), for the duplicate check; an object with a
// name of sixteen bytes or more, or with more than anyNames members, it
// reads again from its first member with anyMembersNamed.
func (a *Acc) anyMembers(b []byte, j int) int {
	var keys [anyNames][2]uint64
	n, j0 := 0, j
	for {
		var w0, w1 uint64
		k := -1
		if j+17 <= len(b) && b[j] == '"' {
			// The common case: a plain name of up to fifteen bytes,
			// its closing quote among the sixteen bytes after b[j].
			w0, w1 = Load64(b, j+1), Load64(b, j+9)
			if t := stopsWord(w0); t != 0 {
				l := bits.TrailingZeros64(t) >> 3
				w0 &= 1<<(8*l) - 1
				w1, k = 0, j+1+l
			} else if t := stopsWord(w1); t != 0 {
				l := bits.TrailingZeros64(t) >> 3
				w1 &= 1<<(8*l) - 1
				k = j + 9 + l
			}
		}
		if k >= 0 && b[k] == '"' {
			k++
			if k < len(b) && b[k] == ':' {
				k++
			} else {
				k = SkipWS(b, k)
				if k >= len(b) || b[k] != ':' {
					return -1
				}
				k++
			}
			if k < len(b) && b[k] > ' ' {
				// no white space
			} else if k = SkipWS(b, k); k >= len(b) {
				return -1
			}
		} else {
			var name []byte
			if name, k = a.Member(b, j); k < 0 {
				return -1
			}
			if len(name) >= 16 {
				return a.anyMembersNamed(b, j0)
			}
			w0, w1 = nameKey(name)
		}
		// A name's key is its bytes, zero-padded (a name holds no zero
		// byte): two names are the same when their keys are.
		for _, kk := range keys[:n] {
			if kk[0] == w0 && kk[1] == w1 {
				return -1 // a duplicate name, which jsontext rejects
			}
		}
		if n == anyNames {
			return a.anyMembersNamed(b, j0)
		}
		keys[n] = [2]uint64{w0, w1}
		n++
		switch b[k] {
		case '"':
			k, _ = strEnd(b, k)
		case '{', '[', 't', 'f', 'n':
			k = a.Any(b, k)
		default:
			k, _ = a.Num(b, k)
		}
		if k < 0 {
			return -1
		}
		if uint(k) < uint(len(b)-1) && b[k] == ',' && b[k+1] > ' ' {
			j = k + 1 // the common case
			continue
		}
		if uint(k) < uint(len(b)) && b[k] == '}' {
			j = k + 1 // the end right after the last value
			break
		}
		var more bool
		if j, more = Next(b, k, '}'); j < 0 {
			return -1
		}
		if !more {
			break
		}
	}
	a.Close()
	return j
}

// nameKey returns the key of a member name of fewer than sixteen bytes
// (anyMembers): its bytes, zero-padded, as two little-endian words.
func nameKey(name []byte) (uint64, uint64) {
	var kb [16]byte
	copy(kb[:], name)
	return binary.LittleEndian.Uint64(kb[:8]), binary.LittleEndian.Uint64(kb[8:])
}

// stopsWord is stops8 of the eight bytes of x (little-endian).
func stopsWord(x uint64) uint64 {
	q := x ^ (lsb * '"')
	s := x ^ (lsb * '\\')
	return ((q - lsb) | (s - lsb) | (x - lsb*0x20) | x) & msb
}

// anyMembersNamed is anyMembers with the names of the object kept in
// Acc.names (AddName): for objects of many members or long names.
func (a *Acc) anyMembersNamed(b []byte, j int) int {
	mark := a.Names()
	for {
		name, k := a.Member(b, j)
		if k < 0 || !a.AddName(b, j+1, j+1+len(name), mark) {
			return -1
		}
		if k = a.Any(b, k); k < 0 {
			return -1
		}
		if uint(k) < uint(len(b)-1) && b[k] == ',' && b[k+1] > ' ' {
			j = k + 1 // the common case
			continue
		}
		var more bool
		if j, more = Next(b, k, '}'); j < 0 {
			return -1
		}
		if !more {
			break
		}
	}
	a.DropNames(mark)
	a.Close()
	return j
}

// Any reads any JSON value at b[i] with every check of jsontext (grammar,
// UTF-8, escapes, duplicate member names), for the members and elements
// that no definition types (x_ extensions, open objects, untyped lists).
func (a *Acc) Any(b []byte, i int) int {
	switch b[i] {
	case '"':
		j, _ := strEnd(b, i)
		return j
	case '{':
		a.Loose = true
		j, empty := a.Open(b, i)
		if j < 0 || empty {
			return j
		}
		return a.anyMembers(b, j)
	case '[':
		j, empty := a.Open(b, i)
		if j < 0 || empty {
			return j
		}
		for {
			k := a.Any(b, j)
			if k < 0 {
				return -1
			}
			var more bool
			if j, more = Next(b, k, ']'); j < 0 {
				return -1
			}
			if !more {
				break
			}
		}
		a.Close()
		return j
	case 't':
		return Lit(b, i, "true")
	case 'f':
		return Lit(b, i, "false")
	case 'n':
		return Lit(b, i, "null")
	}
	j, _ := a.Num(b, i)
	return j
}
