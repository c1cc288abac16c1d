package lint

import (
	"strconv"
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Stats counts what a lint run saw: the details of the summary envelope
// (README, Codes and precedence).
type Stats struct {
	// Files linted (skipped and unreadable ones excluded).
	Files int
	// SkippedFiles: files found while walking whose kind could not be determined.
	SkippedFiles int
	// UnreadableFiles: inputs reported with allow:false and code
	// MISSING_REQUIRED_INPUT (dangling symbolic links, read errors).
	UnreadableFiles int
	// Records: JSON Lines records and documents validated.
	Records int
	// BlankLines: JSON Lines lines holding only white space (not records).
	BlankLines int
	// Denied: verdicts with at least one error; Warnings: warning violations.
	Denied   int
	Warnings int
	// ByCode and ByRule count violations (errors and warnings).
	ByCode map[string]int
	ByRule map[string]int
	// Worst is the highest-precedence primary code among denied verdicts.
	Worst envelope.Code
	// Groups counts the distinct correlation groups of the run by group
	// name (correlation groups are reported in the summary):
	// "trace_id", the distinct correlation.trace_id values of the collector
	// logs (counted by CL101's check). Set by Lint after the last file; nil
	// when no log had one.
	Groups map[string]int
	// found counts the violations of a partial Stats (a chunk's, a batch's)
	// by code and rule until Merge adds them to ByCode and ByRule: a few
	// pairs, counted without hashing a string per violation.
	found []foundCount
}

// foundCount is the number of violations of one code and rule (Stats.found).
type foundCount struct {
	code envelope.Code
	rule string
	n    int
}

// foundMax bounds Stats.found: beyond it, violations are counted in the
// maps directly.
const foundMax = 32

// tally counts v by code and rule: in found while it has room, else in
// the maps.
func (s *Stats) tally(v *envelope.Violation) {
	for i := range s.found {
		if f := &s.found[i]; f.rule == v.Rule && f.code == v.Code {
			f.n++
			return
		}
	}
	if len(s.found) < foundMax {
		s.found = append(s.found, foundCount{code: v.Code, rule: v.Rule, n: 1})
		return
	}
	s.count(v)
}

// addPartial is Add for a partial Stats, which only Merge reads: the
// violations are counted by code and rule in found.
func (s *Stats) addPartial(vs []envelope.Violation) { s.add(vs, true) }

// Add counts the violations of one verdict (sorted, so the first error is
// its primary code).
func (s *Stats) Add(vs []envelope.Violation) {
	if len(vs) > 0 {
		s.add(vs, false)
	}
}

// add is Add, counting by code and rule in found when partial (tally),
// else in the maps (count).
func (s *Stats) add(vs []envelope.Violation, partial bool) {
	denied := false
	for i := range vs {
		v := &vs[i]
		if partial {
			s.tally(v)
		} else {
			s.count(v)
		}
		if v.Severity == envelope.SeverityError {
			if !denied {
				s.worse(v.Code)
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

// count counts v by code and rule in the maps.
func (s *Stats) count(v *envelope.Violation) {
	if s.ByCode == nil {
		s.ByCode, s.ByRule = map[string]int{}, map[string]int{}
	}
	s.ByCode[string(v.Code)]++
	s.ByRule[v.Rule]++
}

// worse records c as a denied verdict's primary code.
func (s *Stats) worse(c envelope.Code) {
	if s.Worst == "" || envelope.Rank(c) < envelope.Rank(s.Worst) {
		s.Worst = c
	}
}

// Merge adds the counts of o.
func (s *Stats) Merge(o *Stats) {
	s.Files += o.Files
	s.SkippedFiles += o.SkippedFiles
	s.UnreadableFiles += o.UnreadableFiles
	s.Records += o.Records
	s.BlankLines += o.BlankLines
	s.Denied += o.Denied
	s.Warnings += o.Warnings
	if o.Worst != "" {
		s.worse(o.Worst)
	}
	if len(o.ByCode) > 0 && s.ByCode == nil {
		s.ByCode, s.ByRule = map[string]int{}, map[string]int{}
	}
	for k, n := range o.ByCode {
		s.ByCode[k] += n
	}
	for k, n := range o.ByRule {
		s.ByRule[k] += n
	}
	if len(o.found) > 0 && s.ByCode == nil {
		s.ByCode, s.ByRule = map[string]int{}, map[string]int{}
	}
	for _, f := range o.found {
		s.ByCode[string(f.code)] += f.n
		s.ByRule[f.rule] += f.n
	}
}

// reset clears s for reuse, keeping its maps.
func (s *Stats) reset() {
	byCode, byRule, found := s.ByCode, s.ByRule, s.found[:0]
	clear(byCode)
	clear(byRule)
	*s = Stats{ByCode: byCode, ByRule: byRule, found: found}
}

// Summary returns the summary envelope (README, Codes and precedence): it allows
// when no verdict denied and no input was unreadable; its code is the
// highest-precedence primary code among the denying verdicts (OK if none);
// its details count files, skipped_files, unreadable_files, records,
// blank_lines, denied, warnings, and violations by_code and by_rule, and,
// when a log had any, correlation_groups: the number of distinct
// correlation groups by group name (Groups).
func (s *Stats) Summary() envelope.Envelope {
	d := map[string]any{
		"files": s.Files, "skipped_files": s.SkippedFiles, "unreadable_files": s.UnreadableFiles, "records": s.Records,
		"blank_lines": s.BlankLines, "denied": s.Denied, "warnings": s.Warnings,
		"by_code": nonNil(s.ByCode), "by_rule": nonNil(s.ByRule),
	}
	if len(s.Groups) > 0 {
		d["correlation_groups"] = s.Groups
	}
	if s.Denied == 0 && s.UnreadableFiles == 0 {
		return envelope.Envelope{Allow: true, Code: envelope.OK, Reason: "no record denied", Details: d}
	}
	var parts []string
	if s.UnreadableFiles > 0 {
		parts = append(parts, plural(s.UnreadableFiles, "input")+" unreadable")
	}
	if s.Denied > 0 {
		parts = append(parts, plural(s.Denied, "record")+" denied")
	}
	return envelope.Envelope{Allow: false, Code: s.Worst, Reason: strings.Join(parts, ", "), Details: d}
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
