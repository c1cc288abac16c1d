package idtab

// Line returns the first word of the 64-byte block that Has and Add read
// for h, so that a batch of lookups can load their blocks together before
// they test them (LoadLines), as Table.Line does for a table's buckets.
func (f *Bloom) Line(h uint64) *uint32 {
	w, _ := f.block(h)
	return &w[0]
}
