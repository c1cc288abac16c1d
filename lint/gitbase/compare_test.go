package gitbase

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"testing"
)

// reference is the append-only rule written directly over two byte slices.
func reference(base, cur []byte) *diff {
	i := 0
	for i < len(base) && i < len(cur) && base[i] == cur[i] {
		i++
	}
	line := bytes.Count(base[:i], nl) + 1
	start := bytes.LastIndexByte(base[:i], '\n') + 1
	if i == len(base) {
		rest := cur[len(base):]
		if len(base) == 0 || base[len(base)-1] == '\n' || len(rest) == 0 || rest[0] == '\n' || bytes.HasPrefix(rest, []byte("\r\n")) {
			return nil
		}
		return &diff{offset: int64(i), line: line, column: i - start + 1, lineStart: int64(start), unterminated: true, baseByte: -1, curByte: int(rest[0])}
	}
	d := &diff{offset: int64(i), line: line, column: i - start + 1, lineStart: int64(start), baseByte: int(base[i]), curByte: -1}
	if i == len(cur) {
		d.truncated = true
	} else {
		d.curByte = int(cur[i])
	}
	return d
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// FuzzCompare checks the streaming comparison against the reference for
// every chunk size from 1 to 8 bytes (chunk boundaries everywhere), and that
// it reads exactly what it says it consumed and never more than size+2 bytes
// of the current file.
func FuzzCompare(f *testing.F) {
	for _, s := range [][2]string{
		{"l1\nl2\n", "l1\nl2\nl3\n"}, {"l1\nl2\n", "l1\n"}, {"l1\r\n", "l1\n"}, {"l1\nl2", "l1\nl2x"},
		{"l1\nl2", "l1\nl2\r\n"}, {"l1\nl2", "l1\nl2\r"}, {"", "x"}, {"abc", ""}, {"a\nb\nc\n", "a\nX\nc\n"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, base, cur []byte) {
		want := reference(base, cur)
		for try := 2; try <= 17; try++ {
			// Sizes known (even tries) and unknown (odd: read to the end).
			chunk, size := try/2, int64(len(base))
			if try%2 == 1 {
				size = -1
			}
			br := &countingReader{r: bytes.NewReader(base)}
			cr := &countingReader{r: bytes.NewReader(cur)}
			got, consumed, err := compare(br, size, cr, make([]byte, chunk), make([]byte, chunk))
			if err != nil {
				t.Fatalf("chunk %d: %v", chunk, err)
			}
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("chunk %d: base %q cur %q: got %+v, want %+v", chunk, base, cur, got, want)
			}
			if consumed != br.n || consumed > int64(len(base)) {
				t.Fatalf("chunk %d: consumed %d, read %d of %d", chunk, consumed, br.n, len(base))
			}
			if cr.n > int64(len(base))+2 {
				t.Fatalf("chunk %d: read %d bytes of the current file, base has %d", chunk, cr.n, len(base))
			}
		}
		// The hash shortcut agrees with the comparison.
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(base))
		h.Write(base)
		cr := &countingReader{r: bytes.NewReader(cur)}
		same, err := sameBlob(cr, hex.EncodeToString(h.Sum(nil)), int64(len(base)), make([]byte, 3))
		if err != nil || same != (want == nil) || cr.n > int64(len(base))+2 {
			t.Fatalf("sameBlob(base %q, cur %q) = %v, %v after %d bytes; reference finding %+v", base, cur, same, err, cr.n, want)
		}
	})
}

func TestCompareBlobShorterThanSize(t *testing.T) {
	_, _, err := compare(bytes.NewReader([]byte("ab")), 5, bytes.NewReader([]byte("abcde")), make([]byte, 4), make([]byte, 4))
	if err == nil {
		t.Fatal("a blob shorter than its header's size must be an error")
	}
}
