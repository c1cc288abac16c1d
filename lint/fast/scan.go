package fast

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// scanner is the optimistic one-pass reader of the hot path: it reads the
// tokens of a JSON text held in memory with the grammar and the checks of
// jsontext (duplicate names, UTF-8, escapes, numbers, literals, one
// top-level value), at a fraction of its cost, because every record is one
// buffer and the common case is small objects: duplicate names are found
// by a linear check over the names of the object (no map).
//
// It never reports a syntax error itself: on anything it does not accept
// (malformed input, and the rare shapes it leaves to jsontext: escaped
// member names, objects of more than maxScanNames members, nesting deeper
// than maxScanDepth) it aborts with scanBail, and Dec.Validate runs the same
// validator again over jsontext, which then names the problem exactly as
// before. So it only has to be right about what it accepts: what it
// accepts, jsontext accepts, as the same tokens at the same offsets
// (FuzzScanner holds it to that).
type scanner struct {
	b     []byte
	p     int // offset just after the last token (jsontext's InputOffset)
	q     int // next's answer until the next token is read; -2: not known
	done  bool
	st    []scanFrame
	names [][2]int // member names of the open objects, as ranges of b
}

type scanFrame struct {
	obj       bool
	afterName bool // a member name was read; its value comes next
	n         int  // members or elements read so far
	names0    int  // the object's first name in names
}

// scanBail aborts the optimistic scan (see scanner).
type scanBail struct{}

const (
	maxScanNames = 16   // members per object the scanner checks linearly
	maxScanDepth = 1000 // nesting the scanner handles (jsontext: MaxDepth)
)

func (s *scanner) reset(b []byte) {
	s.b, s.p, s.q, s.done = b, 0, -2, false
	s.st = s.st[:0]
	s.names = s.names[:0]
}

func bail() { panic(scanBail{}) }

// SkipWS returns the index of the first byte at or after b[i] that is not
// JSON white space (space, tab, CR, LF; RFC 8259 section 2), or len(b).
func SkipWS(b []byte, i int) int {
	if uint(i) < uint(len(b)) && b[i] > ' ' {
		return i // the common case: no white space
	}
	return skipWS(b, i)
}

// skipWS is SkipWS's loop.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		break
	}
	return i
}

// next returns the offset of the next token, after the white space and the
// delimiter (':' or ',') the grammar requires there; -1 at the end of the
// input after the top-level value. Anything else bails.
func (s *scanner) next() int {
	if s.q == -2 {
		s.q = s.next1()
	}
	return s.q
}

func (s *scanner) next1() int {
	i := SkipWS(s.b, s.p)
	if len(s.st) == 0 {
		if s.done {
			if i < len(s.b) {
				bail()
			}
			return -1
		}
		if i >= len(s.b) || s.b[i] == '}' || s.b[i] == ']' {
			bail()
		}
		return i
	}
	f := &s.st[len(s.st)-1]
	switch {
	case f.afterName:
		if i >= len(s.b) || s.b[i] != ':' {
			bail()
		}
		i = SkipWS(s.b, i+1)
	case f.n > 0:
		if i >= len(s.b) {
			bail()
		}
		switch s.b[i] {
		case ',':
			i = SkipWS(s.b, i+1)
			if i >= len(s.b) {
				bail()
			}
			if c := s.b[i]; c == '}' || c == ']' || (f.obj && c != '"') {
				bail()
			}
			return i
		case '}', ']':
		default:
			bail()
		}
	default:
		if f.obj && i < len(s.b) && s.b[i] != '"' && s.b[i] != '}' {
			bail()
		}
	}
	if i >= len(s.b) {
		bail()
	}
	if c := s.b[i]; (c == '}' || c == ']') && (f.afterName || (c == '}') != f.obj) {
		bail()
	}
	return i
}

// peek returns the kind of the next token as jsontext.Kind does ('"',
// '0', 't', 'f', 'n', '{', '}', '[', ']'), or 0 at the end of the input.
func (s *scanner) peek() jsontext.Kind {
	i := s.next()
	if i < 0 {
		return 0
	}
	switch c := s.b[i]; c {
	case '"', 't', 'f', 'n', '{', '}', '[', ']':
		return jsontext.Kind(c)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	bail()
	return 0
}

// token reads one token and returns its raw bytes.
func (s *scanner) token() []byte {
	i := s.next()
	if i < 0 {
		bail()
	}
	s.q = -2
	var j int
	switch c := s.b[i]; c {
	case '{', '[':
		if len(s.st) >= maxScanDepth {
			bail()
		}
		s.st = append(s.st, scanFrame{obj: c == '{', names0: len(s.names)})
		s.p = i + 1
		return s.b[i : i+1]
	case '}', ']':
		f := s.st[len(s.st)-1]
		s.names = s.names[:f.names0]
		s.st = s.st[:len(s.st)-1]
		s.p = i + 1
		s.valueDone()
		return s.b[i : i+1]
	case '"':
		var esc bool
		j, esc = s.str(i)
		if f := s.top(); f != nil && f.obj && !f.afterName {
			if esc || f.n >= maxScanNames {
				bail()
			}
			name := s.b[i+1 : j-1]
			for _, r := range s.names[f.names0:] {
				if bytes.Equal(s.b[r[0]:r[1]], name) {
					bail()
				}
			}
			s.names = append(s.names, [2]int{i + 1, j - 1})
			f.afterName = true
			s.p = j
			return s.b[i:j]
		}
	case 't':
		j = s.lit(i, "true")
	case 'f':
		j = s.lit(i, "false")
	case 'n':
		j = s.lit(i, "null")
	default:
		j = s.num(i)
	}
	s.p = j
	s.valueDone()
	return s.b[i:j]
}

func (s *scanner) top() *scanFrame {
	if len(s.st) == 0 {
		return nil
	}
	return &s.st[len(s.st)-1]
}

// valueDone records that a value of the innermost container (or the
// top-level value) is complete.
func (s *scanner) valueDone() {
	if f := s.top(); f != nil {
		f.n++
		f.afterName = false
		return
	}
	s.done = true
}

// value reads one whole value (a scalar, or an object or array with
// everything in it) and returns its raw bytes.
func (s *scanner) value() []byte {
	i := s.next()
	if i < 0 {
		bail()
	}
	depth := len(s.st)
	s.token()
	for len(s.st) > depth {
		s.token()
	}
	return s.b[i:s.p]
}

func (s *scanner) lit(i int, w string) int {
	if !bytes.HasPrefix(s.b[i:], []byte(w)) {
		bail()
	}
	return i + len(w)
}

// num scans a JSON number starting at i and returns its end.
func (s *scanner) num(i int) int {
	j, _ := Num(s.b, i)
	if j < 0 {
		bail()
	}
	return j
}

// plain marks the bytes a string may hold as they are: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str scans the string literal starting at i and returns its end and
// whether it has escapes (checked by jsontext.AppendUnquote).
func (s *scanner) str(i int) (int, bool) {
	j, esc := strEnd(s.b, i)
	if j < 0 {
		bail()
	}
	return j, esc
}
