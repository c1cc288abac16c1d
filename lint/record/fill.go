package record

import "github.com/agentlint/agentlint/lint/envelope"

// Fill sets the code and severity of each violation from the registry and
// the configuration (Options.Severity: the config file's [rules.ID]
// severity) and drops the violations of rules switched off, as the
// Validator does with its own findings. It is for callers that find
// violations themselves (lint/replay). vs is reused; it panics on an
// unregistered rule (a programming error).
func (v *Validator) Fill(vs []envelope.Violation) []envelope.Violation {
	v.fill(vs)
	return dropOff(vs)
}

// FillChecked is Fill for violations whose reasons and string details
// their rule checked for secrets already and found none
// (rules.StreamFinding.Checked): the same codes, severities and dropped
// rules, without scanning the texts again (redacting them would leave them
// unchanged).
func (v *Validator) FillChecked(vs []envelope.Violation) []envelope.Violation {
	v.fillAs(vs, false)
	return dropOff(vs)
}
