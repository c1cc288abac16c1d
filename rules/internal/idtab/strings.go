package idtab

import (
	"bytes"
	"encoding/binary"
)

// Strings numbers distinct byte strings exactly: 1 for the first one
// added, 2 for the next, and so on. Each string is stored once in an arena
// (its length as a uvarint, then its bytes) and indexed by a Table of
// 12-byte entries (its hash and number): about len+17 bytes a string
// instead of a Go map's ~2x. Not safe for concurrent use.
type Strings struct {
	idx   *Table
	offs  []uint64 // arena offset of string n at offs[n-1]
	arena []byte
	e     [3]uint32
}

// NewStrings returns an empty set.
func NewStrings() *Strings {
	return &Strings{idx: New(3, func(e []uint32) uint64 { return uint64(e[0]) | uint64(e[1])<<32 })}
}

// Len returns the number of distinct strings.
func (s *Strings) Len() int { return len(s.offs) }

// Bytes returns the memory the set takes (arena, offsets and index).
func (s *Strings) Bytes() int { return cap(s.arena) + 8*cap(s.offs) + s.idx.Bytes() }

// Get returns the number of b, or 0 when b was never added.
func (s *Strings) Get(b []byte) uint32 {
	h := HashBytes(b)
	c := s.idx.Probe(h)
	for e := c.Next(); e != nil; e = c.Next() {
		if e[0] == uint32(h) && e[1] == uint32(h>>32) && bytes.Equal(s.At(e[2]), b) {
			return e[2]
		}
	}
	return 0
}

// Line is Table.Line for the home bucket of b.
func (s *Strings) Line(b []byte) *uint32 { return s.idx.Line(HashBytes(b)) }

// Add returns the number of b, numbering it when new (added true).
func (s *Strings) Add(b []byte) (n uint32, added bool) {
	h := HashBytes(b)
	c := s.idx.Probe(h)
	for e := c.Next(); e != nil; e = c.Next() {
		if e[0] == uint32(h) && e[1] == uint32(h>>32) && bytes.Equal(s.At(e[2]), b) {
			return e[2], false
		}
	}
	s.offs = append(s.offs, uint64(len(s.arena)))
	s.arena = binary.AppendUvarint(s.arena, uint64(len(b)))
	s.arena = append(s.arena, b...)
	n = uint32(len(s.offs))
	s.e = [3]uint32{uint32(h), uint32(h >> 32), n}
	c.Put(s.e[:])
	return n, true
}

// At returns string n (1-based); it points into the arena: copy it to keep it.
func (s *Strings) At(n uint32) []byte {
	off := s.offs[n-1]
	l, k := binary.Uvarint(s.arena[off:])
	start := off + uint64(k)
	return s.arena[start : start+l : start+l]
}

// Free releases the set's memory; it is empty afterwards.
func (s *Strings) Free() {
	s.idx.Free()
	s.offs, s.arena = nil, nil
}
