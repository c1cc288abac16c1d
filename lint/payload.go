package lint

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
)

// ValidatePayload validates one payload data of kind, named file in the
// envelope's details, and returns its one envelope, as `agentlint validate`
// prints it (seed 001 "Contracts", "Validator Output Contract"; README,
// "Orchestrators: validate without a process per packet"):
//
//   - a document kind: data is one document (JSON, TOML template or
//     assignment text);
//   - a JSON Lines kind: data is one record, or, when it is not one JSON
//     value, JSON Lines whose records are all checked (with the
//     cross-record rules of `agentlint lint`) and whose violations are
//     joined in the one envelope, each with its line;
//   - empty data (only white space) is SCHEMA_INVALID "empty payload"
//     (rule AL005) whatever the kind; kind may then be nil.
//
// details holds file, kind (when known) and, when the verdict denies, the
// primary violation's pointer, rule, line and column, and violations. eng
// nil is the fast path. A zero opts.Now is the data's own clock (a lone
// idle STATE is then never stale, IL013); a runtime gate passes the current
// time, as `agentlint validate` does. It panics when kind is nil and data is not empty.
func ValidatePayload(kind *KindInfo, file string, data []byte, opts Options, eng SchemaEngine) envelope.Envelope {
	if kind == nil {
		if len(bytes.TrimSpace(data)) != 0 {
			panic("lint: ValidatePayload: no kind for a non-empty payload")
		}
		kind = &KindInfo{}
	}
	var vs []envelope.Violation
	if trimmed := bytes.TrimSpace(data); kind.Format == FormatJSONL && len(trimmed) > 0 && !jsontext.Value(trimmed).IsValid() {
		l := &Linter{V: NewValidator(opts, eng), Emit: func(e envelope.Envelope) error {
			rvs, _ := e.Details["violations"].([]envelope.Violation)
			vs = append(vs, rvs...)
			return nil
		}}
		_ = l.File(kind, file, bytes.NewReader(data)) // Emit never fails
	} else {
		v := NewValidator(opts, eng)
		vs, _ = v.Document(kind.Name, file, data)
		vs = append([]envelope.Violation(nil), vs...)
	}
	details := map[string]any{"file": file}
	if kind.Name != "" {
		details["kind"] = kind.Name
	}
	return envelope.Verdict(vs, kind.OKReason, details)
}
