// Package fingerprint identifies a finding across runs and commits without
// its line number: the rule, the file's path, the JSON Pointer and a hash of
// the record's bytes. SARIF's partialFingerprints, `agentlint lint
// --write-baseline`, `--baseline` and `--new-from-rev` all use it (README,
// "Adopting agentlint in a repository that already has data").
//
// A record's bytes are its line without the line ending ("\n" or "\r\n")
// for a JSON Lines file, and the whole file for a document. The hash is
// SHA-256; nothing of a value is kept in clear, so no secret is echoed.
package fingerprint

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
)

// Fingerprint is one finding's identity: Rule (an ID such as "LG012"),
// Path (slash-separated, relative to the repository's top level, or to the
// working directory outside a repository), Pointer (RFC 6901) and Record,
// the hex SHA-256 of the record's bytes ("" when they cannot be read again:
// standard input). It holds no line number and no value.
type Fingerprint struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Pointer string `json:"pointer"`
	Record  string `json:"record"`
}

// Key is a fixed-size digest of a Fingerprint (the first 16 bytes of the
// SHA-256 of its four fields, each followed by a NUL), for compact sets.
type Key [16]byte

// Key returns f's Key.
func (f Fingerprint) Key() Key {
	h := sha256.New()
	for _, s := range []string{f.Rule, f.Path, f.Pointer, f.Record} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	var k Key
	copy(k[:], h.Sum(nil))
	return k
}

// Less orders fingerprints by path, rule, pointer and record (the order of
// a baseline file).
func (f Fingerprint) Less(g Fingerprint) bool {
	switch {
	case f.Path != g.Path:
		return f.Path < g.Path
	case f.Rule != g.Rule:
		return f.Rule < g.Rule
	case f.Pointer != g.Pointer:
		return f.Pointer < g.Pointer
	}
	return f.Record < g.Record
}

// Lines reads the records of one file forward, line by line, and hashes
// the lines asked for, in memory bounded by its buffer whatever a line's
// length. Asking for a line before the last one asked reopens the file.
// The zero value is ready; Close releases the file.
type Lines struct {
	path string
	f    *os.File
	br   *bufio.Reader
	line int // lines consumed so far
	eof  bool
}

// Hash returns the hex SHA-256 of line n (1-based) of the file at path,
// without its line ending; "" when the file cannot be read or has no such
// line.
func (l *Lines) Hash(path string, n int) string {
	if n < 1 {
		return ""
	}
	if l.f == nil || l.path != path || n <= l.line {
		l.Close()
		f, err := os.Open(path)
		if err != nil {
			return ""
		}
		l.path, l.f, l.line, l.eof = path, f, 0, false
		if l.br == nil {
			l.br = bufio.NewReaderSize(f, 64<<10)
		} else {
			l.br.Reset(f)
		}
	}
	for !l.eof && l.line < n-1 {
		l.skip()
	}
	if l.eof {
		return ""
	}
	return l.hashLine()
}

// skip consumes one line.
func (l *Lines) skip() {
	for {
		_, err := l.br.ReadSlice('\n')
		if err == nil {
			l.line++
			return
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.eof = true
		return
	}
}

// hashLine consumes and hashes one line.
func (l *Lines) hashLine() string {
	h := sha256.New()
	pendingCR, any := false, false
	for {
		chunk, err := l.br.ReadSlice('\n')
		any = any || len(chunk) > 0
		body := chunk
		if err == nil {
			body = body[:len(body)-1]
		}
		if pendingCR {
			h.Write([]byte{'\r'})
			pendingCR = false
		}
		if n := len(body); n > 0 && body[n-1] == '\r' {
			body, pendingCR = body[:n-1], true
		}
		h.Write(body)
		if err == nil {
			l.line++
			return hex.EncodeToString(h.Sum(nil))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.eof = true
		if !any {
			return ""
		}
		if pendingCR {
			h.Write([]byte{'\r'}) // a last line ending in a lone CR keeps it
		}
		l.line++
		return hex.EncodeToString(h.Sum(nil))
	}
}

// Close closes the file being read, if any.
func (l *Lines) Close() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// File returns the hex SHA-256 of the whole file at path (a document's
// record), "" when it cannot be read.
func File(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
