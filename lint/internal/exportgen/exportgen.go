//go:build devtools

// Package exportgen renders the JSON Schema files that lint/schemaexport
// embeds, from the CUE model (lint/schema) and the headers of
// schemaexport.HeaderFor. It is used by lint/internal/devcmd/schemagen
// (go generate) and by the freshness test of lint/schemaexport; the
// agentlint binary does not link it (it would link the CUE parser).
package exportgen

import (
	"fmt"

	"github.com/agentlint/agentlint/lint/schema"
	"github.com/agentlint/agentlint/lint/schemaexport"
)

// Files returns every schema file, by file name (schemaexport.FileName):
// two per kind of schemaexport.Kinds, not strict and strict. It fails when
// a kind has no CUE definition.
func Files(m *schema.Model) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, kind := range schemaexport.Kinds() {
		k := m.Kind(kind)
		if k == nil {
			return nil, fmt.Errorf("kind %s has no CUE definition", kind)
		}
		for _, strict := range []bool{false, true} {
			h, err := schemaexport.HeaderFor(kind, strict)
			if err != nil {
				return nil, err
			}
			if usesFormat(m, k.Type, "date-time") {
				h.Description += " " + schemaexport.LeapSecondNote
			}
			b, err := m.JSONSchema(k, schema.JSONSchemaOptions{ID: h.ID, Title: h.Title, Description: h.Description,
				Strict: strict, RuleText: schemaexport.RuleText})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", kind, err)
			}
			out[schemaexport.FileName(kind, strict)] = b
		}
	}
	return out, nil
}

// usesFormat reports whether t or a type inside it has a pattern of format f.
func usesFormat(m *schema.Model, t *schema.Type, f string) bool {
	if t == nil {
		return false
	}
	for _, p := range t.Patterns {
		if m.PatternFormat[p] == f {
			return true
		}
	}
	if usesFormat(m, t.Elem, f) {
		return true
	}
	if t.Obj == nil {
		return false
	}
	for _, fd := range t.Obj.Fields {
		if usesFormat(m, fd.Type, f) {
			return true
		}
	}
	for _, cd := range t.Obj.Conds {
		for _, fd := range cd.Fields {
			if usesFormat(m, fd.Type, f) {
				return true
			}
		}
		for _, ck := range cd.Checks {
			if usesFormat(m, ck.Type, f) {
				return true
			}
		}
	}
	return false
}
