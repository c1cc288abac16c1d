package rules

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/agentlint/agentlint/lint/fast"
)

// The digest of an idle event's stack (seed 002 section 5, StackFrame):
// one scan of its JSON text, made in the workers, serves the document
// rules that read a STATE in place (IL009, IL012, IL015: idleStackOf) and
// the stream rule IL101, which reads every frame's id and iter of every
// STATE in the engine's sequential stage (idleIter). Layout, little
// endian:
//
//	header  int32 frames (-1: the stack is absent or not an array)
//	        uint8 flags (idleOver, idleMode0)
//	        uint32, uint32: the first frame's mode, raw[start:end]
//	frames  per element, uint8 1 when it is an object with a string id
//	        and a number iter (idleFrame.ok), then float64 iter, uint32
//	        the offset of iter in raw, uint32 the id's length and its
//	        bytes; uint8 0 for any other element.
//
// It declines what idleStackOf and scanFrames declined (a member name or
// an id with an escape, text that is not well formed, a frame with a
// repeated member name): the document rules then decode the record and
// IL101 reads the JSON text (stackReader).

// idleStackDigest is the digest of an idle stack (makeIdleStackDigest),
// and idleStackField the type of a field passed as it.
var (
	idleStackDigest = &Digest{Name: "idle-stack", Make: makeIdleStackDigest}
	idleStackField  = DigestField(idleStackDigest)
)

// Flags of an idle stack digest.
const (
	idleOver  = 1 << iota // some frame is an object whose iter and max are numbers with iter > max
	idleMode0             // the first element is an object with a mode
)

// idleDigestHead is the size of an idle stack digest's header.
const idleDigestHead = 13

// makeIdleStackDigest is the Make of idleStackDigest.
func makeIdleStackDigest(dst, raw []byte) ([]byte, bool) {
	base := len(dst)
	dst = append(dst, make([]byte, idleDigestHead)...)
	head := dst[base:]
	frames := int32(-1)
	i := fast.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		binary.LittleEndian.PutUint32(head, uint32(frames))
		return dst, true
	}
	frames = 0
	var flags uint8
	i = fast.SkipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		i++
	} else {
		for {
			if i >= len(raw) {
				return dst[:base], false
			}
			if raw[i] == '{' {
				var fl uint8
				var m0 [2]int
				if dst, i, fl, m0 = digestFrame(dst, raw, i, frames == 0); i < 0 {
					return dst[:base], false
				}
				flags |= fl
				if fl&idleMode0 != 0 {
					head = dst[base:]
					binary.LittleEndian.PutUint32(head[5:], uint32(m0[0]))
					binary.LittleEndian.PutUint32(head[9:], uint32(m0[1]))
				}
			} else {
				if i = fast.SkipValue(raw, i); i < 0 {
					return dst[:base], false
				}
				dst = append(dst, 0)
			}
			frames++
			var more bool
			if i, more = fast.Next(raw, i, ']'); i < 0 {
				return dst[:base], false
			} else if !more {
				break
			}
		}
	}
	if fast.SkipWS(raw, i) != len(raw) {
		return dst[:base], false
	}
	head = dst[base:]
	binary.LittleEndian.PutUint32(head, uint32(frames))
	head[4] = flags
	return dst, true
}

// digestFrame appends the digest of the frame at raw[i] == '{' to dst and
// returns the index after it (-1: declined), its flags (idleOver,
// idleMode0 when first) and, with idleMode0, the span of its mode. The
// common shape (no white space, strings without escapes, scalars) is read
// inline; anything else by the fast package's scanners.
func digestFrame(dst, raw []byte, i int, first bool) ([]byte, int, uint8, [2]int) {
	var (
		sig           uint64 // a bit per name's signature (nameSig): names are compared only when one repeats
		id, iter, max []byte
		hasID         bool
		iterAt        int
		flags         uint8
		mode          [2]int
	)
	obj := i
	if i = fast.SkipWS(raw, i+1); i < len(raw) && raw[i] == '}' {
		return append(dst, 0), i + 1, 0, mode
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return dst, -1, 0, mode
		}
		k, plain := stringEnd(raw, i)
		if k < 0 || !plain {
			return dst, -1, 0, mode // a name with an escape: declined
		}
		name := raw[i+1 : k-1]
		b := uint64(1) << nameSig(name)
		if sig&b != 0 && nameBefore(raw, obj, i, name) {
			return dst, -1, 0, mode // a repeated name: the decoder rejects the text
		}
		sig |= b
		if k >= len(raw) || raw[k] != ':' {
			if k = fast.SkipWS(raw, k); k >= len(raw) || raw[k] != ':' {
				return dst, -1, 0, mode
			}
		}
		v := k + 1
		if v < len(raw) && raw[v] <= ' ' {
			v = fast.SkipWS(raw, v)
		}
		if v >= len(raw) {
			return dst, -1, 0, mode
		}
		var end int
		switch c := raw[v]; c {
		case '"':
			if end, plain = stringEnd(raw, v); end < 0 {
				return dst, -1, 0, mode
			}
			if string(name) == "id" {
				if !plain {
					return dst, -1, 0, mode // an id with an escape: declined
				}
				id, hasID = raw[v+1:end-1], true
			}
		case '{', '[':
			if end = fast.SkipValue(raw, v); end < 0 {
				return dst, -1, 0, mode
			}
		case ',', '}', ']', ':':
			return dst, -1, 0, mode
		default: // a number or a literal: up to the next delimiter (fast.SkipValue)
			end = v + 1
		scalar:
			for ; end < len(raw); end++ {
				switch raw[end] {
				case ',', '}', ']', ' ', '\t', '\r', '\n':
					break scalar
				}
			}
			switch string(name) {
			case "iter":
				iter, iterAt = raw[v:end], v
			case "max":
				max = raw[v:end]
			}
		}
		if string(name) == "mode" && first {
			flags |= idleMode0
			mode = [2]int{v, end}
		}
		if end+1 < len(raw) && raw[end] == ',' && raw[end+1] == '"' {
			i = end + 1 // the common case
			continue
		}
		var more bool
		if i, more = fast.Next(raw, end, '}'); i < 0 {
			return dst, -1, 0, mode
		} else if !more {
			break
		}
	}
	it, okIter := rawNumber(iter)
	if mx, okMax := rawNumber(max); okIter && okMax && it > mx {
		flags |= idleOver
	}
	if !hasID || !okIter {
		return append(dst, 0), i, flags, mode
	}
	var f [17]byte
	f[0] = 1
	binary.LittleEndian.PutUint64(f[1:], math.Float64bits(it))
	binary.LittleEndian.PutUint32(f[9:], uint32(iterAt))
	binary.LittleEndian.PutUint32(f[13:], uint32(len(id)))
	return append(append(dst, f[:]...), id...), i, flags, mode
}

// nameSig is the signature of a member name, 0 to 63: distinct for the
// members of a StackFrame (seed 002 section 5), so that a frame's names
// are compared with each other only when something else repeats one.
func nameSig(name []byte) uint {
	if len(name) == 0 {
		return 0
	}
	return (uint(len(name)) + uint(name[0]) + uint(name[len(name)-1])<<1) & 63
}

// nameBefore reports whether the object at raw[obj] == '{', read by
// digestFrame up to the member whose name starts at raw[at], has a member
// named name before that one.
func nameBefore(raw []byte, obj, at int, name []byte) bool {
	i := fast.SkipWS(raw, obj+1)
	for i < at {
		k, _ := stringEnd(raw, i)
		if string(raw[i+1:k-1]) == string(name) {
			return true
		}
		i = fast.SkipValue(raw, fast.SkipWS(raw, fast.SkipWS(raw, k)+1))
		i, _ = fast.Next(raw, i, '}')
	}
	return false
}

// stringEnd returns the index after the JSON string at raw[i] == '"' (-1
// when it has no end) and whether it is plain (no escape). Eight bytes at
// a time up to the first '"' or '\\' (fast.SkipString's test); a string
// with an escape is left to fast.SkipString.
func stringEnd(raw []byte, i int) (end int, plain bool) {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	j := i + 1
	for ; j+8 <= len(raw); j += 8 {
		x := binary.LittleEndian.Uint64(raw[j:])
		q := x ^ (lsb * '"')
		s := x ^ (lsb * '\\')
		if t := ((q-lsb)&^q | (s-lsb)&^s) & msb; t != 0 {
			if j += bits.TrailingZeros64(t) >> 3; raw[j] == '"' {
				return j + 1, true
			}
			return fast.SkipString(raw, i), false
		}
	}
	for ; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			return j + 1, true
		case '\\':
			return fast.SkipString(raw, i), false
		}
	}
	return -1, false
}

// idleDigestFromElems appends to dst the digest makeIdleStackDigest makes
// of f.Raw, the stack of a STATE its kind's acceptor accepted, from what
// the acceptor recorded of its frames (f.Elems, set: every element is a
// StackFrame object, read member by member), without scanning it; ok is
// false (dst returned with its length unchanged) when it cannot say that
// it is (an id with an escape, which the digest declines; names it does
// not know).
func idleDigestFromElems(dst []byte, f *Flat) ([]byte, bool) {
	roles := idleElemRolesOf(f.Elems.Names)
	if roles == nil {
		return dst, false
	}
	base := len(dst)
	dst = append(dst, make([]byte, idleDigestHead)...)
	frames := 0
	var flags uint8
	var fr idleElemFrame
	raw := f.Raw
	base0 := f.Elems.Base
	for _, e := range f.Elems.Spans {
		if e.Member == fast.ElemObject {
			if frames > 0 {
				var ok bool
				if dst, ok = fr.append(dst, &flags); !ok {
					return dst[:base], false
				}
			}
			frames++
			fr = idleElemFrame{}
			continue
		}
		start, end := int(e.Start)-base0, int(e.End)-base0
		if start < 0 || end > len(raw) || start >= end || int(e.Member) >= len(roles) {
			return dst[:base], false
		}
		switch roles[e.Member] {
		case 1 + memberID:
			if raw[start] == '"' {
				fr.id = raw[start:end]
			}
		case 1 + memberIter:
			fr.iter, fr.iterAt = raw[start:end], start
		case 1 + memberMax:
			fr.max = raw[start:end]
		case 1 + memberMode:
			if frames == 1 {
				flags |= idleMode0
				binary.LittleEndian.PutUint32(dst[base+5:], uint32(start))
				binary.LittleEndian.PutUint32(dst[base+9:], uint32(end))
			}
		}
	}
	if frames > 0 {
		var ok bool
		if dst, ok = fr.append(dst, &flags); !ok {
			return dst[:base], false
		}
	}
	binary.LittleEndian.PutUint32(dst[base:], uint32(frames))
	dst[base+4] = flags
	return dst, true
}

// idleElemFrame is what idleDigestFromElems read of one frame: the JSON
// text of its id (a string), iter and max, and iter's offset.
type idleElemFrame struct {
	id, iter, max []byte
	iterAt        int
}

// append appends the frame's digest to dst, notes in flags an iter above
// its max (idleOver), and is false when the id has an escape (the digest
// declines the stack).
func (fr *idleElemFrame) append(dst []byte, flags *uint8) ([]byte, bool) {
	it, okIter := rawNumber(fr.iter)
	if mx, okMax := rawNumber(fr.max); okIter && okMax && it > mx {
		*flags |= idleOver
	}
	if fr.id == nil || !okIter {
		return append(dst, 0), true
	}
	id := fr.id[1 : len(fr.id)-1]
	if bytes.IndexByte(id, '\\') >= 0 {
		return dst, false
	}
	var b [17]byte
	b[0] = 1
	binary.LittleEndian.PutUint64(b[1:], math.Float64bits(it))
	binary.LittleEndian.PutUint32(b[9:], uint32(fr.iterAt))
	binary.LittleEndian.PutUint32(b[13:], uint32(len(id)))
	return append(append(dst, b[:]...), id...), true
}

// The members of a StackFrame the digest reads, by their index in
// idleReadNames.
const (
	memberID = iota
	memberMode
	memberIter
	memberMax
)

// idleReadNames are the names of memberID, memberMode, memberIter and
// memberMax.
var idleReadNames = [...]string{"id", "mode", "iter", "max"}

// idleElemRoles are, for the member names of a StackFrame as an acceptor
// lists them (fast.Acceptor.ElemNames), each member's role: 1 plus its
// index in idleReadNames, or 0; made for the last list asked for (there
// is one: the idle/event acceptor's).
var idleElemRoles atomic.Pointer[idleRoles]

// idleRoles are the roles of the members names (idleElemRoles).
type idleRoles struct {
	names []string
	roles []uint8
}

// idleElemRolesOf returns idleElemRoles' roles for names, nil when one of
// idleReadNames is missing.
func idleElemRolesOf(names []string) []uint8 {
	if len(names) == 0 {
		return nil
	}
	if r := idleElemRoles.Load(); r != nil && &r.names[0] == &names[0] && len(r.names) == len(names) {
		return r.roles
	}
	roles := make([]uint8, len(names))
	for k, n := range idleReadNames {
		i := slices.Index(names, n)
		if i < 0 {
			roles = nil
			break
		}
		roles[i] = uint8(1 + k)
	}
	idleElemRoles.Store(&idleRoles{names: names, roles: roles})
	return roles
}

// idleDigestFrames returns the number of elements of the stack of an idle
// stack digest (-1: absent or not an array), its flags and the span of
// the first frame's mode (with idleMode0).
func idleDigestFrames(dg []byte) (frames int, flags uint8, mode0 [2]int) {
	frames = int(int32(binary.LittleEndian.Uint32(dg)))
	flags = dg[4]
	mode0 = [2]int{int(binary.LittleEndian.Uint32(dg[5:])), int(binary.LittleEndian.Uint32(dg[9:]))}
	return frames, flags, mode0
}

// appendDigestFrames appends the frames of an idle stack digest to dst
// (their ids point into dg); ok is false when the stack is not an array.
func appendDigestFrames(dst []idleFrame, dg []byte) ([]idleFrame, bool) {
	frames, _, _ := idleDigestFrames(dg)
	if frames < 0 {
		return dst, false
	}
	b := dg[idleDigestHead:]
	for range frames {
		if b[0] == 0 {
			dst = append(dst, idleFrame{})
			b = b[1:]
			continue
		}
		n := int(binary.LittleEndian.Uint32(b[13:]))
		dst = append(dst, idleFrame{
			id:      b[17 : 17+n : 17+n],
			iter:    math.Float64frombits(binary.LittleEndian.Uint64(b[1:])),
			iterOff: int64(binary.LittleEndian.Uint32(b[9:])),
			ok:      true,
		})
		b = b[17+n:]
	}
	return dst, true
}
