package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// GitHub prints GitHub Actions workflow commands (README, Usage,
// `--format github`): one `::error` or `::warning` annotation per violation,
// with file, line, column and title (rule and code), so that a pull request
// shows each finding on its line; `::notice` for an envelope without
// violations; the summary as one annotation titled "agentlint".
type GitHub struct {
	W io.Writer
}

// Record implements Printer.
func (p *GitHub) Record(e envelope.Envelope) error {
	_, err := p.W.Write(p.AppendRecord(nil, e))
	return err
}

// AppendRecord implements Appender.
func (p *GitHub) AppendRecord(dst []byte, e envelope.Envelope) []byte {
	e = cleanEnvelopeWith(e, cleanLines)
	file, _ := e.Details["file"].(string)
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		level := "notice"
		if !e.Allow {
			level = "error"
		}
		return appendCommand(dst, level, file, 0, 0, "agentlint "+string(e.Code), e.Reason)
	}
	for i := range vs {
		v := &vs[i]
		level := "error"
		if v.Severity == envelope.SeverityWarning {
			level = "warning"
		}
		msg := v.Reason
		if v.Pointer != "" {
			msg += " [" + v.Pointer + "]"
		}
		f := file
		if vf, ok := v.Extra["file"].(string); ok && vf != "" {
			// A violation of a run over several files (replay: base
			// ledger and streams) names its own.
			f = vf
		}
		dst = appendCommand(dst, level, f, v.Line, v.Column, v.Rule+" "+string(v.Code), msg)
	}
	return dst
}

// Summary implements Printer.
func (p *GitHub) Summary(e envelope.Envelope) error {
	e = cleanEnvelopeWith(e, cleanLines)
	level := "notice"
	if !e.Allow {
		level = "error"
	}
	var parts []string
	for _, k := range []string{"files", "records", "denied", "warnings", "skipped_files"} {
		if n, ok := e.Details[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, n))
		}
	}
	_, err := p.W.Write(appendCommand(nil, level, "", 0, 0, "agentlint", string(e.Code)+": "+e.Reason+" ("+strings.Join(parts, " ")+")"))
	return err
}

// appendCommand appends `::level file=F,line=L,col=C,title=T::message`,
// escaped as GitHub's workflow command syntax requires (data: %, CR, LF;
// properties also ':' and ',').
func appendCommand(dst []byte, level, file string, line, col int, title, msg string) []byte {
	dst = append(dst, "::"...)
	dst = append(dst, level...)
	sep := byte(' ')
	prop := func(k, v string) {
		dst = append(dst, sep)
		sep = ','
		dst = append(dst, k...)
		dst = append(dst, '=')
		dst = append(dst, escapeProperty(v)...)
	}
	if file != "" && file != "-" {
		prop("file", file)
		if line > 0 {
			prop("line", strconv.Itoa(line))
			if col > 0 {
				prop("col", strconv.Itoa(col))
			}
		}
	}
	prop("title", title)
	dst = append(dst, "::"...)
	dst = append(dst, escapeData(msg)...)
	return append(dst, '\n')
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
