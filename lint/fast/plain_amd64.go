package fast

// plainRun16 returns the index in p[:n] of the first byte a JSON string
// cannot hold as it is ('"', '\\', a control character or a byte >= 0x80),
// reading sixteen bytes at a time; when the whole 16-byte blocks of p[:n]
// hold none, it returns their length (n rounded down to a multiple of 16),
// and the caller reads the rest. p must point at n readable bytes.
//
//go:noescape
func plainRun16(p *byte, n int) int

// hasPlainRun16 is true where plainRun16 is not the portable plainRunGo.
const hasPlainRun16 = true
