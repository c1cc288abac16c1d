//go:build !amd64

package fast

import "unsafe"

// plainRun16 is plainRunGo where no assembly version exists.
func plainRun16(p *byte, n int) int { return plainRunGo(unsafe.Slice(p, n)) }

// hasPlainRun16 is true where plainRun16 is not the portable plainRunGo.
const hasPlainRun16 = false
