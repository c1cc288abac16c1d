package replay

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fast"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// stream is one STREAM: its input, and the ledger as its deltas leave it.
type stream struct {
	num   int // position among the streams
	name  string
	form  Form
	data  []byte    // FormOutput: the whole document
	src   io.Reader // FormDeltaLines
	start int64     // FormDeltaLines: offset of src's first byte in the input
	st    *state
	// The D2 record (see rereadable): a stream that can be read again
	// keeps idx (delta_id hash → position of its first delta) and pos
	// (each delta's offset), reads deltas again through rr and decodes
	// them with rdd (re-read deltas; last is the latest) and cdd (digests
	// of current deltas); any other keeps seen (every delta_id with the
	// digest and position of its first delta). conflicts holds the other
	// contents seen with an id (rejected, RP002).
	reread    bool
	idx       *hashIndex
	pos       posTable
	rr        *rereader
	rdd, cdd  *deltaDecoder
	last      rereadDelta
	seen      *seenTable
	seenSlot  int
	conflicts map[string][]digest
	hash      func([]byte) uint64
	// err is the first error of reading the stream again.
	err error
	// lines maps a delta's position to its line (FormDeltaLines).
	lines  lineMap
	counts Counts
}

// rereadDelta is the delta stream.rereadID read last: its position, id and
// text (both valid until the stream is read again) and, once asked for,
// its digest.
type rereadDelta struct {
	pos       uint32
	id, text  []byte
	dg        digest
	hasDigest bool
	ok        bool
}

// delta is one decoded ledger delta. Its byte slices point into the
// decoder's buffer: valid until the next decode.
type delta struct {
	taskID, status, owner, deltaID []byte
	// vals are the formatted values of the mutable fields it carries.
	vals [nMut][]byte
	// digest is set when the decoder computes digests (deltaDecoder.digest).
	digest digest
	// hash is the delta_id's hash (deltaDecoder.hash; 0 without).
	hash uint64
	// row is the task's row in BASE, -1 when BASE has no such task, or
	// rowUnknown when the decoder was given no BASE.
	row int32
}

// rowUnknown: the decoder did not look the task up in BASE.
const rowUnknown = -2

// deltaDecoder decodes deltas; it reuses its buffers.
type deltaDecoder struct {
	// buf holds the names and canonical values of the current delta's
	// members; members indexes into it.
	buf     []byte
	members []canonMember
	canon   []byte
	// digest: compute each delta's digest (RFC 8785 form, SHA-256);
	// otherwise only the members the replay reads are canonicalized.
	digest bool
	// hash, when set, hashes the delta_id (delta.hash); base, when set,
	// is the BASE whose index gives delta.row. Both are read-only, so
	// decoders of several goroutines share them.
	hash func([]byte) uint64
	base *ledger
}

// canonMember is one member of a delta: its name (unquoted) and its value in
// RFC 8785 form, as ranges of deltaDecoder.buf; mut is the index of a
// mutable field (-1: another member) and raw the range of its formatted
// value.
type canonMember struct {
	name, val, raw [2]int
	mut            int
	escaped        bool // the name was written with a backslash escape
}

// newDeltaDecoder returns a decoder; digest says whether it computes
// digests, hash and base are as deltaDecoder's (nil: none).
func newDeltaDecoder(digest bool, hash func([]byte) uint64, base *ledger) *deltaDecoder {
	return &deltaDecoder{digest: digest, hash: hash, base: base}
}

// errTrailing: a JSON Lines record holds more than one JSON value.
var errTrailing = errors.New("a JSON Lines record must be one JSON value")

// canonicalValue appends the RFC 8785 form of the JSON value v to dst. A
// string without escapes is already canonical (a valid JSON string without a
// backslash holds no character that needs one), as are true, false and null.
func canonicalValue(dst, v []byte) []byte {
	switch {
	case v[0] == '"' && bytes.IndexByte(v, '\\') < 0,
		v[0] == 't', v[0] == 'f', v[0] == 'n':
		return append(dst, v...)
	case v[0] == '"':
		return append(dst, quote(unquote(v))...)
	}
	return append(dst, canonical(v)...)
}

// strBytes returns the bytes of the string a canonical JSON string value
// holds, appending to scratch when it has escapes (nil for another value).
func strBytes(c, scratch []byte) []byte {
	if len(c) < 2 || c[0] != '"' {
		return nil
	}
	if bytes.IndexByte(c, '\\') < 0 {
		return c[1 : len(c)-1]
	}
	return append(scratch, unquote(c)...)
}

// decode reads one delta (already validated against the schema). With
// dd.digest its digest is the SHA-256 of its RFC 8785 canonical form, built
// from the members read here (the same bytes jsontext.Value.Canonicalize
// gives; see TestDigestIsCanonical); without, only task_id, delta_id and
// the mutable fields are canonicalized. It reads the record with a shallow
// scanner (scanMember; the record is valid JSON, which input validation
// checked), so it allocates nothing once its buffers have grown, except for
// names or values with escapes, numbers and nested values
// (canonicalization rewrites those). A record that holds more than one JSON
// value is errTrailing.
func (dd *deltaDecoder) decode(raw []byte) (delta, error) {
	var d delta
	err := dd.decodeInto(raw, &d)
	return d, err
}

// decodeInto is decode into *d (which it overwrites), without copying a
// delta around.
func (dd *deltaDecoder) decodeInto(raw []byte, d *delta) error {
	*d = delta{}
	if dd.digest || !readFast(raw, d) {
		var err error
		if *d, err = dd.read(raw); err != nil {
			return err
		}
	}
	if dd.hash != nil {
		d.hash = dd.hash(d.deltaID)
	}
	d.row = rowUnknown
	if dd.base != nil {
		d.row = int32(dd.base.tasks.lookup(d.taskID))
	}
	return nil
}

// readFast is read without a digest for the common delta, without copying:
// every member name is written without escapes, and task_id, delta_id and
// the mutable fields are strings without escapes (already in RFC 8785
// form, which is also their formatted form) or true, false or null; the
// delta's fields are then slices of raw. Otherwise (or for anything that is
// not one JSON object) ok is false and read decides.
func readFast(raw []byte, d *delta) (ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		// The name: a string without escapes.
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		j := quoteOrBackslash(raw, i+1)
		if j >= len(raw) || raw[j] != '"' {
			return false
		}
		name := raw[i+1 : j]
		i = skipSpace(raw, j+1)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		// The value; plain: a string without escapes.
		plain := false
		e := -1
		if i < len(raw) && raw[i] == '"' {
			j = quoteOrBackslash(raw, i+1)
			if j < len(raw) && raw[j] == '"' {
				e, plain = j+1, true
			} else {
				e = stringEnd(raw, i)
			}
		} else {
			e = valueEnd(raw, i)
		}
		if e < 0 {
			return false
		}
		v := raw[i:e:e]
		if mut := mutIndex(name); mut >= 0 {
			switch {
			case plain:
				d.vals[mut] = v
				switch mut {
				case fStatus:
					d.status = v[1 : len(v)-1]
				case fOwner:
					d.owner = v[1 : len(v)-1]
				}
			case string(v) == "true" || string(v) == "false" || string(v) == "null":
				d.vals[mut] = v
				switch mut {
				case fStatus:
					d.status = nil
				case fOwner:
					d.owner = nil
				}
			default:
				return false
			}
		} else if string(name) == "task_id" || string(name) == "delta_id" {
			if !plain {
				return false
			}
			if name[0] == 't' {
				d.taskID = v[1 : len(v)-1]
			} else {
				d.deltaID = v[1 : len(v)-1]
			}
		}
		i = skipSpace(raw, e)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return skipSpace(raw, i+1) == len(raw)
		}
		return false
	}
}

// quoteOrBackslash returns the offset of the first '"' or '\\' in b at or
// after i, or len(b). It tests eight bytes at a time (SWAR: a byte of x
// equal to c is a zero byte of x^c, and (v-0x01…)&^v&0x80… marks the
// lowest zero byte of v exactly).
func quoteOrBackslash(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^('"'*ones), x^('\\'*ones)
		if t := ((q-ones)&^q | (bs-ones)&^bs) & highs; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return len(b)
}

// read is decode without the hash and the BASE row.
func (dd *deltaDecoder) read(raw []byte) (delta, error) {
	var d delta
	dd.members = dd.members[:0] // dd.buf grows: the deltas of a batch share it
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return d, errNotObject
	}
	i = skipSpace(raw, i+1)
	ascii := true
	for first := true; ; first = false {
		if i < len(raw) && raw[i] == '}' {
			i++
			break
		}
		if !first {
			if i >= len(raw) || raw[i] != ',' {
				return d, errNotObject
			}
			i = skipSpace(raw, i+1)
		}
		n, v, next, err := scanMember(raw, i)
		if err != nil {
			return d, err
		}
		i = next
		var m canonMember
		m.name[0] = len(dd.buf)
		if m.escaped = bytes.IndexByte(n, '\\') >= 0; m.escaped {
			dd.buf = append(dd.buf, unquote(n)...)
		} else {
			dd.buf = append(dd.buf, n[1:len(n)-1]...)
		}
		m.name[1] = len(dd.buf)
		name := dd.buf[m.name[0]:m.name[1]]
		for _, c := range name {
			ascii = ascii && c < utf8.RuneSelf
		}
		m.mut = mutIndex(name)
		if !dd.digest && m.mut < 0 && string(name) != "task_id" && string(name) != "delta_id" {
			continue // a member the replay does not read, and no digest
		}
		m.val[0] = len(dd.buf)
		dd.buf = canonicalValue(dd.buf, v)
		m.val[1] = len(dd.buf)
		m.raw = m.val // a string's formatted form is its canonical form
		if m.mut >= 0 && v[0] != '"' {
			// A scalar's formatted form is its text (numbers as written).
			m.raw[0] = len(dd.buf)
			dd.buf = append(dd.buf, format(v)...)
			m.raw[1] = len(dd.buf)
		}
		dd.members = append(dd.members, m)
	}
	if skipSpace(raw, i) != len(raw) {
		return d, errTrailing
	}
	// The fields, once dd.buf no longer grows.
	for _, m := range dd.members {
		name, c := dd.buf[m.name[0]:m.name[1]], dd.buf[m.val[0]:m.val[1]]
		switch {
		case string(name) == "task_id":
			d.taskID = strBytes(c, nil)
		case string(name) == "delta_id":
			d.deltaID = strBytes(c, nil)
		case m.mut == fStatus:
			d.status = strBytes(c, nil)
		case m.mut == fOwner:
			d.owner = strBytes(c, nil)
		}
		if m.mut >= 0 {
			d.vals[m.mut] = dd.buf[m.raw[0]:m.raw[1]]
		}
	}
	if !dd.digest {
		return d, nil
	}
	// RFC 8785 section 3.2.3: members sorted by the UTF-16 code units of
	// their names (for ASCII names, by bytes). Insertion sort: a delta has
	// a handful of members.
	ms := dd.members
	for j := 1; j < len(ms); j++ {
		for k := j; k > 0; k-- {
			x, y := dd.buf[ms[k-1].name[0]:ms[k-1].name[1]], dd.buf[ms[k].name[0]:ms[k].name[1]]
			c := 0
			if ascii {
				c = bytes.Compare(x, y)
			} else {
				c = compareUTF16(x, y)
			}
			if c <= 0 {
				break
			}
			ms[k-1], ms[k] = ms[k], ms[k-1]
		}
	}
	dd.canon = append(dd.canon[:0], '{')
	for i, m := range ms {
		if i > 0 {
			dd.canon = append(dd.canon, ',')
		}
		// A name written without a backslash is its own RFC 8785 form (a
		// valid JSON string without one holds no character that needs an
		// escape; as for values, see canonicalValue).
		if name := dd.buf[m.name[0]:m.name[1]]; !m.escaped {
			dd.canon = append(append(append(dd.canon, '"'), name...), '"')
		} else {
			dd.canon, _ = jsontext.AppendQuote(dd.canon, name)
		}
		dd.canon = append(dd.canon, ':')
		dd.canon = append(dd.canon, dd.buf[m.val[0]:m.val[1]]...)
	}
	dd.canon = append(dd.canon, '}')
	sum := sha256.Sum256(dd.canon)
	copy(d.digest[:], sum[:])
	return d, nil
}

// errNotObject: a record that is not one JSON object (input validation
// rejects it first; decode does not trust that).
var errNotObject = errors.New("a ledger delta must be a JSON object")

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanMember reads the member of a JSON object at b[i:]: its quoted name and
// its value, and returns the offset after the value and the white space that
// follows. The text must be valid JSON; anything else is an error, never a
// panic.
func scanMember(b []byte, i int) (name, val []byte, next int, err error) {
	if i >= len(b) || b[i] != '"' {
		return nil, nil, 0, errNotObject
	}
	e := stringEnd(b, i)
	if e < 0 {
		return nil, nil, 0, errNotObject
	}
	name = b[i:e]
	i = skipSpace(b, e)
	if i >= len(b) || b[i] != ':' {
		return nil, nil, 0, errNotObject
	}
	i = skipSpace(b, i+1)
	e = valueEnd(b, i)
	if e < 0 {
		return nil, nil, 0, errNotObject
	}
	return name, b[i:e], skipSpace(b, e), nil
}

// stringEnd returns the offset after the JSON string that starts at b[i]
// (a '"'), or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the offset after the JSON value that starts at b[i], or
// -1: strings to their closing quote, objects and arrays to their matching
// bracket (strings inside skipped whole), numbers and literals to the next
// delimiter.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// compareUTF16 compares two UTF-8 strings by their UTF-16 code units.
func compareUTF16(a, b []byte) int {
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRune(a)
		rb, nb := utf8.DecodeRune(b)
		if ra != rb {
			return cmp.Compare(utf16Key(ra), utf16Key(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Key orders runes as their UTF-16 encodings compare: a supplementary
// rune by its surrogate pair (0xD800-0xDFFF), which sorts before U+E000.
func utf16Key(r rune) uint32 {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError || r2 != utf8.RuneError {
		return uint32(r1)<<16 | uint32(r2)
	}
	return uint32(r) << 16
}

// deltaWrapper turns one JSON Lines delta into an orchestrator output, so
// that it is validated by that kind's schema (the #Delta definition).
const (
	deltaPrefix = `{"ledger_delta":[`
	deltaSuffix = `],"schema_version":"1.0.0","run_id":"00000000-0000-4000-8000-000000000000","assignments":[],"active_locks":[],"blockers":[],"next_actions":[]}`
)

// replayStream validates a stream and, while every input so far is valid,
// applies its deltas to its own copy of BASE.
func (r *run) replayStream(s *stream) error {
	s.st = newState(r.base)
	dd := newDeltaDecoder(!s.rereadable(), r.hashID, r.base)
	if s.form == FormOutput {
		vs, doc := r.validator.Document(string(FormOutput), s.name, s.data)
		vs = append([]envelope.Violation(nil), vs...)
		for i := range vs {
			if rest, ok := strings.CutPrefix(vs[i].Pointer, "/ledger_delta/"); ok {
				digits, _, _ := strings.Cut(rest, "/")
				if k, err := strconv.Atoi(digits); err == nil {
					vs[i].Extra = withDelta(vs[i].Extra, s.name, k)
				}
			}
		}
		r.addInput(s.name, vs)
		if doc == nil || envelope.HasErrors(vs) || r.invalid {
			return nil
		}
		data := bytes.TrimPrefix(s.data, bom)
		return r.eachOutputDelta(data, func(i int, raw []byte, at place) {
			if s.rereadable() {
				s.pos.add(i, int64(cap(data)-cap(raw))) // raw is data[off:…]
			}
			r.apply(s, dd, i, raw, at)
		})
	}
	lr := newOffsetLineReader(s.src, s.start)
	b := newLineBatch(r, s)
	defer b.stop()
	for {
		text, line, off, crlf, tooLong, err := lr.next()
		if err == io.EOF {
			b.finish()
			return s.err
		}
		if err != nil {
			return &InputError{s.name, "cannot read: " + err.Error()}
		}
		if s.err != nil {
			return s.err
		}
		var pre []envelope.Violation
		if tooLong {
			r.addInput(s.name, r.fillAll([]envelope.Violation{{Rule: "AL009", Line: line, Column: 1, Reason: "line longer than 64 MiB skipped"}}))
			continue
		}
		if line == 1 {
			n := len(text)
			text, pre = stripBOM(text)
			off += int64(n - len(text))
		}
		if crlf {
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: line, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
		}
		if len(bytes.TrimSpace(text)) == 0 {
			if r.opts.Strict {
				pre = append(pre, envelope.Violation{Rule: "AL008", Line: line, Column: 1, Reason: "blank line (strict mode)"})
			}
			r.addInput(s.name, r.fillAll(pre))
			continue
		}
		r.addInput(s.name, r.fillAll(pre))
		b.add(text, line, off)
	}
}

// lineBatch validates and applies the deltas of a JSON Lines stream in
// batches: up to batchRecords records go into one orchestrator-output
// wrapper, one record per wrapper line, so that the wrapper's own members
// are validated once per batch rather than once per delta (a batch with a
// syntax error, or with a violation outside its records, is validated again
// record by record). Validating and decoding a batch needs no replay state,
// so worker goroutines (one per processor, at most batchWorkers) do it while
// this goroutine reads the next batch and applies the oldest one, in order
// (D1): at most batchWorkers+1 batches are in flight, so memory stays
// bounded by their size.
type lineBatch struct {
	r       *run
	s       *stream
	cur     *batch
	free    []*batch
	todo    chan *batch // to the workers
	sent    []*batch    // in flight, oldest first
	workers sync.WaitGroup
	index   int // position in the stream of the next record to apply
}

// batch is a batch of records: its wrapper and, once the worker is done,
// each record's violations (of the wrapper; not yet filled) and decoded
// delta.
type batch struct {
	wrap   []byte
	recs   []batchRecord
	per    [][]envelope.Violation
	deltas []delta
	errs   []error
	hashes []uint64 // the deltas' id hashes (hashIndex.touch)
	// touched keeps hashIndex.touch's result, so that its loads are not
	// optimized away.
	touched uint64
	dd      *deltaDecoder
	ready   chan struct{} // receives once the worker is done
}

// batchRecord is a record of the batch: its line, its range in wrap and
// its offset in the input.
type batchRecord struct {
	line, start, end int
	off              int64
}

const (
	batchRecords = 1024
	batchWorkers = 2
)

func newLineBatch(r *run, s *stream) *lineBatch {
	n := min(batchWorkers, runtime.GOMAXPROCS(0))
	b := &lineBatch{r: r, s: s, todo: make(chan *batch, n+1)}
	for w := range n {
		// Each worker validates with an engine of its own (the first: the
		// run's); decoders belong to the batches.
		engine, strict := r.engine, r.opts.Strict
		if w > 0 {
			if engine = r.newEngine(); engine == nil {
				break
			}
		}
		b.workers.Add(1)
		go func() {
			defer b.workers.Done()
			for bt := range b.todo {
				bt.check(engine, strict)
				bt.ready <- struct{}{}
			}
		}()
	}
	return b
}

func (b *lineBatch) add(text []byte, line int, off int64) {
	if b.cur == nil {
		if n := len(b.free); n > 0 {
			b.cur, b.free = b.free[n-1], b.free[:n-1]
		} else {
			b.cur = &batch{dd: newDeltaDecoder(!b.s.rereadable(), b.r.hashID, b.r.base), ready: make(chan struct{}, 1)}
		}
		b.cur.wrap = append(b.cur.wrap[:0], deltaPrefix...)
		b.cur.recs = b.cur.recs[:0]
	} else {
		b.cur.wrap = append(b.cur.wrap, ",\n"...)
	}
	bt := b.cur
	bt.recs = append(bt.recs, batchRecord{line, len(bt.wrap), len(bt.wrap) + len(text), off})
	bt.wrap = append(bt.wrap, text...)
	if len(bt.recs) == batchRecords || len(bt.wrap) > 1<<20 {
		b.send()
	}
}

// send hands the current batch to the workers and, with a batch in flight
// for every worker and one more, applies the oldest.
func (b *lineBatch) send() {
	b.todo <- b.cur
	b.sent = append(b.sent, b.cur)
	b.cur = nil
	if len(b.sent) > cap(b.todo)-1 {
		b.applyNext()
	}
}

// finish sends the last batch and applies every batch in flight.
func (b *lineBatch) finish() {
	if b.cur != nil {
		b.send()
	}
	for len(b.sent) > 0 {
		b.applyNext()
	}
}

// stop ends the workers (after finish, or on a read error).
func (b *lineBatch) stop() {
	close(b.todo)
	b.workers.Wait()
}

// check validates the batch's wrapper (the worker's part) and decodes every
// record.
func (bt *batch) check(engine record.SchemaEngine, strict bool) {
	n := len(bt.wrap)
	bt.wrap = append(bt.wrap, deltaSuffix...)
	per := bt.per[:0]
	for range bt.recs {
		per = append(per, nil)
	}
	bt.per = per
	whole := true
	for _, v := range engine.Schema(string(FormOutput), bt.wrap, 1, strict) {
		k, ok := recordOf(v, len(bt.recs))
		if !ok {
			whole = false // the batch as a whole is broken: one record at a time
			break
		}
		per[k] = append(per[k], v)
	}
	bt.wrap = bt.wrap[:n]
	bt.dd.buf = bt.dd.buf[:0]
	bt.deltas, bt.errs = slices.Grow(bt.deltas[:0], len(bt.recs))[:len(bt.recs)], bt.errs[:0]
	for k, rec := range bt.recs {
		text := bt.wrap[rec.start:rec.end]
		if !whole {
			per[k] = validateOne(engine, strict, text)
		}
		bt.errs = append(bt.errs, bt.dd.decodeInto(text, &bt.deltas[k]))
	}
}

// applyNext waits for the oldest batch in flight and applies its valid
// records in order.
func (b *lineBatch) applyNext() {
	bt := b.sent[0]
	b.sent = b.sent[1:]
	<-bt.ready
	r := b.r
	if s := b.s; s.rereadable() {
		bt.hashes = bt.hashes[:0]
		for k := range bt.deltas {
			bt.hashes = append(bt.hashes, bt.deltas[k].hash)
		}
		bt.touched = s.idx.touch(bt.hashes)
	}
	for k, rec := range bt.recs {
		text := bt.wrap[rec.start:rec.end]
		rv := bt.per[k]
		if len(rv) > 0 {
			rv = r.fillAll(append([]envelope.Violation(nil), rv...))
			for i := range rv {
				unwrapDelta(&rv[i], text)
				rv[i].Line = rec.line
				rv[i].Extra = withDelta(rv[i].Extra, b.s.name, b.index)
			}
			r.addInput(b.s.name, rv)
		}
		if b.index == math.MaxInt32 && b.s.err == nil {
			b.s.err = &InputError{b.s.name, "more than 2147483646 deltas in one stream"}
		}
		b.s.lines.set(b.index, rec.line)
		if b.s.rereadable() {
			b.s.pos.add(b.index, rec.off)
		}
		if !envelope.HasErrors(rv) && !r.invalid {
			r.applyDecoded(b.s, &bt.deltas[k], bt.errs[k], b.index, place{b.s.name, "", span{text, rec.line, 1}})
		}
		b.index++
	}
	b.free = append(b.free, bt)
}

// recordOf returns the record (of n) a violation of a batch wrapper is
// about; false for a syntax error or a violation outside the records.
func recordOf(v envelope.Violation, n int) (int, bool) {
	rest, ok := strings.CutPrefix(v.Pointer, "/ledger_delta/")
	if v.Parse || !ok {
		return 0, false
	}
	digits, _, _ := strings.Cut(rest, "/")
	k, err := strconv.Atoi(digits)
	return k, err == nil && k < n && v.Line == k+1
}

// validateOne validates one record in a wrapper of its own; a syntax error
// is reported as the record's own (not the wrapper's). Violations keep the
// wrapper's pointers and columns (see unwrapDelta).
func validateOne(engine record.SchemaEngine, strict bool, text []byte) []envelope.Violation {
	w := append(append(append([]byte(nil), deltaPrefix...), text...), deltaSuffix...)
	vs := append([]envelope.Violation(nil), engine.Schema(string(FormOutput), w, 1, strict)...)
	if len(vs) > 0 && vs[0].Parse {
		vs = append(vs[:0], engine.Schema(string(FormOutput), text, 1, false)...)
		vs = slices.DeleteFunc(vs, func(v envelope.Violation) bool { return !v.Parse })
		for i := range vs {
			vs[i].Column += len(deltaPrefix) // unwrapDelta takes it off again
		}
	}
	return vs
}

// unwrapDelta maps a violation of a record in a wrapper (first on its
// wrapper line for a single record, or on its own line of a batch) back onto
// the record's line: the pointer loses "/ledger_delta/K", the column the
// prefix width of a first record (clamped to the line). A violation outside
// the wrapped record means the line is not one JSON object: AL001.
func unwrapDelta(v *envelope.Violation, text []byte) {
	first := v.Line == 1
	rest, ok := strings.CutPrefix(v.Pointer, "/ledger_delta/")
	if ok {
		_, rest, ok = strings.Cut(rest, "/")
		if ok {
			rest = "/" + rest
		} else {
			rest, ok = "", true
		}
	}
	switch {
	case v.Parse:
	case ok:
		v.Pointer = rest
	default:
		*v = envelope.Violation{Code: envelope.SchemaInvalid, Rule: fast.RuleSyntax, Column: 1, Parse: true,
			Severity: envelope.SeverityError, Reason: "invalid JSON: " + errTrailing.Error()}
		return
	}
	if first {
		v.Column -= len(deltaPrefix)
	}
	v.Column = min(max(1, v.Column), len(text)+1)
}

// eachOutputDelta calls fn for every entry of an orchestrator output's
// ledger_delta, in order, with its text and place.
func (r *run) eachOutputDelta(data []byte, fn func(i int, raw []byte, at place)) error {
	dec, lc := jsontext.NewDecoder(bytes.NewReader(data)), newLineCounter(data, 1)
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() == '"' {
		t, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if t.String() != "ledger_delta" {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		return r.readArray(data, dec, lc, func(k int, v []byte, at span) error {
			fn(k, v, place{"", "/ledger_delta/" + strconv.Itoa(k), at})
			return nil
		})
	}
	return nil
}

// extraOf returns the details every violation about a delta carries.
func extraOf(s *stream, index int, d *delta) map[string]any {
	return map[string]any{"stream": s.name, "delta_index": index, "delta_id": string(d.deltaID), "task_id": string(d.taskID)}
}

// apply applies one delta of stream s at position index (D1-D4 and the task
// state machine). It allocates nothing for a delta that is applied or
// skipped, except when the task's owner changes or a task is created.
func (r *run) apply(s *stream, dd *deltaDecoder, index int, raw []byte, at place) {
	dd.buf = dd.buf[:0]
	d, err := dd.decode(raw)
	r.applyDecoded(s, &d, err, index, at)
}

// applyDecoded applies delta d (or reports err, its decoding error) of
// stream s at position index.
func (r *run) applyDecoded(s *stream, d *delta, err error, index int, at place) {
	// The common path (a new delta_id, a known task, an allowed move) is
	// kept small; each finding is built by a helper of its own.
	at.file = s.name
	if err != nil {
		r.decodeError(s, err, at)
		return
	}
	s.counts.Deltas++

	// D2: a delta_id seen before, in this stream or in BASE's record.
	firstIndex, first, dg, slot, known := s.d2Find(d, at.span.text)
	if known || r.base.applied.len() > 0 {
		if r.repeated(s, d, index, at, known, firstIndex, first, dg) {
			return
		}
	}
	ref := s.d2Insert(d, slot, index)

	st := s.st
	status := internStatus(d.status)
	i := int(d.row)
	switch {
	case d.row == rowUnknown:
		i = st.lookup(d.taskID)
	case d.row < 0:
		i = st.lookupCreated(d.taskID)
	}
	if i < 0 {
		r.unknownTask(s, d, index, at, ref, status)
		return
	}
	cur := &st.rows[i]
	owner := cur.owner
	if owner != string(d.owner) {
		owner = string(d.owner)
	}
	if step := rules.CheckStep(cur.status, cur.owner, status, owner); step != rules.StepAllowed {
		r.badStep(s, d, index, at, i, step, status, owner)
		return
	}
	if status == "in_progress" && cur.status != "in_progress" && (len(st.row(i).deps) > 0 || strings.TrimSpace(owner) == "") {
		if r.cannotStart(s, d, index, at, i, status, owner) {
			return
		}
	}
	r.set(s, i, index, ref, d, status, owner)
}

// decodeError reports a delta that could not be decoded (AL001).
//
//go:noinline
func (r *run) decodeError(s *stream, err error, at place) {
	r.addInput(s.name, r.fillAll([]envelope.Violation{{Rule: fast.RuleSyntax, Line: at.span.line, Column: at.span.col, Parse: true,
		Pointer: at.ptr, Reason: "invalid JSON: " + fast.DecodeError(err)}}))
}

// reject reports why delta d was not applied and counts it.
func (r *run) reject(s *stream, v envelope.Violation) {
	r.report(v)
	s.counts.Rejected++
}

// repeated handles D2 for delta d (at position index) whose delta_id the
// stream knows (known: its first delta at firstIndex, digest first; dg is
// d's digest) or BASE may record: a repeat with the same content is
// skipped, with other content rejected (RP002). It reports whether d was
// handled (skipped or rejected).
//
//go:noinline
func (r *run) repeated(s *stream, d *delta, index int, at place, known bool, firstIndex int, first, dg digest) bool {
	fromBase := false
	if !known {
		bref, inBase := r.base.applied.lookupHash(d.deltaID, d.hash)
		if !inBase {
			return false
		}
		first, known, fromBase = r.base.applied.digest(bref), true, true
		if s.rereadable() {
			dg = s.digestOf(at.span.text)
		}
	}
	if first == dg || (len(s.conflicts) > 0 && slices.Contains(s.conflicts[string(d.deltaID)], dg)) {
		s.counts.SkippedDuplicates++
		return true
	}
	s.conflicts[string(d.deltaID)] = append(s.conflicts[string(d.deltaID)], dg)
	extra := extraOf(s, index, d)
	where := "a delta BASE records as applied (" + AppliedDeltasField + ")"
	if !fromBase {
		where = fmt.Sprintf("delta %d of this stream", firstIndex)
		extra["first_delta_index"] = firstIndex
	}
	r.reject(s, at.violation("RP002", "/delta_id", fmt.Sprintf("delta %d reuses delta_id %q of %s with different content (D2)", index, d.deltaID, where), extra))
	return true
}

// unknownTask handles delta d for a task absent from the ledger (D4): a
// create-intent delta (status todo) creates the row, any other is RP001.
//
//go:noinline
func (r *run) unknownTask(s *stream, d *delta, index int, at place, ref uint32, status string) {
	if status != "todo" {
		extra := extraOf(s, index, d)
		extra["status"] = status
		r.reject(s, at.violation("RP001", "/task_id", fmt.Sprintf(
			"delta %d (%s) names task %s, which is not in the ledger, with status %s: only a create-intent delta (status todo) may add a task (D4)",
			index, d.deltaID, d.taskID, status), extra))
		return
	}
	i := s.st.create(string(d.taskID), index)
	r.set(s, i, index, ref, d, status, string(d.owner))
}

// stepExtra returns the details of a finding about delta d's move of row i.
func stepExtra(s *stream, d *delta, index int, cur *rowState, status string) map[string]any {
	x := extraOf(s, index, d)
	x["from"], x["to"] = cur.status, status
	return x
}

// badStep reports a move the task state machine forbids (RP003) or a
// terminal task's owner change (RP004).
//
//go:noinline
func (r *run) badStep(s *stream, d *delta, index int, at place, i int, step rules.Step, status, owner string) {
	cur := &s.st.rows[i]
	if step == rules.StepForbidden {
		why := "which the task state machine forbids"
		if rules.IsTerminal(cur.status) {
			why = fmt.Sprintf("but a %s task is terminal: it never leaves %s", cur.status, cur.status)
		}
		r.reject(s, at.violation("RP003", "/status", fmt.Sprintf("delta %d (%s) moves task %s from %s to %s, %s",
			index, d.deltaID, d.taskID, cur.status, status, why), stepExtra(s, d, index, cur, status)))
		return
	}
	x := stepExtra(s, d, index, cur, status)
	x["from_owner"], x["to_owner"] = cur.owner, owner
	r.reject(s, at.violation("RP004", "/owner", fmt.Sprintf("delta %d (%s) changes the owner of task %s from %q to %q although the task is %s: a terminal task's owner must not change",
		index, d.deltaID, d.taskID, cur.owner, owner, cur.status), x))
}

// cannotStart checks a move of row i into in_progress: it needs a
// non-blank owner (RP005) and every dependency done in the stream's current
// ledger (RP006). It reports whether the delta was rejected.
//
//go:noinline
func (r *run) cannotStart(s *stream, d *delta, index int, at place, i int, status, owner string) bool {
	st := s.st
	cur := &st.rows[i]
	var vs []envelope.Violation
	if strings.TrimSpace(owner) == "" {
		vs = append(vs, at.violation("RP005", "/owner", fmt.Sprintf("delta %d (%s) moves task %s from %s to in_progress without an owner",
			index, d.deltaID, d.taskID, cur.status), stepExtra(s, d, index, cur, status)))
	}
	var unmet []string
	var names []string
	for _, dep := range st.row(i).deps {
		status := "absent from the ledger"
		if j := st.lookupString(dep); j >= 0 {
			status = st.rows[j].status
		}
		if status != "done" {
			unmet = append(unmet, dep)
			names = append(names, dep+" ("+status+")")
		}
	}
	if len(unmet) > 0 {
		x := stepExtra(s, d, index, cur, status)
		x["unmet_dependencies"] = unmet
		vs = append(vs, at.violation("RP006", "/status", fmt.Sprintf("delta %d (%s) moves task %s to in_progress while its dependencies are not done: %s",
			index, d.deltaID, d.taskID, strings.Join(names, ", ")), x))
	}
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		r.report(v)
	}
	s.counts.Rejected++
	return true
}

// internStatus returns the status a delta carries as a string, without
// allocating for the six statuses of the task state machine.
func internStatus(b []byte) string {
	for _, s := range rules.TaskStatuses {
		if string(b) == s {
			return s
		}
	}
	return string(b)
}

// set applies delta d (entry ref of the stream's D2 table) to row i of
// stream s (D3): every mutable field it carries replaces the row's value,
// copied into the row's own buffer for that field.
func (r *run) set(s *stream, i, index int, ref uint32, d *delta, status, owner string) {
	o := origin{stream: s, index: int32(index), ref: ref}
	cur := &s.st.rows[i]
	for k := range nMut {
		if d.vals[k] != nil {
			cur.vals[k], cur.by[k] = append(cur.vals[k][:0], d.vals[k]...), o
		}
	}
	cur.status, cur.owner = status, owner
	s.setApplied(ref, index)
	s.counts.Applied++
}

// withDelta returns a copy of extra naming the stream and the position of
// the delta an input violation is about.
func withDelta(extra map[string]any, stream string, index int) map[string]any {
	out := withFile(extra, stream)
	out["stream"], out["delta_index"] = stream, index
	return out
}
