package rules

import (
	"sync"
	"unsafe"
)

// Digests: a stream rule that reads a nested value of every record (the
// frames of an idle STATE's stack, seed 002 section 5) would scan its JSON
// text in the engine's sequential stage, once per record. A Field may
// instead declare a Digest: the workers, in parallel, turn the value's JSON
// text into a compact form (its digest) that Observe reads as a table,
// without scanning: the Field's Type is the FieldType that DigestField
// returns for the Digest. A document rule that reads the same value of a record
// read in place asks for the same digest (Doc.digest): the engine keeps the
// digests it made of a record (DigestMemo) and the stream rules' extraction
// reuses them, so the value is scanned once for both.
//
// A digest is exact or absent: Make declines (ok false) whatever it does
// not read exactly as decoding reads it, and the value is then passed as
// its JSON text (ValueRaw), which the rule reads itself as it would
// without a digest.

// Digest is a reading of the JSON text of one value that the workers make
// for the rules that declare it (a Field of its DigestField type,
// Doc.digest): IL101 and IL009/IL012/IL015 read an idle stack's frames so
// (seed 002 section 5; rule_idle_digest.go). The rules that use one Digest
// agree on its layout; the engine only stores the bytes.
type Digest struct {
	// Name names the digest in errors and tests.
	Name string
	// Make appends the digest of raw, the JSON text of a value (empty when
	// the record has none), to dst and returns the extended slice; ok false
	// declines (dst is then returned with its length unchanged). It must
	// not keep raw or dst, and must be safe for concurrent use.
	Make func(dst, raw []byte) (out []byte, ok bool)
}

// fieldDigest0 is the first FieldType of a digest (DigestField).
const fieldDigest0 FieldType = 64

// digests are the digests of the FieldTypes DigestField made, from
// fieldDigest0 up.
var (
	digestMu sync.Mutex
	digests  []*Digest
)

// DigestField returns the FieldType whose values the workers pass as
// their digest d (Type ValueDigest; ValueRaw, the JSON text, when d
// declines), the same type for the same d. Call it once per Digest, at
// package level: at most 192 digests. It panics beyond that.
func DigestField(d *Digest) FieldType {
	digestMu.Lock()
	defer digestMu.Unlock()
	for i, x := range digests {
		if x == d {
			return fieldDigest0 + FieldType(i)
		}
	}
	if int(fieldDigest0)+len(digests) > 255 {
		panic("rules: DigestField: too many digests")
	}
	digests = append(digests, d)
	return fieldDigest0 + FieldType(len(digests)-1)
}

// Digest returns the Digest of a FieldType that DigestField made, nil for
// any other type.
func (t FieldType) Digest() *Digest {
	if t < fieldDigest0 {
		return nil
	}
	digestMu.Lock()
	defer digestMu.Unlock()
	if i := int(t - fieldDigest0); i < len(digests) {
		return digests[i]
	}
	return nil
}

// DigestMemo keeps the digests made of the values of one record, so that
// the document rules and the stream rules' extraction make each once: the
// engine resets it before each record, lends it to the record's Doc
// (Doc.Digests) and to the extraction of the same record. A digest is
// found again by its Digest and the identity of the JSON text it was made
// of (the same bytes of the same record). Not safe for concurrent use.
type DigestMemo struct {
	ents []memoEntry
	buf  []byte
}

// memoEntry is one digest of a DigestMemo: made by dg of the n bytes at
// raw, in buf[start:end] (ok false: dg declined).
type memoEntry struct {
	dg         *Digest
	raw        *byte
	n          int
	start, end int
	ok         bool
}

// Reset forgets the digests of the last record (its buffers are kept,
// up to a bound: one record's large digest is not held for the run).
func (m *DigestMemo) Reset() {
	m.ents = m.ents[:0]
	if cap(m.buf) > 64<<10 {
		m.buf = nil
	}
	m.buf = m.buf[:0]
}

// Lookup returns the digest dg made of raw since the last Reset: found is
// false when it was not made; ok is false when dg declined. The digest is
// valid until the next Reset. A nil memo finds nothing.
func (m *DigestMemo) Lookup(dg *Digest, raw []byte) (digest []byte, ok, found bool) {
	if m == nil {
		return nil, false, false
	}
	p := unsafe.SliceData(raw)
	for i := range m.ents {
		if e := &m.ents[i]; e.dg == dg && e.raw == p && e.n == len(raw) {
			return m.buf[e.start:e.end:e.end], e.ok, true
		}
	}
	return nil, false, false
}

// Of returns the digest dg makes of raw, made on first use since the last
// Reset (Lookup); ok is false when dg declined. The digest is valid until
// the next Reset.
func (m *DigestMemo) Of(dg *Digest, raw []byte) (digest []byte, ok bool) {
	if d, ok, found := m.Lookup(dg, raw); found {
		return d, ok
	}
	start := len(m.buf)
	m.buf, ok = dg.Make(m.buf, raw)
	if !ok {
		m.buf = m.buf[:start]
	}
	m.ents = append(m.ents, memoEntry{dg: dg, raw: unsafe.SliceData(raw), n: len(raw), start: start, end: len(m.buf), ok: ok})
	return m.buf[start:len(m.buf):len(m.buf)], ok
}

// Put records digest (ok false: declined) as the one dg makes of raw, for
// Lookup: a rule that reads raw some other way (from what the kind's
// acceptor recorded of it) makes exactly what dg.Make would. It returns
// the digest as the memo holds it, valid until the next Reset.
func (m *DigestMemo) Put(dg *Digest, raw, digest []byte, ok bool) []byte {
	start := len(m.buf)
	if ok {
		m.buf = append(m.buf, digest...)
	}
	m.ents = append(m.ents, memoEntry{dg: dg, raw: unsafe.SliceData(raw), n: len(raw), start: start, end: len(m.buf), ok: ok})
	return m.buf[start:len(m.buf):len(m.buf)]
}

// digest returns the digest dg makes of raw, the JSON text of a value of
// d read in place, from the engine's memo of d's record (Doc.Digests) or
// made on first use.
func (d *Doc) digest(dg *Digest, raw []byte) ([]byte, bool) {
	if d.Digests == nil {
		d.Digests = new(DigestMemo)
	}
	return d.Digests.Of(dg, raw)
}
