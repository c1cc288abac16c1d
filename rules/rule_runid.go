package rules

import (
	"strings"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/timefmt"
)

// Identifier layout rule of the operator family (seed 001 "Common Fields":
// run_id is "UUID v4 format"; "Identifier Rules": ^[0-9a-fA-F-]{36}$;
// cue/README.md, operator: "a value that is not the canonical
// 8-4-4-4-12 layout is a warning").

func checkRunIDLayout(d *Doc, r *Reporter) {
	id, ok := d.DocStr("/run_id")
	if !ok || timefmt.IsCanonicalUUIDLayout(id) || !timefmt.IsRunID(id) {
		return // absent or not matching the regex: schema rule OP003
	}
	r.Reportf(Ptr("run_id"), map[string]any{"run_id": id},
		"run_id %q matches the seed's regex but is not a UUID in the canonical 8-4-4-4-12 layout", id)
}

// runIDRules defines the rules of this file (group OP, loaded on first use: see groups).
func runIDRules() {
	const canonical = `"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`
	register(&Rule{
		ID: "OP004", Name: "run-id-layout", Code: envelope.SchemaInvalid, Severity: envelope.SeverityWarning,
		Kinds: []string{
			"operator/assignment", "operator/orchestrator-output", "operator/result",
			"operator/worklog", "operator/handoff",
		},
		Summary:     "run_id matches ^[0-9a-fA-F-]{36}$ but is not a UUID in the canonical 8-4-4-4-12 layout",
		Source:      `seed 001 "Common Fields" (UUID v4), "Identifier Rules"; cue/README.md, operator`,
		ExampleKind: "operator/assignment",
		examples: func() (string, string) {
			return strings.Replace(minimalAssignment, canonical, `"3f56dc4d35cf-4f97-925c-0b04a6fe8bf4-"`, 1), minimalAssignment
		},
		Check:   checkRunIDLayout,
		Fields:  []string{"/run_id"},
		InPlace: true,
	})
}
