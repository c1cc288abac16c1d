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
