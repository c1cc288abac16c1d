package lint

import (
	"bufio"
	"errors"
	"io"
	"strconv"

	"github.com/agentlint/agentlint/lint/envelope"
)

// MaxLine is the longest JSON Lines record read (64 MiB); a longer line is
// reported (AL009) and skipped, and the rest of the file is still checked.
const MaxLine = 64 << 20

// LineReader reads JSON Lines records from r in memory bounded by the
// longest line (at most MaxLine plus the read buffer).
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

// NewLineReader returns a reader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// Next returns the next line without its line ending, its 1-based number,
// whether it ended with CRLF and whether it was longer than MaxLine (then
// text is nil). A final line without a newline is still returned. At the end
// it returns io.EOF. text is valid until the next call.
func (lr *LineReader) Next() (text []byte, line int, crlf, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, e := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLine+2 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if e == nil {
			break
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e == io.EOF {
			if len(lr.buf) == 0 && !tooLong {
				return nil, 0, false, false, io.EOF
			}
			break
		}
		return nil, 0, false, false, e
	}
	lr.line++
	if tooLong {
		return nil, lr.line, false, true, nil
	}
	b := lr.buf
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			crlf = true
		}
	}
	return b, lr.line, crlf, false, nil
}

// Stats counts what a lint run saw (the summary envelope's details).
type Stats struct {
	Files        int
	SkippedFiles int
	Records      int
	BlankLines   int
	Denied       int
	Warnings     int
	ByCode       map[string]int
	ByRule       map[string]int
	Worst        envelope.Code
}

// Add counts the violations of one record.
func (s *Stats) Add(vs []envelope.Violation) {
	if s.ByCode == nil {
		s.ByCode, s.ByRule = map[string]int{}, map[string]int{}
	}
	denied := false
	for _, v := range vs {
		s.ByCode[string(v.Code)]++
		s.ByRule[v.Rule]++
		if v.Severity == envelope.SeverityError {
			if !denied && (s.Worst == "" || envelope.Rank(v.Code) < envelope.Rank(s.Worst)) {
				s.Worst = v.Code
			}
			denied = true
		} else {
			s.Warnings++
		}
	}
	if denied {
		s.Denied++
	}
}

// Summary returns the summary envelope (CONTRACT.md section 2): code is the
// highest-precedence primary code among denied records (OK if none).
func (s *Stats) Summary() envelope.Envelope {
	d := map[string]any{
		"files": s.Files, "skipped_files": s.SkippedFiles, "records": s.Records,
		"blank_lines": s.BlankLines, "denied": s.Denied, "warnings": s.Warnings,
		"by_code": nonNil(s.ByCode), "by_rule": nonNil(s.ByRule),
	}
	if s.Denied == 0 {
		return envelope.Envelope{Allow: true, Code: envelope.OK, Reason: "no record denied", Details: d}
	}
	return envelope.Envelope{Allow: false, Code: s.Worst, Reason: plural(s.Denied, "record") + " denied", Details: d}
}

func nonNil(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
