package record

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/timefmt"
	"github.com/agentlint/agentlint/rules"
)

// Extractor pulls the values that stream rules declare (rules.Field) out of
// one JSON Lines record with a single scan of its bytes: member names are
// compared in place, values that no field needs are skipped without being
// decoded, and the scan stops as soon as every field was found. Nothing is
// decoded into maps; strings with escapes are unescaped into an arena. It
// runs in the workers, on every record that is a JSON object (valid or
// not), and never panics on malformed input (a syntax rule switched off lets
// such records through): it then reports what it found before the malformed
// spot.
type Extractor struct {
	fields []xfield
	root   *xnode // the member names of the fields, as a trie
	all    uint64 // bit set of every field
	// Arena receives the unescaped strings and the digests of the values
	// found; the returned rules.Value strings point into it (or into the
	// line). The caller owns it: it may hand in the arena of its current
	// batch of records and take it back after the call, or reset it.
	Arena []byte
	// Digests, when set, holds digests already made of values of the
	// record (the memo its document rules used: Validator.Digests); a
	// field of a rules.DigestField type whose value is there is copied
	// from it instead of being made again.
	Digests *rules.DigestMemo
	buf     []byte          // scratch for member names with escapes
	minutes timefmt.Minutes // the last minute of a date-time read
	// slots are, per field, the capture slot of the kind's acceptor that
	// holds its value (fieldSlots), or -1 for a field under a top-level
	// member whose slot is in parents; nil: some field has neither.
	slots []int
	// parents are the captured top-level members that hold the fields of
	// slot -1 and the fields of conditional slots (a VerMAS event's data,
	// whose members the acceptor records only as the declaration of the
	// event's type declares them): only their values are scanned.
	parents []xparent
	// cond has bit i set when field i is read from a conditional slot
	// (under a parent with scan false).
	cond uint64
	// slotMask has bit s set for each slot of slots; slotFields[s] has
	// bit i set for each field i read from slot s: captured visits only
	// the slots the acceptor recorded.
	slotMask   uint64
	slotFields [fast.MaxCaptures]uint64
	strs       uint64 // bit i set when field i is a rules.FieldString
}

// xparent is a captured top-level member whose value is scanned for the
// fields below it: its capture slot and its level of the fields' trie.
// When no field below it has slot -1 (scan false), its fields are read
// from their conditional slots (fast.Acceptor.Cond) instead, for a record
// whose declaration under conditions read the member's value
// (fast.Acc.Decl) and that has no member its definition does not declare
// (fast.Acc.Loose): then a field without a slot is absent.
type xparent struct {
	slot int
	node *xnode
	scan bool
}

// fieldSlots sets x.slots (and x.parents) for the records of kind: per
// field, the capture slot of kind's acceptor that holds its value, or -1
// when the slot of its top-level member holds that member's value, to be
// scanned for it (a member of a conditional object); x.slots stays nil
// when the kind has no acceptor or a field has neither (a member inside an
// array).
func (x *Extractor) fieldSlots(kind string) {
	acc := fast.Acceptors[kind]
	if acc == nil {
		return
	}
	slots := make([]int, len(x.fields))
	var parents []xparent
	var cond uint64
	for i, f := range x.fields {
		s := slices.Index(acc.Fields, rules.Ptr(anySlice(f.tokens)...))
		if slots[i] = s; s >= 0 && acc.Cond&(1<<uint(s)) == 0 {
			continue
		}
		p := slices.Index(acc.Fields, rules.Ptr(f.tokens[0]))
		if p < 0 || len(f.tokens) < 2 || acc.Cond&(1<<uint(p)) != 0 {
			return
		}
		k := slices.IndexFunc(parents, func(x xparent) bool { return x.slot == p })
		if k < 0 {
			k = len(parents)
			parents = append(parents, xparent{slot: p, node: x.root.child[slices.Index(x.root.names, f.tokens[0])]})
		}
		if s < 0 {
			slots[i] = -1
			parents[k].scan = true
		} else {
			cond |= 1 << uint(i)
		}
	}
	// A field under a parent that is scanned anyway is found there.
	for i, f := range x.fields {
		if cond&(1<<uint(i)) == 0 {
			continue
		}
		p := slices.Index(acc.Fields, rules.Ptr(f.tokens[0]))
		if k := slices.IndexFunc(parents, func(x xparent) bool { return x.slot == p }); parents[k].scan {
			slots[i], cond = -1, cond&^(1<<uint(i))
		}
	}
	x.slots, x.parents, x.cond = slots, parents, cond
	for i, s := range slots {
		if s >= 0 {
			x.slotMask |= 1 << uint(s)
			x.slotFields[s] |= 1 << uint(i)
		}
	}
}

// captured sets the entries of out (len(x.fields) values) that the
// spans the acceptor recorded in line hold (what extract finds, scanning
// only the values of x.parents) and returns them; it leaves the others
// as they are.
func (x *Extractor) captured(line []byte, a *fast.Acc, out []rules.Value) uint64 {
	var found uint64
	// The conditional slots are read when every parent of such fields
	// was read by a declaration that records them and the record has no
	// undeclared member; otherwise those parents are scanned.
	cond := x.cond
	if cond != 0 && a.Loose {
		cond = 0
	}
	for _, p := range x.parents {
		if !p.scan && a.Decl&(1<<uint(p.slot)) == 0 {
			cond = 0
		}
	}
	skip := uint64(0) // fields not read from their slots
	if cond == 0 {
		skip = x.cond
	}
	for g := a.Got & x.slotMask; g != 0; g &= g - 1 {
		s := bits.TrailingZeros64(g)
		sp := a.Spans[s]
		raw := line[sp.Start:sp.End]
		for f := x.slotFields[s] &^ skip; f != 0; f &= f - 1 {
			i := bits.TrailingZeros64(f)
			found |= 1 << uint(i)
			if x.strs&(1<<uint(i)) != 0 && len(raw) >= 2 && raw[0] == '"' {
				// convert's most common case, one write of the value,
				// field by field (a composite literal is built on the
				// stack, then copied).
				if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 {
					v := &out[i]
					v.Type, v.Str, v.Num, v.Time, v.Column = rules.ValueString, s, 0, 0, int(sp.Start)+1
					continue
				}
			}
			out[i] = rules.Value{}
			x.convert(&x.fields[i], raw, int(sp.Start), &out[i])
		}
	}
	for _, p := range x.parents {
		if a.Got&(1<<uint(p.slot)) == 0 || !p.scan && cond != 0 {
			continue
		}
		if sp := a.Spans[p.slot]; sp.End > sp.Start && line[sp.Start] == '{' {
			x.object(line[:sp.End], int(sp.Start), p.node, out, &found)
		}
	}
	return found
}

type xfield struct {
	tokens []string
	typ    rules.FieldType
	digest *rules.Digest // typ's digest (rules.DigestField), or nil
}

// xnode is one level of the fields' pointers: the distinct member names
// at that level and, per name, the fields that end there and the level
// below (nil when no field goes deeper). A member name is looked up by its
// nameKey in a small hash table of the level's names (slot), then compared
// with the one name found there, if any.
type xnode struct {
	names []string
	keys  []uint64 // nameKey of each name: compared before the name
	here  []uint64
	child []*xnode
	// slot is an open-addressing table of the names by nameKey (index+1,
	// 0: empty), a power of two at least twice their number; shift maps a
	// key's product with keyMul to a slot.
	slot  []uint8
	shift uint
}

// keyMul spreads a nameKey over the bits that pick its slot.
const keyMul = 0x9e3779b97f4a7c15

// nameKey packs the length and the first seven bytes of a member name:
// names of other keys differ, names of one key are compared.
func nameKey[S []byte | string](s S) uint64 {
	k := uint64(len(s)) << 56
	if len(s) >= 8 {
		b := s[:8]
		return k | (uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48)
	}
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// find returns the index of name among n.names, or len(n.names).
func (n *xnode) find(name []byte) int {
	key := nameKey(name)
	mask := uint64(len(n.slot) - 1)
	for h := key * keyMul >> n.shift; ; h = (h + 1) & mask {
		k := int(n.slot[h]) - 1
		if k < 0 {
			return len(n.names)
		}
		if n.keys[k] == key && n.names[k] == string(name) {
			return k
		}
	}
}

// index makes n.slot (and its levels' below) from n.keys.
func (n *xnode) index() {
	size, bits := 8, uint(3)
	for size < 2*len(n.names) {
		size, bits = size*2, bits+1
	}
	n.slot, n.shift = make([]uint8, size), 64-bits
	for k, key := range n.keys {
		h := key * keyMul >> n.shift
		for n.slot[h] != 0 {
			h = (h + 1) & uint64(size-1)
		}
		n.slot[h] = uint8(k + 1)
	}
	for _, c := range n.child {
		if c != nil {
			c.index()
		}
	}
}

func (n *xnode) add(tokens []string, bit uint64) {
	k := 0
	for k < len(n.names) && n.names[k] != tokens[0] {
		k++
	}
	if k == len(n.names) {
		n.names, n.here, n.child = append(n.names, tokens[0]), append(n.here, 0), append(n.child, nil)
		n.keys = append(n.keys, nameKey(tokens[0]))
	}
	if len(tokens) == 1 {
		n.here[k] |= bit
		return
	}
	if n.child[k] == nil {
		n.child[k] = &xnode{}
	}
	n.child[k].add(tokens[1:], bit)
}

// NewExtractor compiles fields (at most 64; pointers were checked by
// rules.RegisterStream) for records of the kind named kindName: when that
// kind's acceptor captures every field, Values reads them from its spans
// instead of scanning the record again. kindName "" scans always.
func NewExtractor(kindName string, fields []rules.Field) *Extractor {
	x := &Extractor{root: &xnode{}}
	for i, f := range fields {
		toks, _ := rules.PointerTokens(f.Pointer)
		x.fields = append(x.fields, xfield{tokens: toks, typ: f.Type, digest: f.Type.Digest()})
		x.all |= 1 << uint(i)
		if f.Type == rules.FieldString {
			x.strs |= 1 << uint(i)
		}
		x.root.add(toks, 1<<uint(i))
	}
	x.root.index()
	if kindName != "" {
		x.fieldSlots(kindName)
	}
	return x
}

// Values fills out (one value per field, in order) from the record line: from
// the spans that acc, the kind's acceptor state after it accepted line
// (Validator.Captured), recorded when acc is not nil and holds every field,
// otherwise by scanning line. Values of fields that are absent or of another
// type are zero.
func (x *Extractor) Values(line []byte, acc *fast.Acc, out []rules.Value) {
	x.Over(line, acc, out, ^uint64(0)>>(64-uint(len(out))))
}

// Over is Values for an out whose entries outside dirty (bit i: out[i])
// are zero already, as a caller that reuses its values' memory knows from
// the sets Over returned before: it writes the entries it finds, zeroes
// the dirty ones it does not, and returns the set of entries it found
// (the only ones that may not be zero afterwards). Clean entries that stay
// absent are not written, so their memory is not touched.
func (x *Extractor) Over(line []byte, acc *fast.Acc, out []rules.Value, dirty uint64) (found uint64) {
	if acc != nil && x.slots != nil {
		found = x.captured(line, acc, out)
	} else if i := fast.SkipWS(line, 0); i < len(line) && line[i] == '{' && len(x.fields) > 0 {
		x.object(line, i, x.root, out, &found)
	}
	for z := dirty &^ found; z != 0; z &= z - 1 {
		out[bits.TrailingZeros64(z)] = rules.Value{}
	}
	return found
}

// extract fills out (len(x.fields) values) from the record line.
func (x *Extractor) extract(line []byte, out []rules.Value) {
	x.Over(line, nil, out, ^uint64(0)>>(64-uint(len(out))))
}

// object scans the object at line[i] == '{' for the fields of node. It
// returns the index after the object, or -1 on malformed input or when
// every field was found.
func (x *Extractor) object(line []byte, i int, node *xnode, out []rules.Value, found *uint64) int {
	i = fast.SkipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		return i + 1
	}
	for i < len(line) {
		if line[i] != '"' {
			return -1
		}
		end, esc := skipName(line, i)
		if end < 0 {
			return -1
		}
		name := line[i+1 : end-1]
		if esc {
			var ok bool
			if x.buf, ok = unquoteAppend(x.buf[:0], line[i:end]); !ok {
				return -1
			}
			name = x.buf
		}
		i = fast.SkipWS(line, end)
		if i >= len(line) || line[i] != ':' {
			return -1
		}
		i = fast.SkipWS(line, i+1)
		if i >= len(line) {
			return -1
		}
		k := node.find(name)
		start := i
		if k < len(node.names) && node.child[k] != nil && line[i] == '{' {
			i = x.object(line, i, node.child[k], out, found)
		} else {
			i = fast.SkipValue(line, i)
		}
		if i < 0 {
			return -1
		}
		if k < len(node.names) {
			for f := node.here[k]; f != 0; f &= f - 1 {
				b := bits.TrailingZeros64(f)
				if *found&(1<<uint(b)) == 0 {
					out[b] = rules.Value{} // a repeated member overwrites as it did
				}
				x.convert(&x.fields[b], line[start:i], start, &out[b])
				*found |= 1 << uint(b)
			}
		}
		if *found == x.all {
			return -1
		}
		i = fast.SkipWS(line, i)
		if i >= len(line) {
			return -1
		}
		switch line[i] {
		case ',':
			i = fast.SkipWS(line, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
	return -1
}

// skipName is fast.SkipString of the member name at line[i] == '"', and
// whether the name has an escape: eight bytes at a time up to the first
// '"' or '\\' (most names end within the first eight or sixteen).
func skipName(line []byte, i int) (end int, esc bool) {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	for j := i + 1; j+8 <= len(line); j += 8 {
		x := binary.LittleEndian.Uint64(line[j:])
		q := x ^ (lsb * '"')
		b := x ^ (lsb * '\\')
		if t := ((q-lsb)&^q | (b-lsb)&^b) & msb; t != 0 {
			if j += bits.TrailingZeros64(t) >> 3; line[j] == '"' {
				return j + 1, false
			}
			return fast.SkipString(line, i), true
		}
	}
	end = fast.SkipString(line, i)
	return end, end >= 0 && bytes.IndexByte(line[i+1:end-1], '\\') >= 0
}

// convert stores the raw JSON value found at byte offset off as f's type.
func (x *Extractor) convert(f *xfield, raw []byte, off int, v *rules.Value) {
	v.Column = off + 1
	v.Type = rules.ValueOther
	if len(raw) == 0 {
		return
	}
	switch c := raw[0]; {
	case f.typ == rules.FieldRaw:
		v.Type, v.Str = rules.ValueRaw, raw
	case f.digest != nil:
		v.Type, v.Str = rules.ValueRaw, raw
		n := len(x.Arena)
		if d, ok, found := x.Digests.Lookup(f.digest, raw); found {
			if ok {
				x.Arena = append(x.Arena, d...)
				v.Type, v.Str = rules.ValueDigest, x.Arena[n:len(x.Arena):len(x.Arena)]
			}
		} else if out, ok := f.digest.Make(x.Arena, raw); ok {
			x.Arena = out
			v.Type, v.Str = rules.ValueDigest, x.Arena[n:len(x.Arena):len(x.Arena)]
		}
	case c == '"' && (f.typ == rules.FieldString || f.typ == rules.FieldTime):
		s := raw[1 : len(raw)-1]
		if bytes.IndexByte(s, '\\') >= 0 {
			n := len(x.Arena)
			var ok bool
			if x.Arena, ok = unquoteAppend(x.Arena, raw); !ok {
				x.Arena = x.Arena[:n]
				return
			}
			s = x.Arena[n:len(x.Arena):len(x.Arena)]
		}
		v.Type, v.Str = rules.ValueString, s
		if f.typ == rules.FieldTime && len(s) > 0 {
			if ns, ok := x.minutes.UnixNano(unsafe.String(&s[0], len(s))); ok {
				v.Type, v.Time = rules.ValueTime, ns
			}
		}
	case (c == '-' || ('0' <= c && c <= '9')) && f.typ == rules.FieldNumber:
		if n, err := strconv.ParseFloat(unsafe.String(&raw[0], len(raw)), 64); err == nil {
			v.Type, v.Num = rules.ValueNumber, n
		}
	}
}

// unquoteAppend appends the unescaped content of the JSON string literal q
// to dst; ok is false for an invalid escape.
func unquoteAppend(dst, q []byte) ([]byte, bool) {
	out, err := jsontext.AppendUnquote(dst, q)
	if err != nil {
		return dst, false
	}
	return out, true
}
