package replay

import (
	"bytes"

	"github.com/agentlint/agentlint/lint/record"
)

// span is one JSON value inside an input file: its text and the 1-based line
// and column of its first byte. text may be nil when it is no longer held
// (a JSON Lines delta after its line was read); positions then fall back to
// the value's start.
type span struct {
	text      []byte
	line, col int
}

// at returns the line and column of the value at JSON Pointer ptr (relative
// to the span's value), or of its nearest existing ancestor.
func (s span) at(ptr string) (int, int) {
	if s.text == nil {
		return s.line, s.col
	}
	line, col := record.LineCol(s.text, record.Locate(s.text, ptr), s.line)
	if line == s.line {
		col += s.col - 1
	}
	return line, col
}

// lineCounter converts increasing byte offsets of one text into 1-based
// lines and columns in time linear in the text, for walks over a document.
type lineCounter struct {
	text      []byte
	off       int
	line, bol int // line of off; offset of the start of that line
}

func newLineCounter(text []byte, line1 int) *lineCounter {
	return &lineCounter{text: text, line: line1}
}

// pos returns the line and column of offset off; off must not decrease
// between calls.
func (c *lineCounter) pos(off int) (int, int) {
	for {
		i := bytes.IndexByte(c.text[c.off:off], '\n')
		if i < 0 {
			break
		}
		c.off += i + 1
		c.line++
		c.bol = c.off
	}
	c.off = off
	return c.line, off - c.bol + 1
}

// valueStart skips white space and the separators ',' and ':' from off: a
// decoder's offset before a value points just after the previous token.
func valueStart(text []byte, off int) int {
	return off + int(record.Locate(text[off:], ""))
}
