package rules

import "github.com/agentlint/agentlint/lint/envelope"

// minimalAssignment is seed 001's "Minimal Assignment Example", the base of
// the operator examples.
const minimalAssignment = `{
  "schema_version": "1.0.0",
  "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
  "packet_type": "assignment",
  "global_objective": "Implement endpoint tests",
  "task": {
    "task_id": "T-12",
    "title": "Add endpoint tests",
    "type": "parallelizable",
    "dependencies": [],
    "lock_scope": ["tests/test_api.py"],
    "forbidden_scope": ["src/"],
    "acceptance_criteria": ["All endpoint tests pass"],
    "worklog_path": "worklogs/T-12.jsonl",
    "timeout_seconds": 1200,
    "heartbeat_interval_seconds": 120,
    "priority": "high"
  },
  "active_locks": [
    {"task_id": "T-9", "resource": "src/api.py", "active": true}
  ],
  "context_package": [
    {"kind": "file", "value": "tests/test_api.py"},
    {"kind": "constraint", "value": "Do not edit src/api.py"}
  ],
  "required_output_schema": "subagent_result_v1"
}`

// minimalResult is seed 001's "Minimal Result Example".
const minimalResult = `{
  "schema_version": "1.0.0",
  "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
  "task_id": "T-12",
  "status": "done",
  "changes": [
    {"resource": "tests/test_api.py", "action": "edit", "evidence": "Added endpoint assertions"}
  ],
  "acceptance_check": [
    {"criterion": "All endpoint tests pass", "status": "pass", "evidence": "pytest tests/test_api.py"}
  ],
  "worklog_path": "worklogs/T-12.jsonl",
  "notes_for_orchestrator": ["No conflicts, ready for merge"]
}`

// genericRules defines the rules of this file (group AL, loaded on first use: see groups).
func genericRules() {
	register(
		&Rule{
			ID: "AL001", Name: "json-syntax", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{"*"},
			Summary:     "input is not well-formed JSON: syntax error, duplicate object key, invalid UTF-8, lone surrogate, NaN/Infinity, trailing comma or garbage, nesting too deep",
			Source:      "cue/README.md, All families",
			JSONSchema:  "partly expressible in JSON Schema: a JSON Schema validator judges parsed JSON, so duplicate object keys, lone surrogates and the nesting limit are agentlint's reader's",
			ExampleKind: "operator/locks",
			Example:     `{"locks": [{"task_id": "T-1", "resource": "src", "active": true, "active": false}]}`,
			Fixed:       `{"locks": [{"task_id": "T-1", "resource": "src", "active": true}]}`,
		},
		&Rule{
			ID: "AL002", Name: "required-field", Code: envelope.MissingRequiredInput, Severity: envelope.SeverityError,
			Kinds:       []string{"*"},
			Summary:     "a required field is absent or null",
			Source:      "README, Codes and precedence, MISSING_REQUIRED_INPUT",
			ExampleKind: "operator/locks",
			Example:     `{"locks": [{"task_id": "T-1", "resource": "src"}]}`,
			Fixed:       `{"locks": [{"task_id": "T-1", "resource": "src", "active": true}]}`,
		},
		&Rule{
			ID: "AL003", Name: "field-value", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{"*"},
			Summary:     "a field has the wrong type, a value outside its enum, pattern or bounds (1200.0 is not an integer)",
			Source:      "README, Codes and precedence, SCHEMA_INVALID",
			JSONSchema:  "partly expressible in JSON Schema: \"integer\" accepts 1200.0 and 1e3, which agentlint rejects (it checks the number's text)",
			ExampleKind: "operator/locks",
			Example:     `{"locks": [{"task_id": "T-1", "resource": "src", "active": "yes"}]}`,
			Fixed:       `{"locks": [{"task_id": "T-1", "resource": "src", "active": true}]}`,
		},
		&Rule{
			ID: "AL004", Name: "unknown-field", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{"*"},
			Summary:     "with --strict, a field the schema does not declare and that does not start with x_",
			Source:      "seed 001 Extension Policy; cue/README.md",
			ExampleKind: "operator/locks",
			Options:     []string{"--strict"},
			Example:     `{"locks": [{"task_id": "T-1", "resource": "src", "active": true, "note": "mine"}]}`,
			Fixed:       `{"locks": [{"task_id": "T-1", "resource": "src", "active": true, "x_note": "mine"}]}`,
		},
		&Rule{
			ID: "AL005", Name: "empty-payload", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:       []string{"*"},
			Summary:     "validate was given an empty payload (only white space, after a byte-order mark if any)",
			Source:      "README, Codes and precedence, as in the reference validators",
			JSONSchema:  "not expressible in JSON Schema: a property of the input, not of a value",
			ExampleKind: "operator/locks",
			Example:     ``,
			Fixed:       `{"locks": []}`,
		},
		&Rule{
			ID: "AL006", Name: "byte-order-mark", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
			Kinds:       []string{"*"},
			Summary:     "a UTF-8 byte-order mark at the start of the file is skipped",
			Source:      "cue/README.md, All families",
			JSONSchema:  "not expressible in JSON Schema: a property of the file's bytes, not of a value",
			ExampleKind: "operator/locks",
			Example:     "\ufeff{\"locks\": []}",
			Fixed:       `{"locks": []}`,
		},
		&Rule{
			ID: "AL007", Name: "crlf-line-ending", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
			Kinds:      []string{"*"},
			Summary:    "a JSON Lines record ends with CRLF instead of LF",
			Source:     "cue/README.md, All families; seed 003 Line Endings",
			JSONSchema: "not expressible in JSON Schema: a property of the file's bytes, not of a value",
		},
		&Rule{
			ID: "AL008", Name: "blank-line", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:      []string{"*"},
			Summary:    "with --strict, a JSON Lines line holding only white space (otherwise skipped and counted)",
			Source:     "cue/README.md, All families",
			JSONSchema: "not expressible in JSON Schema: a property of the file's lines, not of a value",
		},
		&Rule{
			ID: "AL009", Name: "line-too-long", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError,
			Kinds:      []string{"*"},
			Summary:    "a JSON Lines record longer than 64 MiB; the rest of the file is still checked",
			Source:     "lint/README.md, Linting trees and large logs (lines up to 64 MiB; a longer one is AL009)",
			JSONSchema: "not expressible in JSON Schema: a property of the file's lines, not of a value",
		},
		&Rule{
			ID: "AL011", Name: "other-format", Code: envelope.MissingRequiredInput, Severity: envelope.SeverityError,
			Kinds: []string{"*"},
			Summary: "a JSON Lines file whose kind came from a glob is plainly another format: its first record is a JSON object " +
				"with none of the kind's identifying keys; one finding for the file, whose records are not checked " +
				"(exclude it or give it a kind: exclude / [kinds] in .agentlint.toml, or --kind)",
			Source: "cue/README.md, Detection (globs, sniffing keys) (a decisions-*.jsonl that is no collector log)",
		},
		&Rule{
			ID: "AL012", Name: "cue-engine-size", Code: envelope.MissingRequiredInput, Severity: envelope.SeverityError,
			Kinds: []string{"*"},
			Summary: "with --engine cue, a payload holding an object or array of more than 10,000 members or elements, or more " +
				"than 100,000 in all, is not evaluated: the CUE evaluator's time grows with the square of an object's size " +
				"(--engine fast checks it)",
			Source:     "lint/README.md, Security (bounded work on hostile input)",
			JSONSchema: "not expressible in JSON Schema: a limit of one engine, not a property of the data",
		},
		&Rule{
			ID: "AL010", Name: "missing-validator", Code: envelope.MissingValidator, Severity: envelope.SeverityError,
			Kinds:   []string{"*"},
			Summary: "the kind has no schema validator in this build (an internal error: report it)",
			Source:  "README, Codes and precedence (MISSING_VALIDATOR)",
		},
	)
}
