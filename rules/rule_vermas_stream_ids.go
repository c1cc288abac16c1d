package rules

import "bytes"

// idTable maps the ids of the projections (work_orders.jsonl,
// messages.jsonl) to a small number (an index into a slice of states) with
// compact keys, so that a stream rule's memory is proportional to the number of
// distinct ids, not to the size of the file: an id of at most 16
// bytes without a NUL byte (every id of seed 000's examples: evt-{random12}
// is 16 bytes) is stored inline in a fixed-size key, without an allocation
// of its own; a longer one is stored as a string. Lookups with a []byte key
// do not allocate.
type idTable struct {
	short map[[16]byte]uint32
	long  map[string]uint32
}

func newIDTable() *idTable { return &idTable{short: map[[16]byte]uint32{}} }

// shortKey packs id into an inline key; ok is false when it does not fit
// (the zero padding must not be mistaken for NUL bytes of the id).
func shortKey(id []byte) (k [16]byte, ok bool) {
	if len(id) > len(k) || bytes.IndexByte(id, 0) >= 0 {
		return k, false
	}
	copy(k[:], id)
	return k, true
}

// get returns the number stored for id.
func (t *idTable) get(id []byte) (uint32, bool) {
	if k, ok := shortKey(id); ok {
		v, ok := t.short[k]
		return v, ok
	}
	v, ok := t.long[string(id)]
	return v, ok
}

// add stores v for id unless id is present; it returns the number stored
// before and true when id was present.
func (t *idTable) add(id []byte, v uint32) (prev uint32, dup bool) {
	if k, ok := shortKey(id); ok {
		if p, ok := t.short[k]; ok {
			return p, true
		}
		t.short[k] = v
		return 0, false
	}
	if p, ok := t.long[string(id)]; ok {
		return p, true
	}
	if t.long == nil {
		t.long = map[string]uint32{}
	}
	t.long[string(id)] = v
	return 0, false
}

// len is the number of distinct ids.
func (t *idTable) len() int { return len(t.short) + len(t.long) }

// interner returns one shared copy of each distinct string (agent ids,
// statuses), so that thousands of work orders assigned to a few agents
// hold a few strings.
type interner map[string]string

func (in interner) of(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}
