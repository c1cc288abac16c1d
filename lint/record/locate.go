package record

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Locate returns the byte offset in raw where the value at JSON Pointer ptr
// starts, or the offset of its nearest existing ancestor (0 for the root).
// It reads tokens up to that value only; it is used for findings of document
// rules, never on the hot path.
func Locate(raw []byte, ptr string) int64 {
	if ptr == "" {
		return skipSpace(raw, 0)
	}
	d := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	best := int64(0)
	for {
		before := d.InputOffset()
		k := d.PeekKind()
		if k == 0 {
			return best
		}
		if k == '}' || k == ']' {
			if _, err := d.ReadToken(); err != nil {
				return best
			}
			continue
		}
		var err error
		if k == '{' || k == '[' {
			_, err = d.ReadToken()
		} else {
			_, err = d.ReadValue()
		}
		if err == io.EOF || err != nil {
			return best
		}
		p := string(d.StackPointer())
		// After reading an object member name, StackPointer names the member;
		// values are read next. Track the start of the value at ptr.
		if p == ptr && (d.StackDepth() == 0 || !isName(d)) {
			return skipSpace(raw, before)
		}
		if len(p) < len(ptr) && ptr[:len(p)] == p && (len(ptr) == len(p) || ptr[len(p)] == '/') {
			best = skipSpace(raw, before)
		}
	}
}

// isName reports whether the decoder just read an object member name.
func isName(d *jsontext.Decoder) bool {
	k, n := d.StackIndex(d.StackDepth())
	return k == '{' && n%2 == 1
}

func skipSpace(raw []byte, off int64) int64 {
	for off < int64(len(raw)) {
		switch raw[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// LineCol converts a byte offset into raw into a 1-based line and byte column.
func LineCol(raw []byte, off int64, line1 int) (int, int) {
	if off > int64(len(raw)) {
		off = int64(len(raw))
	}
	b := raw[:off]
	return line1 + bytes.Count(b, []byte{'\n'}), int(off) - (bytes.LastIndexByte(b, '\n') + 1) + 1
}
