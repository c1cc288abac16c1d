package output

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentlint/agentlint/lint/envelope"
)

// JUnit prints one JUnit XML report (`--format junit`, read by Jenkins,
// GitLab, Buildkite and other test report consumers): a <testsuites> with
// one <testsuite> per file and one <testcase> per record of a JSON Lines
// file (named "file:line") or per document (named by the file). A denied
// record's test case has one <failure> (type: the primary code; message:
// code, rule and reason of the first error; text: every violation as
// `file:line:col: CODE RULE: reason [pointer]`). Warnings do not fail: they
// are the test case's <system-out>, one line per warning. A file that could
// not be read, or a usage error, is an <error>.
//
// Memory: per file only the counts (FileObserver) and the findings are
// kept; the passing test cases are generated when the suite is written, in
// Close, so a log of a million lines is never held.
type JUnit struct {
	W   io.Writer
	Run *RunInfo

	suites []*junitSuite
	byPath map[string]*junitSuite
	abort  *envelope.Envelope
}

type junitSuite struct {
	path, kind string
	info       *FileInfo
	cases      map[int]*junitCase // by line; 0: the document or the file
	errors     []string           // the file could not be read
}

type junitCase struct {
	vs []envelope.Violation
}

func (p *JUnit) suite(path string) *junitSuite {
	if p.byPath == nil {
		p.byPath = map[string]*junitSuite{}
	}
	s := p.byPath[path]
	if s == nil {
		s = &junitSuite{path: path, cases: map[int]*junitCase{}}
		p.byPath[path] = s
		p.suites = append(p.suites, s)
	}
	return s
}

// Record implements Printer.
func (p *JUnit) Record(e envelope.Envelope) error {
	e = cleanEnvelope(e)
	file, _ := e.Details["file"].(string)
	if file == "" {
		file = p.Run.Command
		if file == "" {
			file = "-"
		}
	}
	s := p.suite(file)
	if kind, ok := e.Details["kind"].(string); ok && s.kind == "" {
		s.kind = kind
	}
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		if !e.Allow {
			s.errors = append(s.errors, string(e.Code)+": "+e.Reason)
		}
		return nil
	}
	line, _ := e.Details["line"].(int) // documents: merged into one case by each
	for _, v := range vs {
		in := s
		if vf, ok := v.Extra["file"].(string); ok && vf != "" && vf != file {
			in = p.suite(vf) // replay: the input the violation points into
		}
		c := in.cases[line]
		if c == nil {
			c = &junitCase{}
			in.cases[line] = c
		}
		c.vs = append(c.vs, v)
	}
	return nil
}

// Summary implements Printer (the counts are the report's own).
func (p *JUnit) Summary(envelope.Envelope) error { return nil }

// File implements FileObserver.
func (p *JUnit) File(f FileInfo) {
	f.Path = Clean(f.Path)
	s := p.suite(f.Path)
	s.info = &f
	if s.kind == "" {
		s.kind = f.Kind
	}
}

// Abort implements Aborter.
func (p *JUnit) Abort(e envelope.Envelope) {
	e = cleanEnvelope(e)
	p.abort = &e
}

// each calls yield with the test cases of the suite in order: one for a
// document; for a JSON Lines file the file-level case (line 0) if any, then
// one per record line, the passing ones generated from the counts.
func (s *junitSuite) each(yield func(line int, c *junitCase)) {
	if s.info == nil || s.info.Document {
		if len(s.cases) == 0 && len(s.errors) > 0 {
			return
		}
		c := &junitCase{}
		lines := make([]int, 0, len(s.cases))
		for l := range s.cases {
			lines = append(lines, l)
		}
		sort.Ints(lines)
		for _, l := range lines {
			c.vs = append(c.vs, s.cases[l].vs...)
		}
		yield(0, c)
		return
	}
	if c := s.cases[0]; c != nil {
		yield(0, c)
	}
	last := s.info.Records + len(s.info.SkipLines)
	skip := s.info.SkipLines
	for l := 1; l <= last; l++ {
		if len(skip) > 0 && skip[0] == l {
			skip = skip[1:]
			if c := s.cases[l]; c != nil {
				yield(l, c)
			}
			continue
		}
		yield(l, s.cases[l])
	}
	var beyond []int
	for l := range s.cases {
		if l > last {
			beyond = append(beyond, l)
		}
	}
	sort.Ints(beyond)
	for _, l := range beyond {
		yield(l, s.cases[l])
	}
}

func (c *junitCase) failed() bool {
	return c != nil && envelope.HasErrors(c.vs)
}

func (s *junitSuite) counts() (tests, failures, errors int) {
	s.each(func(_ int, c *junitCase) {
		tests++
		if c.failed() {
			failures++
		}
	})
	if len(s.errors) > 0 {
		tests++
		errors++
	}
	return
}

// Close implements Closer: it writes the report.
func (p *JUnit) Close() error {
	w := bufio.NewWriter(p.W)
	if p.abort != nil {
		w.WriteString(xmlHeader)
		w.WriteString(`<testsuites name="agentlint" tests="1" failures="0" errors="1">` + "\n")
		w.WriteString(`  <testsuite name="agentlint" tests="1" failures="0" errors="1" skipped="0">` + "\n")
		w.WriteString(`    <testcase name="agentlint ` + attr(p.Run.Command) + `" classname="agentlint">` + "\n")
		w.WriteString(`      <error message="` + attr(string(p.abort.Code)+": "+p.abort.Reason) + `" type="` + attr(string(p.abort.Code)) + `"></error>` + "\n")
		w.WriteString("    </testcase>\n  </testsuite>\n</testsuites>\n")
		return w.Flush()
	}
	var tests, failures, errors int
	type count struct{ t, f, e int }
	cs := make([]count, len(p.suites))
	for i, s := range p.suites {
		t, f, e := s.counts()
		cs[i] = count{t, f, e}
		tests, failures, errors = tests+t, failures+f, errors+e
	}
	w.WriteString(xmlHeader)
	w.WriteString(`<testsuites name="agentlint" tests="` + strconv.Itoa(tests) + `" failures="` + strconv.Itoa(failures) + `" errors="` + strconv.Itoa(errors) + `">` + "\n")
	for i, s := range p.suites {
		w.WriteString(`  <testsuite name="` + attr(s.path) + `" tests="` + strconv.Itoa(cs[i].t) + `" failures="` + strconv.Itoa(cs[i].f) + `" errors="` + strconv.Itoa(cs[i].e) + `" skipped="0">` + "\n")
		if s.kind != "" {
			w.WriteString(`    <properties>` + "\n" + `      <property name="kind" value="` + attr(s.kind) + `"></property>` + "\n" + `    </properties>` + "\n")
		}
		class := s.kind
		if class == "" {
			class = "agentlint"
		}
		s.each(func(line int, c *junitCase) {
			name := s.path
			if line > 0 {
				name += ":" + strconv.Itoa(line)
			}
			w.WriteString(`    <testcase name="` + attr(name) + `" classname="` + attr(class) + `"`)
			if c == nil || len(c.vs) == 0 {
				w.WriteString("></testcase>\n")
				return
			}
			w.WriteString(">\n")
			var fail, warn strings.Builder
			var first *envelope.Violation
			for i := range c.vs {
				v := &c.vs[i]
				b := &warn
				if v.Severity == envelope.SeverityError {
					b = &fail
					if first == nil {
						first = v
					}
				}
				b.WriteString(findingLine(s.path, v))
			}
			if first != nil {
				w.WriteString(`      <failure message="` + attr(string(first.Code)+" "+first.Rule+": "+first.Reason) + `" type="` + attr(string(first.Code)) + `">`)
				w.WriteString(text(strings.TrimSuffix(fail.String(), "\n")))
				w.WriteString("</failure>\n")
			}
			if warn.Len() > 0 {
				w.WriteString("      <system-out>" + text(strings.TrimSuffix(warn.String(), "\n")) + "</system-out>\n")
			}
			w.WriteString("    </testcase>\n")
		})
		if len(s.errors) > 0 {
			w.WriteString(`    <testcase name="` + attr(s.path) + `" classname="` + attr(class) + `">` + "\n")
			w.WriteString(`      <error message="` + attr(s.errors[0]) + `" type="` + string(envelope.MissingRequiredInput) + `">` + text(strings.Join(s.errors, "\n")) + "</error>\n")
			w.WriteString("    </testcase>\n")
		}
		w.WriteString("  </testsuite>\n")
	}
	w.WriteString("</testsuites>\n")
	return w.Flush()
}

// findingLine renders one violation as the text format does, with
// "warning" after the code of a warning.
func findingLine(file string, v *envelope.Violation) string {
	var b strings.Builder
	b.WriteString(file)
	if v.Line > 0 {
		b.WriteString(":" + strconv.Itoa(v.Line) + ":" + strconv.Itoa(v.Column))
	}
	b.WriteString(": " + string(v.Code))
	if v.Severity == envelope.SeverityWarning {
		b.WriteString(" (warning)")
	}
	b.WriteString(" " + v.Rule + ": " + v.Reason)
	if v.Pointer != "" {
		b.WriteString(" [" + v.Pointer + "]")
	}
	b.WriteString("\n")
	return b.String()
}

// xmlHeader is encoding/xml's Header.
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// attr escapes s for an XML attribute value (and replaces characters XML
// cannot hold), as encoding/xml's EscapeText does (TestAttrIsEscapeText).
// The package is not imported: its initialisation (two entity maps) cost
// every process start.
func attr(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b.WriteString(s[last : i-width])
		b.WriteString(esc)
		last = i
	}
	b.WriteString(s[last:])
	return b.String()
}

// xmlChar reports whether r is in XML's Char production.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// text escapes s for XML character data, keeping line feeds.
func text(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = attr(l)
	}
	return strings.Join(lines, "\n")
}
