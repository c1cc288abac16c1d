package output

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fatih/color"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Text prints one line per violation, `file:line:col: CODE RULE: reason`
// (CONTRACT.md section 6), warnings marked, and a one-line verdict for a
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
	file, _ := e.Details["file"].(string)
	if file == "" {
		file = "-"
	}
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		_, err := fmt.Fprintf(p.W, "%s: %s %s\n", file, p.paint(color.FgGreen, string(e.Code)), e.Reason)
		return err
	}
	for _, v := range vs {
		loc := file
		if v.Line > 0 {
			loc = fmt.Sprintf("%s:%d:%d", file, v.Line, v.Column)
		}
		code := p.paint(color.FgRed, string(v.Code))
		if v.Severity == envelope.SeverityWarning {
			code = p.paint(color.FgYellow, string(v.Code)+" (warning)")
		}
		reason := v.Reason
		if v.Pointer != "" {
			reason += " [" + v.Pointer + "]"
		}
		if _, err := fmt.Fprintf(p.W, "%s: %s %s: %s\n", loc, code, p.paint(color.Faint, v.Rule), reason); err != nil {
			return err
		}
	}
	return nil
}

// Summary implements Printer.
func (p *Text) Summary(e envelope.Envelope) error {
	d := e.Details
	var parts []string
	for _, k := range []string{"files", "records", "denied", "warnings", "skipped_files", "blank_lines"} {
		if n, ok := d[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, n))
		}
	}
	verdict := p.paint(color.FgGreen, "OK")
	if !e.Allow {
		verdict = p.paint(color.FgRed, string(e.Code))
	}
	line := fmt.Sprintf("summary: %s %s", verdict, strings.Join(parts, " "))
	if byRule, ok := d["by_rule"].(map[string]int); ok && len(byRule) > 0 {
		keys := make([]string, 0, len(byRule))
		for k := range byRule {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var rs []string
		for _, k := range keys {
			rs = append(rs, fmt.Sprintf("%s:%d", k, byRule[k]))
		}
		line += " rules=" + strings.Join(rs, ",")
	}
	_, err := fmt.Fprintln(p.W, line)
	return err
}
