// Package envelope defines the validator envelope of seed 001 ("Validator Output
// Contract") as refined by README, Codes and precedence: the fourteen codes, their
// precedence, violations and the {allow, code, reason, details} object.
//
// The package knows nothing of files, rules or output formats; it only orders
// violations and picks the primary code.
package envelope

import (
	"sort"
)

// Code is one of the fourteen primary codes of seed 001's ecosystem
// (README, Codes and precedence), or OK.
type Code string

// The codes, in README, Codes and precedence precedence order (OK first, then the
// order in which a denied verdict picks its primary code).
const (
	OK                    Code = "OK"
	UnknownSchemaVersion  Code = "UNKNOWN_SCHEMA_VERSION"
	MissingRequiredInput  Code = "MISSING_REQUIRED_INPUT"
	SchemaInvalid         Code = "SCHEMA_INVALID"
	UntrustedContextBlock Code = "UNTRUSTED_CONTEXT_BLOCK"
	ScopeViolation        Code = "SCOPE_VIOLATION"
	LockConflict          Code = "LOCK_CONFLICT"
	AcceptanceFailed      Code = "ACCEPTANCE_FAILED"
	DependencyNotMet      Code = "DEPENDENCY_NOT_MET"
	InvalidTransition     Code = "INVALID_TRANSITION"
	TaskTimeout           Code = "TASK_TIMEOUT"
	ConcurrencyConflict   Code = "CONCURRENCY_CONFLICT"
	LedgerInconsistent    Code = "LEDGER_INCONSISTENT"
	NonCompliant          Code = "NON_COMPLIANT"
	MissingValidator      Code = "MISSING_VALIDATOR"
)

// Codes lists the fourteen primary codes in precedence order. A parse error
// is SCHEMA_INVALID but outranks everything (see Violation.Parse).
// MISSING_VALIDATOR is a usage error and ranks last.
var Codes = []Code{
	UnknownSchemaVersion, MissingRequiredInput, SchemaInvalid, UntrustedContextBlock,
	ScopeViolation, LockConflict, AcceptanceFailed, DependencyNotMet, InvalidTransition,
	TaskTimeout, ConcurrencyConflict, LedgerInconsistent, NonCompliant, MissingValidator,
}

// Rank is the position of c in the precedence order: 1 for the highest
// (UNKNOWN_SCHEMA_VERSION), 14 for MISSING_VALIDATOR, 0 for OK or an unknown code.
// (A search of Codes, not a map built at package initialisation: every
// process start paid for the map.)
func Rank(c Code) int {
	for i, x := range Codes {
		if x == c {
			return i + 1
		}
	}
	return 0
}

// Valid reports whether c is one of the fourteen codes (OK excluded).
func Valid(c Code) bool { return Rank(c) != 0 }

// Severity of a violation: SeverityError denies, SeverityWarning only reports.
type Severity string

// Severities (README, Codes and precedence: "error denies; warning only reports").
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Violation is one finding: which rule, which code, where (1-based line and
// column of the value in its file, 0 when unknown; an RFC 6901 JSON Pointer)
// and why. Parse is true for input that is not well-formed JSON/TOML/text;
// such violations outrank every other (README, Codes and precedence).
type Violation struct {
	Code     Code           `json:"code"`
	Rule     string         `json:"rule"`
	Pointer  string         `json:"pointer"`
	Line     int            `json:"line,omitempty"`
	Column   int            `json:"column,omitempty"`
	Reason   string         `json:"reason"`
	Severity Severity       `json:"severity"`
	Parse    bool           `json:"-"`
	Extra    map[string]any `json:"details,omitempty"`
}

func (v *Violation) order() int {
	if v.Parse {
		return 0
	}
	return Rank(v.Code)
}

// Sort orders violations as README, Codes and precedence requires: errors before
// warnings, then by code precedence (parse errors first), then by position
// (line, column), pointer, rule and reason, so that output is deterministic.
func Sort(vs []Violation) {
	if len(vs) < 2 {
		return // the common case on the hot path; SliceStable would allocate
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := &vs[i], &vs[j]
		if (a.Severity == SeverityError) != (b.Severity == SeverityError) {
			return a.Severity == SeverityError
		}
		if a.order() != b.order() {
			return a.order() < b.order()
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Reason < b.Reason
	})
}

// Envelope is the validator output of seed 001: allow, code, reason and
// details. Details is an ordered object; Go's encoding/json sorts map keys, so
// the JSON form is deterministic.
type Envelope struct {
	Allow   bool           `json:"allow"`
	Code    Code           `json:"code"`
	Reason  string         `json:"reason"`
	Details map[string]any `json:"details,omitempty"`
}

// Verdict builds the envelope for one record or document from all of its
// violations. vs is sorted in place. The primary code is that of the first
// error in precedence order; warnings never deny. okReason is the reason of an
// allowing verdict. details, when non-nil, is extended with "violations".
func Verdict(vs []Violation, okReason string, details map[string]any) Envelope {
	Sort(vs)
	if details == nil {
		details = map[string]any{}
	}
	if len(vs) > 0 {
		details["violations"] = vs
	}
	if len(vs) == 0 || vs[0].Severity != SeverityError {
		if len(details) == 0 {
			details = nil
		}
		return Envelope{Allow: true, Code: OK, Reason: okReason, Details: details}
	}
	p := vs[0]
	if p.Pointer != "" || details["pointer"] == nil {
		details["pointer"] = p.Pointer
	}
	if p.Line > 0 {
		details["line"] = p.Line
		details["column"] = p.Column
	}
	details["rule"] = p.Rule
	return Envelope{Allow: false, Code: p.Code, Reason: p.Reason, Details: details}
}

// HasErrors reports whether any violation in vs has severity error.
func HasErrors(vs []Violation) bool {
	for i := range vs {
		if vs[i].Severity == SeverityError {
			return true
		}
	}
	return false
}
