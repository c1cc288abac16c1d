package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/agentlint/agentlint/lint/record"
)

// offsetLineReader reads a JSON Lines stream one line at a time, like
// record.LineReader, and also returns each line's byte offset in the input, so
// that a delta can be read again later (rereader).
type offsetLineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
	off  int64 // offset of the next line
}

func newOffsetLineReader(r io.Reader, start int64) *offsetLineReader {
	return &offsetLineReader{r: bufio.NewReaderSize(r, 256<<10), off: start}
}

// next returns the next line without its line ending, its 1-based number,
// its byte offset, whether it ended with CRLF and whether it was longer than
// record.MaxLine (then text is nil). A final line without a newline is still
// returned. At the end it returns io.EOF. text is valid until the next call.
func (lr *offsetLineReader) next() (text []byte, line int, off int64, crlf, tooLong bool, err error) {
	own := lr.buf[:0]
	off = lr.off
	var b []byte // the line: in the reader's buffer when it fits, else in own
	for {
		chunk, e := lr.r.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if !tooLong {
			switch {
			case len(own)+len(chunk) > record.MaxLine+2:
				tooLong = true
				own = own[:0]
			case len(own) == 0 && e == nil:
				b = chunk // the whole line in the reader's buffer: no copy
			default:
				own = append(own, chunk...)
				b = own
			}
		}
		if e == nil {
			break
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e == io.EOF {
			if len(b) == 0 && !tooLong {
				return nil, 0, 0, false, false, io.EOF
			}
			break
		}
		return nil, 0, 0, false, false, e
	}
	lr.buf = own
	lr.line++
	if tooLong {
		return nil, lr.line, off, false, true, nil
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			crlf = true
		}
	}
	return b, lr.line, off, crlf, false, nil
}

// rereader reads a delta of a stream again, by its byte offset: from the
// stream's document in memory (an orchestrator output, or any input held
// whole) or from an input that can be read at an offset (a regular file).
// It keeps one window of the input, so that reading nearby deltas in order
// costs one read of the input per window.
type rereader struct {
	ra    io.ReaderAt // nil: data is the whole input
	data  []byte
	lines bool // JSON Lines: a delta is its line; otherwise a JSON value
	win   []byte
	wOff  int64 // offset of win in the input
	next  int64 // offset after the last delta read (sequential reads get a larger window)
}

// errChanged: a delta read again is not the one read the first time.
var errChanged = errors.New("changed while it was replayed: a delta read again differs from the first reading (inputs must not change during a replay)")

// seekable returns r as an io.ReaderAt with its current offset when r can
// be read again at any offset: it has ReadAt and Seek, and, when it can say
// (Stat), it is a regular file (not a pipe or a terminal).
func seekable(r io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := r.(io.ReaderAt)
	sk, ok2 := r.(io.Seeker)
	if !ok || !ok2 {
		return nil, 0, false
	}
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err := st.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
	}
	off, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, false
	}
	return ra, off, true
}

// at returns the delta at offset off: its line without the line ending (a
// JSON Lines stream) or the JSON value that starts there. The result is
// valid until the next call.
func (rr *rereader) at(off int64) ([]byte, error) {
	if rr.ra == nil {
		if off < 0 || off > int64(len(rr.data)) {
			return nil, errChanged
		}
		return rr.cut(rr.data[off:], true)
	}
	if off >= rr.wOff && off < rr.wOff+int64(len(rr.win)) {
		if v, err := rr.cut(rr.win[off-rr.wOff:], false); err == nil && v != nil {
			rr.next = off + int64(len(v))
			return v, nil
		}
	}
	size := 4 << 10
	if off == rr.next || (off > rr.wOff && off-rr.wOff < int64(len(rr.win))+256<<10) {
		size = 256 << 10 // reading on in order: a larger window
	}
	for {
		if cap(rr.win) < size {
			rr.win = make([]byte, size)
		}
		rr.win = rr.win[:size]
		n, err := rr.ra.ReadAt(rr.win, off)
		rr.win, rr.wOff = rr.win[:n], off
		eof := err == io.EOF || n < size
		if err != nil && err != io.EOF {
			return nil, err
		}
		v, cerr := rr.cut(rr.win, eof)
		if cerr != nil {
			return nil, cerr
		}
		if v != nil {
			rr.next = off + int64(len(v))
			return v, nil
		}
		if size > record.MaxLine+4 {
			return nil, errChanged
		}
		size *= 4
	}
}

// cut returns the delta at the start of b; nil when b ends before the
// delta does and is not the end of the input (whole false).
func (rr *rereader) cut(b []byte, whole bool) ([]byte, error) {
	if rr.lines {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if !whole {
				return nil, nil
			}
			i = len(b)
		}
		return bytes.TrimSuffix(b[:i], []byte{'\r'}), nil
	}
	e := valueEnd(b, 0)
	if e < 0 {
		if !whole {
			return nil, nil
		}
		return nil, errChanged
	}
	return b[:e], nil
}

// rereadError is the *InputError of a stream that could not be read again.
func rereadError(name string, err error) error {
	if errors.Is(err, errChanged) {
		return &InputError{name, errChanged.Error()}
	}
	return &InputError{name, fmt.Sprintf("cannot read again: %v", err)}
}
