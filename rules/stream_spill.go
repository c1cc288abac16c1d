package rules

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// refSpill keeps the oldest blocks of CL101's pending parent references in
// a temporary file instead of memory, so that a run's memory does not grow
// with the references it must decide at its end: they are written once, in
// input order, and read back once, in the same order, by Finish (24 bytes
// a reference). The file is removed as soon as it is created where the
// system allows it (Unix: it vanishes when closed, even if the process is
// killed), otherwise when Finish closes it. A reference is never lost: when
// the file cannot be created or written, the references stay in memory;
// when it cannot be read back, each returns the error.
type refSpill struct {
	f       *os.File
	name    string // removed by close when it could not be removed while open
	n       int    // references written
	failed  bool   // the file could not be created or written: spill no more
	buf     []byte
	dirName string // where to create the file ("": the system's temporary directory)
}

// write appends block to the file; false when it cannot (the caller
// keeps it in memory, and spills no more).
func (sp *refSpill) write(block []spanRef) bool {
	if sp.failed {
		return false
	}
	if sp.f == nil {
		f, err := os.CreateTemp(sp.dirName, "agentlint-cl101-*")
		if err != nil {
			sp.failed = true
			return false
		}
		sp.f = f
		if os.Remove(f.Name()) != nil {
			sp.name = f.Name()
		}
	}
	sp.buf = sp.buf[:0]
	for i := range block {
		r := &block[i]
		for _, w := range [6]uint32{r.file, r.line, r.col, r.key[0], r.key[1], r.key[2]} {
			sp.buf = binary.LittleEndian.AppendUint32(sp.buf, w)
		}
	}
	if _, err := sp.f.Write(sp.buf); err != nil {
		// each reads the n references before the partial block.
		sp.failed = true
		return false
	}
	sp.n += len(block)
	return true
}

// each calls fn with every reference written, in order.
func (sp *refSpill) each(fn func(*spanRef)) error {
	if sp.n == 0 {
		return nil
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// Blocks of whole references, decoded in place: one reference
	// variable for every call.
	buf := make([]byte, 24*2730)
	var r spanRef
	for left := sp.n; left > 0; {
		b := buf[:24*min(left, len(buf)/24)]
		if _, err := io.ReadFull(sp.f, b); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		left -= len(b) / 24
		for ; len(b) >= 24; b = b[24:] {
			r = spanRef{
				file: binary.LittleEndian.Uint32(b), line: binary.LittleEndian.Uint32(b[4:]), col: binary.LittleEndian.Uint32(b[8:]),
				key: [3]uint32{binary.LittleEndian.Uint32(b[12:]), binary.LittleEndian.Uint32(b[16:]), binary.LittleEndian.Uint32(b[20:])},
			}
			fn(&r)
		}
	}
	return nil
}

// close closes and removes the file.
func (sp *refSpill) close() {
	if sp.f != nil {
		sp.f.Close()
		if sp.name != "" {
			os.Remove(sp.name)
		}
	}
	*sp = refSpill{dirName: sp.dirName}
}
