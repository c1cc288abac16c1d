package lint

import (
	"bytes"
	"io"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Linter lints whole files: JSON Lines record by record (streaming), other
// formats as one document. Emit receives one envelope per denied or warned
// record, in input order.
type Linter struct {
	V     *Validator
	Stats Stats
	Emit  func(envelope.Envelope) error
}

func (l *Linter) envelope(kind *KindInfo, file string, line int, vs []envelope.Violation) envelope.Envelope {
	d := map[string]any{"kind": kind.Name, "file": file}
	if line > 0 {
		d["line"] = line
	}
	return envelope.Verdict(append([]envelope.Violation(nil), vs...), kind.OKReason, d)
}

func (l *Linter) report(kind *KindInfo, file string, line int, vs []envelope.Violation) error {
	l.Stats.Records++
	l.Stats.Add(vs)
	if len(vs) == 0 {
		return nil
	}
	return l.Emit(l.envelope(kind, file, line, vs))
}

// File lints the content of one file of a known kind. Read errors are
// returned; everything about the content becomes violations.
func (l *Linter) File(kind *KindInfo, file string, r io.Reader) error {
	l.Stats.Files++
	if kind.Format != FormatJSONL {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		vs, _ := l.V.Document(kind.Name, file, data)
		return l.report(kind, file, 0, vs)
	}
	lr := NewLineReader(r)
	for {
		text, line, crlf, tooLong, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var pre []envelope.Violation
		if tooLong {
			pre = append(pre, envelope.Violation{Rule: "AL009", Line: line, Column: 1, Reason: "line longer than 64 MiB skipped"})
			if err := l.reportPre(kind, file, line, pre); err != nil {
				return err
			}
			continue
		}
		if line == 1 && bytes.HasPrefix(text, []byte("\ufeff")) {
			text = text[3:]
			pre = append(pre, envelope.Violation{Rule: "AL006", Line: 1, Column: 1, Reason: "UTF-8 byte-order mark skipped"})
		}
		if crlf {
			pre = append(pre, envelope.Violation{Rule: "AL007", Line: line, Column: len(text) + 1, Reason: "CRLF line ending (use LF)"})
		}
		if len(bytes.TrimSpace(text)) == 0 {
			l.Stats.BlankLines++
			if l.V.opts.Strict {
				pre = append(pre, envelope.Violation{Rule: "AL008", Line: line, Column: 1, Reason: "blank line (strict mode)"})
			}
			if len(pre) > 0 {
				if err := l.reportPre(kind, file, line, pre); err != nil {
					return err
				}
			}
			continue
		}
		vs, _ := l.V.Record(kind.Name, file, text, line)
		if len(pre) > 0 {
			l.V.vs = append(l.V.vs, pre...)
			l.V.finish()
			envelope.Sort(l.V.vs)
			vs = l.V.vs
		}
		if err := l.report(kind, file, line, vs); err != nil {
			return err
		}
	}
}

// reportPre reports line-level violations of a line that is not a record.
func (l *Linter) reportPre(kind *KindInfo, file string, line int, pre []envelope.Violation) error {
	l.V.vs = append(l.V.vs[:0], pre...)
	l.V.finish()
	if len(l.V.vs) == 0 {
		return nil
	}
	l.Stats.Add(l.V.vs)
	return l.Emit(l.envelope(kind, file, line, l.V.vs))
}
