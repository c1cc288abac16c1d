package lint

import (
	"io"
	"os"
	"sync/atomic"
)

// Progress counts what a lint run has done so far, for a progress display
// (`agentlint lint` at a terminal): a ticker of the caller reads the counters
// while Lint runs. The pipeline adds to them once per chunk or file, never
// per record, and allocates nothing for them; a nil *Progress costs one
// pointer test per chunk.
type Progress struct {
	// Files is the number of inputs done: linted, skipped or unreadable.
	Files atomic.Int64
	// Bytes is the number of bytes read from the inputs (the reader runs at
	// most a few chunks ahead of validation). A file skipped after its first
	// bytes were sniffed counts whole, so that Bytes reaches the sum of the
	// sizes of the files linted or sniffed.
	Bytes atomic.Int64
	// Records is the number of records (JSON Lines lines and documents)
	// validated.
	Records atomic.Int64
}

// countingReader adds the bytes read through it to a Progress.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// skippedUnread adds to Progress the bytes of a file skipped after n bytes
// were sniffed that were never read.
func (p *Progress) skippedUnread(f *os.File, n int) {
	if p == nil || f == nil {
		return
	}
	if st, err := f.Stat(); err == nil && st.Size() > int64(n) {
		p.Bytes.Add(st.Size() - int64(n))
	}
}

func (p *Progress) fileDone() {
	if p != nil {
		p.Files.Add(1)
	}
}
