package lint

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// ValidatePayload validates one payload data of kind k, named file in the
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
//     (rule AL005) whatever the kind; k may then be nil.
//
// details holds file, kind (when known) and, when the verdict denies, the
// primary violation's pointer, rule, line and column, and violations. eng
// nil is the fast path. A zero opts.Now is the data's own clock (a lone
// idle STATE is then never stale, IL013); a runtime gate passes the current
// time, as `agentlint validate` does. It panics when k is nil and data is not empty.
func ValidatePayload(k *kind.Kind, file string, data []byte, opts record.Options, eng record.SchemaEngine) envelope.Envelope {
	return validatePayload(k, file, data, record.NewValidator(opts, eng))
}

// ValidatePayloadWith is ValidatePayload on the caller's Validator v (its
// options and engine), which it reuses: a server keeps a pool of them
// instead of making one per payload (record.Validator.SetNow sets each
// request's clock). v is not safe for concurrent use. It panics when k is
// nil and data is not empty.
func ValidatePayloadWith(v *record.Validator, k *kind.Kind, file string, data []byte) envelope.Envelope {
	return validatePayload(k, file, data, v)
}

func validatePayload(k *kind.Kind, file string, data []byte, v *record.Validator) envelope.Envelope {
	if k == nil {
		if len(bytes.TrimSpace(data)) != 0 {
			panic("lint: ValidatePayload: no kind for a non-empty payload")
		}
		k = &kind.Kind{}
	}
	vs := payloadViolations(k, file, data, v)
	details := map[string]any{"file": file}
	if k.Name != "" {
		details["kind"] = k.Name
	}
	return envelope.Verdict(vs, k.OKReason, details)
}

// PayloadViolations returns every violation of one payload data of kind k
// (not nil), sorted per record, as ValidatePayload judges it: a JSON Lines
// kind whose payload, after a byte-order mark, is not one JSON value (a
// record may also be pretty-printed) is checked record by record with the
// stream rules, each violation with its line; anything else, an empty
// payload included, as one document. The slice is the caller's.
func PayloadViolations(k *kind.Kind, file string, data []byte, opts record.Options, eng record.SchemaEngine) []envelope.Violation {
	return payloadViolations(k, file, data, record.NewValidator(opts, eng))
}

func payloadViolations(k *kind.Kind, file string, data []byte, v *record.Validator) []envelope.Violation {
	var vs []envelope.Violation
	if body := bytes.TrimSpace(bytes.TrimPrefix(data, bom)); k.Format == kind.FormatJSONL && len(body) > 0 && !jsontext.Value(body).IsValid() {
		l := &Linter{V: v, Emit: func(e envelope.Envelope) error {
			rvs, _ := e.Details["violations"].([]envelope.Violation)
			vs = append(vs, rvs...)
			return nil
		}}
		_ = l.File(k, file, bytes.NewReader(data)) // Emit never fails
		return vs
	}
	vs = v.DocumentViolations(k.Name, file, data)
	return append([]envelope.Violation(nil), vs...)
}
