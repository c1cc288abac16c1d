package output

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Text prints one line per violation, `file:line:col: CODE RULE: reason`
// (README, Usage), warnings marked, and a one-line verdict for a
// document without violations. Color is used only when enabled.
type Text struct {
	W     io.Writer
	Color bool
}

func (p *Text) paint(attr color.Attribute, s string) string {
	if !p.Color {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

// Record implements Printer.
func (p *Text) Record(e envelope.Envelope) error {
	_, err := p.W.Write(p.AppendRecord(nil, e))
	return err
}

// AppendRecord implements Appender: one line per violation, or one line for
// an envelope without violations (green when it allows, red otherwise).
func (p *Text) AppendRecord(dst []byte, e envelope.Envelope) []byte {
	e = cleanEnvelope(e)
	file, _ := e.Details["file"].(string)
	if file == "" {
		file = "-"
	}
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		attr := color.FgGreen
		if !e.Allow {
			attr = color.FgRed
		}
		dst = append(dst, file...)
		dst = append(dst, ": "...)
		dst = append(dst, p.paint(attr, string(e.Code))...)
		dst = append(dst, ' ')
		dst = append(dst, e.Reason...)
		return append(dst, '\n')
	}
	for i := range vs {
		v := &vs[i]
		dst = append(dst, file...)
		if v.Line > 0 {
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(v.Line), 10)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(v.Column), 10)
		}
		dst = append(dst, ": "...)
		if v.Severity == envelope.SeverityWarning {
			dst = append(dst, p.paint(color.FgYellow, string(v.Code)+" (warning)")...)
		} else {
			dst = append(dst, p.paint(color.FgRed, string(v.Code))...)
		}
		dst = append(dst, ' ')
		dst = append(dst, p.paint(color.Faint, v.Rule)...)
		dst = append(dst, ": "...)
		dst = append(dst, v.Reason...)
		if v.Pointer != "" {
			dst = append(dst, " ["...)
			dst = append(dst, v.Pointer...)
			dst = append(dst, ']')
		}
		dst = append(dst, '\n')
	}
	return dst
}

// Summary implements Printer.
func (p *Text) Summary(e envelope.Envelope) error {
	e = cleanEnvelope(e)
	d := e.Details
	var parts []string
	for _, k := range []string{"files", "records", "denied", "warnings", "skipped_files", "blank_lines", "unreadable_files", "older_findings", "baseline_absent"} {
		if n, ok := d[k]; ok && (k != "unreadable_files" || n != 0) {
			parts = append(parts, fmt.Sprintf("%s=%v", k, n))
		}
	}
	verdict := p.paint(color.FgGreen, "OK")
	if !e.Allow {
		verdict = p.paint(color.FgRed, string(e.Code))
	}
	line := fmt.Sprintf("summary: %s %s", verdict, strings.Join(parts, " "))
	if byRule, ok := d["by_rule"].(map[string]int); ok && len(byRule) > 0 {
		line += " rules=" + joinCounts(byRule)
	}
	if groups, ok := d["correlation_groups"].(map[string]int); ok && len(groups) > 0 {
		line += " groups=" + joinCounts(groups)
	}
	if _, adopting := d["older_findings"]; adopting || d["files"] == 0 {
		// What was left out, or why nothing was linted, in words.
		line += " (" + e.Reason + ")"
	}
	_, err := fmt.Fprintln(p.W, line)
	return err
}

// joinCounts renders counts as "key:n,key:n", keys sorted.
func joinCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rs := make([]string, 0, len(keys))
	for _, k := range keys {
		rs = append(rs, fmt.Sprintf("%s:%d", k, m[k]))
	}
	return strings.Join(rs, ",")
}
