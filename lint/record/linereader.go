package record

import (
	"bufio"
	"errors"
	"io"
)

// MaxLine is the longest JSON Lines record read (64 MiB, line ending not
// counted); a longer line is reported (AL009) and skipped, and the rest of
// the file is still checked.
const MaxLine = 64 << 20

// LineReader reads JSON Lines records from r one at a time, in memory
// bounded by the longest line (at most MaxLine plus the read buffer). The
// lint engine cuts files into chunks instead (package lint); LineReader
// serves sequential readers such as the replayer's JSON Lines streams.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

// NewLineReader returns a reader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// Next returns the next line without its line ending, its 1-based number,
// whether it ended with CRLF and whether it was longer than MaxLine (then
// text is nil). A final line without a newline is still returned. At the end
// it returns io.EOF. text is valid until the next call.
func (lr *LineReader) Next() (text []byte, line int, crlf, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, e := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLine+2 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if e == nil {
			break
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e == io.EOF {
			if len(lr.buf) == 0 && !tooLong {
				return nil, 0, false, false, io.EOF
			}
			break
		}
		return nil, 0, false, false, e
	}
	lr.line++
	if tooLong {
		return nil, lr.line, false, true, nil
	}
	b := lr.buf
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			crlf = true
		}
	}
	return b, lr.line, crlf, false, nil
}

// Stats counts what a lint run saw (the summary envelope's details).
