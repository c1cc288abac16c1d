package gitbase

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
)

// chunkSize is how many bytes of each version one comparison step holds:
// a comparison keeps two buffers of this size, whatever the file size.
const chunkSize = 64 << 10

// diff is where a current file stops being an append-only extension of its
// version at the base revision.
type diff struct {
	offset    int64 // 0-based byte offset of the first differing or missing byte
	line      int   // 1-based line of that byte, numbered as at the base revision
	column    int   // 1-based byte column of that byte within the line
	lineStart int64 // offset of the first byte of that line
	truncated bool  // the current file is a proper prefix of the base version
	// unterminated: the base version's last line had no newline and the
	// current file continues it (the last record was edited).
	unterminated bool
	baseByte     int // the base version's byte at offset; -1 when none
	curByte      int // the current file's byte at offset; -1 when none
}

// errCurrent wraps an error reading the current file, to tell it apart from
// an error reading the base version (which breaks the git process).
type errCurrent struct{ err error }

func (e errCurrent) Error() string { return "reading the current file: " + e.err.Error() }
func (e errCurrent) Unwrap() error { return e.err }

// compare streams the base version (size bytes from base; size < 0: until
// base ends) against cur and returns nil when cur starts with exactly those
// bytes and, if the base version's last line had no newline, goes on with a
// newline (LF or CRLF) or ends. It reads at most the base version's size
// plus 2 bytes of cur, holding only bufA and bufB (equal lengths, at least
// 1). consumed is how many bytes of base were read: the caller must discard
// the rest of the blob. An error reading cur is returned as errCurrent; any
// other error comes from base.
func compare(base io.Reader, size int64, cur io.Reader, bufA, bufB []byte) (d *diff, consumed int64, err error) {
	var lineStart int64
	line := 1
	var last byte
	for size < 0 || consumed < size {
		n := int64(len(bufA))
		if size >= 0 && size-consumed < n {
			n = size - consumed
		}
		k, err := io.ReadFull(base, bufA[:n])
		end := false
		if err != nil {
			if size >= 0 || err != io.EOF && err != io.ErrUnexpectedEOF {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, consumed, fmt.Errorf("reading the blob at the base revision: %w", err)
			}
			end = true
		}
		if k == 0 {
			break
		}
		a, off := bufA[:k], consumed
		consumed += int64(k)
		m, cerr := io.ReadFull(cur, bufB[:k])
		if cerr != nil && cerr != io.EOF && cerr != io.ErrUnexpectedEOF {
			return nil, consumed, errCurrent{cerr}
		}
		b := bufB[:m]
		i := firstDiff(a[:m], b)
		if i < 0 && m < k {
			i = m // the current file ends inside this chunk
		}
		if i >= 0 {
			line, lineStart = countLines(a[:i], off, line, lineStart)
			d := &diff{offset: off + int64(i), line: line, lineStart: lineStart, baseByte: int(a[i]), curByte: -1}
			d.column = int(d.offset-lineStart) + 1
			if i < m {
				d.curByte = int(b[i])
			} else {
				d.truncated = true
			}
			return d, consumed, nil
		}
		line, lineStart = countLines(a, off, line, lineStart)
		last = a[k-1]
		if end {
			break
		}
	}
	if consumed == 0 || last == '\n' {
		return nil, consumed, nil
	}
	// The base version ends inside a line: that record may only be finished
	// by a line ending, never continued.
	ok, next, err := terminated(cur)
	if err != nil || ok {
		return nil, consumed, err
	}
	return &diff{offset: consumed, line: line, lineStart: lineStart, column: int(consumed-lineStart) + 1,
		unterminated: true, baseByte: -1, curByte: next}, consumed, nil
}

// terminated reads what follows a base version whose last line has no
// newline: ok when nothing, LF or CRLF follows; next is the first byte.
func terminated(cur io.Reader) (ok bool, next int, err error) {
	var p [2]byte
	m, err := io.ReadFull(cur, p[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, 0, errCurrent{err}
	}
	if m == 0 {
		return true, -1, nil
	}
	return p[0] == '\n' || m == 2 && p[0] == '\r' && p[1] == '\n', int(p[0]), nil
}

// sameBlob reports whether the first size bytes of r hash to the blob id
// oid (git's object id: SHA-1, or SHA-256 in a sha256 repository, of
// "blob <size>\0" and the bytes) and what follows them is nothing, or a
// newline when they do not end with one: exactly the compliant case of
// compare. As in git itself, equal ids mean equal content. false means
// "compare byte by byte"; r is then read partway. It reads at most size+2
// bytes of r.
func sameBlob(r io.Reader, oid string, size int64, buf []byte) (bool, error) {
	h := blobHash(oid, size)
	if h == nil {
		return false, nil
	}
	var last byte
	for off := int64(0); off < size; {
		n := int64(len(buf))
		if size-off < n {
			n = size - off
		}
		_, err := io.ReadFull(r, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil // shorter than at REV
		}
		if err != nil {
			return false, errCurrent{err}
		}
		h.Write(buf[:n])
		last = buf[n-1]
		off += n
	}
	if hex.EncodeToString(h.Sum(buf[:0])) != oid {
		return false, nil
	}
	if size == 0 || last == '\n' {
		return true, nil
	}
	ok, _, err := terminated(r)
	return ok, err
}

// firstDiff returns the index of the first byte where a and b (equal length)
// differ, or -1.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	// Narrow down by halves: bytes.Equal is vectorised, a byte loop is not.
	lo, hi := 0, len(a)
	for hi-lo > 64 {
		mid := lo + (hi-lo)/2
		if bytes.Equal(a[lo:mid], b[lo:mid]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for i := lo; i < hi; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// countLines advances the line count over p, which starts at offset off.
func countLines(p []byte, off int64, line int, lineStart int64) (int, int64) {
	if n := bytes.Count(p, nl); n > 0 {
		line += n
		lineStart = off + int64(bytes.LastIndexByte(p, '\n')) + 1
	}
	return line, lineStart
}

var nl = []byte{'\n'}

// discard reads and drops n bytes of r.
func discard(r io.Reader, n int64) error {
	if n <= 0 {
		return nil
	}
	m, err := io.CopyN(io.Discard, r, n)
	if err == io.EOF && m < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}

var errProtocol = errors.New("git cat-file: unexpected output")

// blobHash returns git's object hash of a blob of size bytes, its header
// "blob <size>\0" written, for an object id of oid's length (SHA-1, or
// SHA-256 in a sha256 repository); nil for an id of another length.
func blobHash(oid string, size int64) hash.Hash {
	var h hash.Hash
	switch len(oid) {
	case 2 * sha1.Size:
		h = sha1.New()
	case 2 * sha256.Size:
		h = sha256.New()
	default:
		return nil
	}
	fmt.Fprintf(h, "blob %d\x00", size)
	return h
}
