package rules

import (
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
)

// opSchemaRules defines the schema rules of the operator family (seed 001):
// enforced by the validators generated from cue/operator.cue, whose fields
// name them with @rule(ID) (group OP, loaded on first use: see groups).
func opSchemaRules() {
	asg := func(old, repl string) string { return strings.Replace(minimalAssignment, old, repl, 1) }
	res := func(old, repl string) string { return strings.Replace(minimalResult, old, repl, 1) }
	op := []string{"operator/*"}
	register(
		&Rule{
			ID: "OP001", Name: "schema-version", Code: envelope.UnknownSchemaVersion, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "schema_version must be a string whose major version is 1 (fail closed on unknown majors)",
			Source:      "seed 001 Contract Version; cue/README.md, operator",
			ExampleKind: "operator/assignment", examples: func() (string, string) { return asg(`"1.0.0"`, `"2.0.0"`), minimalAssignment },
		},
		&Rule{
			ID: "OP002", Name: "required-not-empty", Code: envelope.MissingRequiredInput, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "global_objective, task.title, task.lock_scope, task.acceptance_criteria and worklog_path must not be empty",
			Source:      "seed 001 Packet: Assignment (1..N bounds); README, Codes and precedence, MISSING_REQUIRED_INPUT",
			ExampleKind: "operator/assignment", examples: func() (string, string) { return asg(`"Implement endpoint tests"`, `""`), minimalAssignment },
		},
		&Rule{
			ID: "OP003", Name: "run-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "run_id must match ^[0-9a-fA-F-]{36}$",
			Source:      "seed 001 Identifier Rules",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`, `"run-12"`), minimalAssignment
			},
		},
		&Rule{
			ID: "OP005", Name: "task-id", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "task ids (task_id, dependencies) must match ^(T-[0-9]+|[0-9a-fA-F-]{36})$",
			Source:      "seed 001 Identifier Rules",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"dependencies": []`, `"dependencies": ["dependency-one"]`), minimalAssignment
			},
		},
		&Rule{
			ID: "OP006", Name: "packet-type", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     `packet_type must be "assignment"`,
			Source:      "seed 001 Packet: Assignment",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"packet_type": "assignment"`, `"packet_type": "task"`), minimalAssignment
			},
		},
		&Rule{
			ID: "OP007", Name: "required-output-schema", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     `required_output_schema must be "subagent_result_v1"`,
			Source:      "seed 001 Packet: Assignment",
			ExampleKind: "operator/assignment", examples: func() (string, string) { return asg(`"subagent_result_v1"`, `"result_v2"`), minimalAssignment },
		},
		&Rule{
			ID: "OP008", Name: "text-length", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "bounded strings and lists: global_objective 1..5000, title 1..500, worklog_path 1..1000 code points; acceptance criteria non-empty",
			Source:      "seed 001 Packet: Assignment; cue/README.md (lengths count code points)",
			ExampleKind: "operator/assignment", examples: func() (string, string) { return asg(`"All endpoint tests pass"`, `""`), minimalAssignment },
		},
		&Rule{
			ID: "OP013", Name: "timeout-seconds", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "timeout_seconds must be an integer >= 30",
			Source:      "seed 001 Packet: Assignment",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"timeout_seconds": 1200`, `"timeout_seconds": 1200.0`), minimalAssignment
			},
		},
		&Rule{
			ID: "OP014", Name: "heartbeat-interval", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "heartbeat_interval_seconds must be an integer >= 5 and < timeout_seconds",
			Source:      "seed 001 Packet: Assignment; cue/README.md (required although the reference validator does not)",
			JSONSchema:  "partly expressible in JSON Schema: heartbeat_interval_seconds < timeout_seconds compares two fields, which JSON Schema cannot",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"heartbeat_interval_seconds": 120`, `"heartbeat_interval_seconds": 1200`), minimalAssignment
			},
		},
		&Rule{
			ID: "OP020", Name: "done-acceptance", Code: envelope.AcceptanceFailed, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "status done needs a non-empty acceptance_check whose criteria all pass with non-empty evidence",
			Source:      "seed 001 Envelope: Subagent Result, Completion invariants",
			ExampleKind: "operator/result", examples: func() (string, string) { return res(`"status": "pass"`, `"status": "fail"`), minimalResult },
		},
		&Rule{
			ID: "OP021", Name: "notes-for-orchestrator", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "notes_for_orchestrator holds at most 5 non-empty strings",
			Source:      "seed 001 Envelope: Subagent Result",
			ExampleKind: "operator/result", examples: func() (string, string) {
				return res(`["No conflicts, ready for merge"]`, `["No conflicts, ready for merge", ""]`), minimalResult
			},
		},
		&Rule{
			ID: "OP023", Name: "error-code", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "blockers[].code, open_blockers[].code and worklog code must be one of the fourteen codes",
			Source:      "seed 001 Envelope: Orchestrator Output (blockers[].code from error-codes.md); README, Codes and precedence",
			ExampleKind: "operator/locks",
		},
		&Rule{
			ID: "OP024", Name: "utc-timestamp", Code: envelope.SchemaInvalid, Severity: envelope.SeverityError, Kinds: op,
			Summary:     "generated_at, last_heartbeat_at, now and worklog timestamp are RFC 3339 with offset Z or +00:00",
			Source:      "seed 001 Common Fields (ISO-8601 UTC); cue/README.md",
			ExampleKind: "operator/assignment", examples: func() (string, string) {
				return asg(`"packet_type"`, `"generated_at": "2026-01-06 12:00:00", "packet_type"`), asg(`"packet_type"`, `"generated_at": "2026-01-06T12:00:00Z", "packet_type"`)
			},
		},
	)
}
