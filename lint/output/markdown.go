package output

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// MarkdownFindings is how many findings the Markdown summary lists.
const MarkdownFindings = 50

// Markdown prints a GitHub job summary (`--format markdown`, for
// $GITHUB_STEP_SUMMARY): a heading with the verdict in words (the summary's
// reason, e.g. "1 new record denied: 2 new findings; 21 findings older than
// origin/main left out"), the primary code and the counts, tables of
// findings by code and by rule, and the first MarkdownFindings findings as a
// table with file:line links to the blob at GITHUB_SHA (when
// GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA are set; plain text
// otherwise), then "N more". Table cells are escaped; reasons never hold a
// secret (the engine names the pattern and the pointer). Written by Close;
// memory: the counts and the first findings.
type Markdown struct {
	W   io.Writer
	Run *RunInfo

	byCode, byRule map[string][2]int // errors, warnings
	first          []mdFinding
	total          int
	denied         int
	allow          bool
	code           envelope.Code
	reason         string
	summary        map[string]any
	verdicts       int
	aborted        bool
}

type mdFinding struct {
	file string
	v    envelope.Violation
}

// Record implements Printer.
func (p *Markdown) Record(e envelope.Envelope) error {
	e = cleanEnvelope(e)
	p.verdicts++
	if p.verdicts == 1 {
		p.allow = true
	}
	if !e.Allow {
		p.denied++
		if p.allow || envelope.Rank(e.Code) < envelope.Rank(p.code) {
			p.code, p.reason = e.Code, e.Reason
		}
		p.allow = false
	}
	file, _ := e.Details["file"].(string)
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 && !e.Allow {
		vs = []envelope.Violation{{Code: e.Code, Reason: e.Reason, Severity: envelope.SeverityError}}
	}
	for _, v := range vs {
		f := file
		if vf, ok := v.Extra["file"].(string); ok && vf != "" {
			f = vf
		}
		if p.byCode == nil {
			p.byCode, p.byRule = map[string][2]int{}, map[string][2]int{}
		}
		k := 0
		if v.Severity == envelope.SeverityWarning {
			k = 1
		}
		c := p.byCode[string(v.Code)]
		c[k]++
		p.byCode[string(v.Code)] = c
		if v.Rule != "" {
			r := p.byRule[v.Rule]
			r[k]++
			p.byRule[v.Rule] = r
		}
		p.total++
		if len(p.first) < MarkdownFindings {
			v.Extra = nil
			p.first = append(p.first, mdFinding{file: f, v: v})
		}
	}
	return nil
}

// Summary implements Printer: the summary decides the verdict.
func (p *Markdown) Summary(e envelope.Envelope) error {
	e = cleanEnvelope(e)
	p.verdicts++
	p.allow, p.code, p.reason, p.summary = e.Allow, e.Code, e.Reason, e.Details
	return nil
}

// Abort implements Aborter.
func (p *Markdown) Abort(e envelope.Envelope) {
	e = cleanEnvelope(e)
	p.aborted, p.allow, p.code, p.reason = true, false, e.Code, e.Reason
}

// Close implements Closer: it writes the summary.
func (p *Markdown) Close() error {
	var b strings.Builder
	cmd := "agentlint"
	if p.Run.Command != "" {
		cmd += " " + p.Run.Command
	}
	switch {
	case p.aborted:
		fmt.Fprintf(&b, "## %s: could not run (%s)\n\n%s\n", cmd, p.code, mdCell(p.reason))
		_, err := io.WriteString(p.W, b.String())
		return err
	case p.allow || p.verdicts == 0:
		fmt.Fprintf(&b, "## %s: ✅ OK\n\n", cmd)
	default:
		// The verdict in words ("1 new record denied: 2 new findings");
		// the primary code is part of the breakdown.
		fmt.Fprintf(&b, "## %s: ❌ %s\n\nprimary code: %s\n\n", cmd, mdCell(p.reason), p.code)
	}
	if p.summary != nil {
		var parts []string
		for _, k := range []string{"files", "records", "denied", "warnings", "skipped_files", "unreadable_files", "older_findings", "baseline_absent"} {
			if n, ok := p.summary[k]; ok {
				parts = append(parts, fmt.Sprintf("%s: %v", strings.ReplaceAll(k, "_", " "), n))
			}
		}
		b.WriteString(strings.Join(parts, " · ") + "\n\n")
	}
	if p.total == 0 {
		b.WriteString("No findings.\n")
		_, err := io.WriteString(p.W, b.String())
		return err
	}
	writeCounts(&b, "code", p.byCode)
	writeCounts(&b, "rule", p.byRule)
	fmt.Fprintf(&b, "### Findings\n\n| location | severity | code | rule | reason |\n|---|---|---|---|---|\n")
	for _, f := range p.first {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", p.link(f.file, f.v.Line), f.v.Severity, mdCell(string(f.v.Code)), mdCell(f.v.Rule), mdCell(reasonWithPointer(&f.v)))
	}
	if more := p.total - len(p.first); more > 0 {
		fmt.Fprintf(&b, "\n… and %d more (the first %d are listed).\n", more, len(p.first))
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

func reasonWithPointer(v *envelope.Violation) string {
	if v.Pointer == "" {
		return v.Reason
	}
	return v.Reason + " [" + v.Pointer + "]"
}

func writeCounts(b *strings.Builder, what string, m map[string][2]int) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ti, tj := m[keys[i]][0]+m[keys[i]][1], m[keys[j]][0]+m[keys[j]][1]
		if ti != tj {
			return ti > tj
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(b, "### By %s\n\n| %s | errors | warnings |\n|---|---:|---:|\n", what, what)
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %d | %d |\n", mdCell(k), m[k][0], m[k][1])
	}
	b.WriteString("\n")
}

// link renders file:line, linked to the blob at GITHUB_SHA when the GitHub
// environment names it.
func (p *Markdown) link(file string, line int) string {
	if file == "" {
		file = "-"
	}
	label := file
	if line > 0 {
		label += ":" + strconv.Itoa(line)
	}
	get := p.Run.Getenv
	if get == nil || file == "-" {
		return mdCell(label)
	}
	server, repo, sha := get("GITHUB_SERVER_URL"), get("GITHUB_REPOSITORY"), get("GITHUB_SHA")
	if server == "" || repo == "" || sha == "" {
		return mdCell(label)
	}
	uri, rooted := (&SARIF{Run: p.Run}).artifact(file)
	if !rooted {
		return mdCell(label)
	}
	url := strings.TrimRight(server, "/") + "/" + repo + "/blob/" + sha + "/" + uri
	if line > 0 {
		url += "#L" + strconv.Itoa(line)
	}
	return "[" + mdCell(label) + "](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "|", "%7C").Replace(url) + ")"
}

// mdCell escapes s for a Markdown table cell: line breaks become spaces,
// and the characters that end a cell or start Markdown or HTML syntax are
// backslash-escaped (| ` * _ [ ] < > \ # ~ and &).
func mdCell(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r':
			b.WriteByte(' ')
		case '|', '`', '*', '_', '[', ']', '<', '>', '\\', '#', '~', '&', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
