package fast

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// skipStringRef is SkipString read one byte at a time: an escape takes
// the byte after it, the first other '"' ends the string.
func skipStringRef(buf []byte, i int) int {
	for j := i + 1; j < len(buf); j++ {
		switch buf[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// TestSkipString: the end of a string literal found eight bytes at a time
// is the end an escape-aware reading finds, for quotes and runs of
// backslashes at every offset of the eight-byte words, multi-byte UTF-8,
// and strings that do not end.
func TestSkipString(t *testing.T) {
	parts := []string{"a", "é", "\\\"", "\\\\", "\\", "\"", "x\\\\\\\"y", "\t", "0123456", "\xff"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", r.IntN(3)))
		i := b.Len()
		b.WriteByte('"')
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		if r.IntN(4) > 0 {
			b.WriteString(`","b":1}`)
		}
		buf := []byte(b.String())
		if got, want := SkipString(buf, i), skipStringRef(buf, i); got != want {
			t.Fatalf("SkipString(%q, %d) = %d, want %d", buf, i, got, want)
		}
	}
}
