package lint

import (
	"bytes"
	"io"
	"os"

	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// fileSource is the rules.Source of one JSON Lines file the engine opened
// by its path: it opens the file again on first use (the reader has closed
// its own handle by then) and reads single records at their offsets, for
// the stream rules that confirm a possible repeat by reading the earlier
// record. The emitter closes it after the file's last record.
type fileSource struct {
	path  string
	f     *os.File
	err   error
	buf   []byte
	xs    map[*rules.Field]*record.Extractor // by the fields' first element
	limit int                                // the longest line read (record.MaxLine)
}

func newFileSource(path string, limit int) *fileSource {
	return &fileSource{path: path, limit: limit}
}

func (s *fileSource) open() error {
	if s.f == nil && s.err == nil {
		s.f, s.err = os.Open(s.path)
	}
	return s.err
}

// ReadAt implements rules.Source.
func (s *fileSource) ReadAt(p []byte, off int64) (int, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	return s.f.ReadAt(p, off)
}

// record returns the record that starts at off, as the workers saw it: up
// to its newline, without the CR of a CRLF ending.
func (s *fileSource) record(off int64) ([]byte, bool) {
	if err := s.open(); err != nil || off < 0 {
		return nil, false
	}
	if s.buf == nil {
		s.buf = make([]byte, 4096)
	}
	n := 0
	for {
		m, err := s.f.ReadAt(s.buf[n:], off+int64(n))
		if i := bytes.IndexByte(s.buf[n:n+m], '\n'); i >= 0 {
			line := s.buf[:n+i]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			return line, true
		}
		n += m
		if err == io.EOF {
			return s.buf[:n], n > 0
		}
		if err != nil || n > s.limit {
			return nil, false
		}
		if n == len(s.buf) {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
	}
}

// Values implements rules.Source with the workers' extractor.
func (s *fileSource) Values(off int64, fields []rules.Field, out []rules.Value) bool {
	line, ok := s.record(off)
	if !ok || len(fields) == 0 {
		return false
	}
	if s.xs == nil {
		s.xs = map[*rules.Field]*record.Extractor{}
	}
	x := s.xs[&fields[0]]
	if x == nil {
		x = record.NewExtractor("", fields)
		s.xs[&fields[0]] = x
	}
	x.Arena = x.Arena[:0]
	x.Values(line, nil, out[:len(fields)])
	return true
}

// close releases the file.
func (s *fileSource) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.buf = nil
}
