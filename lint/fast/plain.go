package fast

// plainRunGo is plainRun16 in Go, eight bytes at a time (the reference
// its tests hold the assembly to): the index in b of the first byte a JSON
// string cannot hold as it is, else len(b) rounded down to a multiple of 16.
func plainRunGo(b []byte) int {
	n := len(b) &^ 15
	if j := scanPlain(b[:n], 0); j < n {
		return j
	}
	return n
}
