package lint

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/agentlint/agentlint/lint/kind"
)

// The reader stage of the pipeline (pipeline.go): it detects each input's
// kind and cuts JSON Lines files into chunks of whole lines.

func (p *pipeline) newItem(role itemRole, f *fileRun) *item {
	it, _ := p.items.Get().(*item)
	if it == nil {
		it = &item{}
	}
	res := it.res
	res.reset()
	*it = item{role: role, file: f, res: res}
	return it
}

// send queues it; it reports false when the run stops.
func (p *pipeline) send(it *item) bool {
	if it.role == itemChunk {
		it.done = make(chan struct{})
		select {
		case p.work <- it:
		case <-p.stop:
			return false
		}
	}
	select {
	case p.order <- it:
		return true
	case <-p.stop:
		return false
	}
}

// getBuf returns a chunk buffer, waiting for the emitter to return one when
// all are in flight; nil when the run stops.
func (p *pipeline) getBuf() []byte {
	select {
	case b := <-p.free:
		return b
	default:
	}
	if p.nbuf < cap(p.free) {
		p.nbuf++
		return make([]byte, p.chunk)
	}
	select {
	case b := <-p.free:
		return b
	case <-p.stop:
		return nil
	}
}

// acquireBig waits until no buffer larger than a chunk is in flight (so
// memory stays bounded by the longest line, not by lines in flight); false
// when the run stops.
func (p *pipeline) acquireBig() bool {
	select {
	case p.big <- struct{}{}:
		return true
	case <-p.stop:
		return false
	}
}

func (p *pipeline) putBuf(b []byte) {
	if b = b[:cap(b)]; len(b) == p.chunk {
		select {
		case p.free <- b:
		default:
		}
	}
}

func (p *pipeline) read(inputs func(yield func(Input) bool)) {
	defer close(p.order)
	defer close(p.work)
	inputs(func(in Input) bool {
		if in.Root != "" {
			p.roots[in.Root] = true // read by the emitter after order is closed
		}
		if in.Err != nil {
			it := p.newItem(itemError, nil)
			it.path, it.err = in.Path, in.Err
			return p.send(it)
		}
		if in.Skipped != "" {
			it := p.newItem(itemSkip, nil)
			it.path, it.reason, it.uncounted = in.Path, in.Skipped, true
			return p.send(it)
		}
		return p.readFile(in)
	})
}

// fill reads into buf[n:] until buf is full or the input ends.
func fill(r io.Reader, buf []byte, n int) (int, bool, error) {
	m, err := io.ReadFull(r, buf[n:])
	n += m
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return n, true, nil
	}
	return n, false, err
}

func (p *pipeline) readError(path string, err error) bool {
	it := p.newItem(itemError, nil)
	it.path = path
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	it.err = errors.New("cannot read " + path + ": " + err.Error())
	return p.send(it)
}

// Reasons a walked file is skipped (LintConfig.Skipped).
const (
	// ReasonNotSniffed: no glob gives the file a kind, and only .json and
	// .jsonl files are sniffed.
	ReasonNotSniffed = "no glob of --kind, the config or the built-in kinds matches it, and only .json and .jsonl files are sniffed"
	// ReasonNoKind: no glob gives the file a kind and its first record
	// names none (cue/README.md, "Detection": sniffing).
	ReasonNoKind = "no glob matches it and sniffing its first record found no kind"
)

// skip sends the item of a walked file whose kind is unknown.
func (p *pipeline) skip(path, reason string) bool {
	it := p.newItem(itemSkip, nil)
	it.path, it.reason = path, reason
	return p.send(it)
}

// readFile detects the kind of one input and sends its chunks.
func (p *pipeline) readFile(in Input) bool {
	det := p.cfg.Detector
	k := in.Kind
	r := in.Reader
	var file *os.File
	reread := false
	var size int64
	var stat os.FileInfo
	if r == nil {
		if k == nil {
			k = det.ByName(in.Path)
			if k == nil && !det.Sniffs(in.Path) {
				return p.skip(in.Path, ReasonNotSniffed)
			}
		}
		f, err := os.Open(in.Path)
		if err != nil {
			return p.readError(in.Path, err)
		}
		defer f.Close()
		r, file = f, f
		// Only a regular file can be read again at an offset (rules.Source):
		// not a named pipe or /dev/stdin given by its path.
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			reread, size, stat = true, st.Size(), st
		}
	}
	if prog := p.cfg.Progress; prog != nil {
		r = &countingReader{r: r, n: &prog.Bytes}
	}
	buf := p.getBuf()
	if buf == nil {
		return false
	}
	n, eof, err := fill(r, buf, 0)
	if err != nil {
		p.putBuf(buf)
		return p.readError(in.Path, err)
	}
	if k == nil {
		k = det.Detect(in.Path, buf[:n])
	}
	if k == nil {
		p.putBuf(buf)
		p.cfg.Progress.skippedUnread(file, n)
		return p.skip(in.Path, ReasonNoKind)
	}
	f := &fileRun{path: in.Path, kind: k, plan: p.plans[k], reread: reread, size: size, stat: stat}
	if k.Format != kind.FormatJSONL {
		return p.readDocument(f, r, buf, n, eof)
	}
	if det.Forced == nil && in.Path != "-" && det.ByName(in.Path) == k && kind.OtherFormat(k, buf[:n]) {
		// A glob gave the kind to a file of another format: one finding
		// (AL011), not every record's violations.
		p.putBuf(buf)
		it := p.newItem(itemChunk, f)
		it.first, it.last, it.line1, it.otherFormat = true, true, 1, true
		return p.send(it)
	}
	return p.readLines(f, r, buf, n, eof)
}

// readDocument sends a whole document as one item.
func (p *pipeline) readDocument(f *fileRun, r io.Reader, buf []byte, n int, eof bool) bool {
	it := p.newItem(itemChunk, f)
	it.first, it.last, it.doc, it.line1 = true, true, true, 1
	if eof {
		it.data, it.pooled = buf[:n], true
		return p.send(it)
	}
	if !p.acquireBig() {
		return false
	}
	data := append(make([]byte, 0, 2*n), buf[:n]...)
	p.putBuf(buf)
	rest, err := io.ReadAll(r)
	if err != nil {
		<-p.big
		return p.readError(f.path, err)
	}
	it.data, it.bigHeld = append(data, rest...), true
	return p.send(it)
}

// readLines cuts a JSON Lines file into chunks of whole lines.
func (p *pipeline) readLines(f *fileRun, r io.Reader, buf []byte, n int, eof bool) bool {
	line, first := 1, true
	var off int64 // of the next byte to send
	sendChunk := func(data []byte, pooled, last bool) bool {
		it := p.newItem(itemChunk, f)
		it.first, it.last, it.line1, it.data, it.pooled = first, last, line, data, pooled
		it.off = off
		off += int64(len(data))
		line += bytes.Count(data, []byte{'\n'})
		first = false
		return p.send(it)
	}
	for {
		if eof {
			return sendChunk(buf[:n], true, true)
		}
		j := bytes.LastIndexByte(buf[:n], '\n')
		if j < 0 {
			var ended, ok bool
			if buf, n, eof, ended, ok = p.longLine(f, r, buf, n, &line, &first, &off); !ok || ended {
				return ok
			}
			continue
		}
		next := p.getBuf()
		if next == nil {
			return false
		}
		rem := copy(next, buf[j+1:n])
		if !sendChunk(buf[:j+1], true, false) {
			return false
		}
		buf = next
		var err error
		if n, eof, err = fill(r, buf, rem); err != nil {
			return sendChunk(buf[:0], true, true) && p.readError(f.path, err)
		}
	}
}

// longLine handles a full buffer without a newline: a line longer than the
// chunk size. Up to maxLine bytes it is read into a buffer of its own and
// sent as a chunk; a longer line is skipped up to its newline and sent as a
// too-long item. It returns the buffer that holds what follows the line, or
// ended when the file's last item was sent; ok is false when the run stops.
func (p *pipeline) longLine(f *fileRun, r io.Reader, buf []byte, n int, line *int, first *bool, off *int64) (next []byte, m int, eof, ended, ok bool) {
	if !p.acquireBig() {
		return nil, 0, false, false, false
	}
	held := true // until big goes to an item
	defer func() {
		if held {
			<-p.big
		}
	}()
	send := func(it *item, size int) bool {
		it.first, it.line1, it.off = *first, *line, *off
		*off += int64(size)
		*first = false
		*line++
		return p.send(it)
	}
	fail := func(err error) ([]byte, int, bool, bool, bool) {
		last := p.newItem(itemChunk, f)
		last.last, last.line1 = true, *line
		return nil, 0, false, true, p.send(last) && p.readError(f.path, err)
	}
	big := append(make([]byte, 0, 2*n), buf[:n]...)
	limit := p.maxLine + 2 + p.chunk // the most big ever holds
	searched := 0
	for {
		if i := bytes.IndexByte(big[searched:], '\n'); i >= 0 {
			end := searched + i + 1
			it := p.newItem(itemChunk, f)
			if lineLen(big[:end]) > p.maxLine {
				it.tooLong = true
			} else {
				it.data, it.bigHeld, held = big[:end], true, false
			}
			if !send(it, end) {
				return nil, 0, false, false, false
			}
			// What follows the line came with the last read: it fits buf.
			rem := copy(buf, big[end:])
			var err error
			if m, eof, err = fill(r, buf, rem); err != nil {
				return fail(err)
			}
			return buf, m, eof, false, true
		}
		searched = len(big)
		if eof || len(big) > p.maxLine+2 {
			break
		}
		if cap(big)-len(big) < p.chunk {
			c := min(2*cap(big), limit)
			big = append(make([]byte, 0, c), big...)
		}
		var err error
		if m, eof, err = fill(r, big[:len(big)+p.chunk], len(big)); err != nil {
			return fail(err)
		}
		big = big[:m]
	}
	if eof && len(big) <= p.maxLine {
		// The file's last line, without a newline, not too long.
		it := p.newItem(itemChunk, f)
		it.data, it.last, it.bigHeld, held = big, true, true, false
		p.putBuf(buf)
		return nil, 0, false, true, send(it, len(big))
	}
	// Too long: discard up to the newline, reading into buf.
	skipped := len(big)
	big = nil
	for !eof {
		var err error
		if m, eof, err = fill(r, buf, 0); err != nil {
			return fail(err)
		}
		if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
			it := p.newItem(itemChunk, f)
			it.tooLong = true
			if !send(it, skipped+i+1) {
				return nil, 0, false, false, false
			}
			rem := copy(buf, buf[i+1:m])
			if !eof {
				if rem, eof, err = fill(r, buf, rem); err != nil {
					return fail(err)
				}
			}
			return buf, rem, eof, false, true
		}
		skipped += m
	}
	it := p.newItem(itemChunk, f)
	it.tooLong, it.last = true, true
	p.putBuf(buf)
	return nil, 0, false, true, send(it, skipped)
}

// lineLen is the length of a line without its line ending.
func lineLen(b []byte) int {
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
		if n > 0 && b[n-1] == '\r' {
			n--
		}
	}
	return n
}
