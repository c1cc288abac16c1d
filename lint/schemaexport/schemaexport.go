// Package schemaexport serves the JSON Schema of every kind (`agentlint
// schema export`): files generated from the CUE model of cue/*.cue by
// lint/schema (`go generate ./lint/schemaexport`), the same model the fast
// path is generated from, and embedded here so that the agentlint binary
// does not link the CUE parser. TestSchemasFresh fails when they are stale.
//
// Every kind has two schemas (JSON Schema draft 2020-12): schemas/F.R.schema.json
// (undeclared members allowed, as agentlint without --strict) and
// schemas/F.R.strict.schema.json (closed objects, as --strict), where F/R is
// the kind's name. Their top description and title come from Header, which
// reads the kind table (kind.All) and the rule registry (rules).
package schemaexport

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/rules"
)

//go:generate go run -tags devtools ../internal/devcmd/schemagen -jsonschema schemas

//go:embed schemas/*.json
var files embed.FS

// BaseURL is the prefix of every schema's $id: the schemas directory of the
// repository's main branch, so that an editor can fetch a schema by its $id.
const BaseURL = "https://raw.githubusercontent.com/agentlint/agentlint/main/lint/schemaexport/schemas/"

// FileName is the file of kind's schema: "operator/assignment" →
// "operator.assignment.schema.json" (strict: "operator.assignment.strict.schema.json").
func FileName(kind string, strict bool) string {
	base := strings.ReplaceAll(kind, "/", ".")
	if strict {
		return base + ".strict.schema.json"
	}
	return base + ".schema.json"
}

// Kinds returns every kind with a JSON Schema: every kind of kind.All, in
// its order (cue/README.md).
func Kinds() []string {
	out := make([]string, 0, len(kind.All))
	for _, k := range kind.All {
		out = append(out, k.Name)
	}
	return out
}

// JSONSchema returns the JSON Schema of kind (strict: the --strict one),
// indented, ending with a newline. The error names the kind when it has
// no schema.
func JSONSchema(kindName string, strict bool) ([]byte, error) {
	if kind.Lookup(kindName) == nil {
		return nil, fmt.Errorf("no kind %q (agentlint kinds lists them)", kindName)
	}
	b, err := files.ReadFile("schemas/" + FileName(kindName, strict))
	if err != nil {
		return nil, fmt.Errorf("no JSON Schema for kind %s (regenerate with go generate ./lint/schemaexport): %w", kindName, err)
	}
	return b, nil
}

// CUEFiles returns the names of the embedded CUE files that define kind,
// in the order to read them: common.cue, then the family's file (kind ""
// : every file), sorted.
func CUEFiles(kindName string) ([]string, error) {
	all, err := cuedefsNames()
	if err != nil {
		return nil, err
	}
	if kindName == "" {
		return all, nil
	}
	info := kind.Lookup(kindName)
	if info == nil {
		return nil, fmt.Errorf("no kind %q (agentlint kinds lists them)", kindName)
	}
	family := strings.SplitN(kindName, "/", 2)[0]
	var out []string
	for _, n := range all {
		if n == "common.cue" || n == family+".cue" {
			out = append(out, n)
		}
	}
	return out, nil
}

func cuedefsNames() ([]string, error) {
	es, err := cuedefs.Files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".cue") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// CUE returns the content of one embedded CUE file.
func CUE(name string) ([]byte, error) { return cuedefs.Files.ReadFile(name) }

// Header is what an exported schema says about its kind: `$id`, `title`
// and the top `description`.
type Header struct {
	ID, Title, Description string
}

// HeaderFor returns the header of kind's schema. The description says
// where the kind comes from (seed, record unit), the x_ extension policy of
// the mode, and lists every rule of the registry that applies to the kind
// and that the JSON Schema does not (wholly) check (rules.Rule.NotInJSONSchema),
// with the reason: a record this schema accepts may still be denied by
// agentlint under those rules.
func HeaderFor(kindName string, strict bool) (Header, error) {
	info := kind.Lookup(kindName)
	if info == nil {
		return Header{}, fmt.Errorf("no kind %q", kindName)
	}
	unit := map[kind.Format]string{
		kind.FormatJSON:  "a JSON document",
		kind.FormatJSONL: "one record (line) of a JSON Lines file",
		kind.FormatTOML:  "a TOML file, as agentlint converts it to JSON (the schema applies to that JSON, not to the TOML text)",
		kind.FormatText:  `a text file {type}:{reference_id}, as agentlint converts it to JSON {"type":…,"reference_id":…}`,
	}[info.Format]
	h := Header{ID: BaseURL + FileName(kindName, strict), Title: "agentlint " + kindName}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (seed %s): %s. Generated from agentlint's CUE definitions (cue/*.cue), the model its validators are generated from; "+
		"each field's description names the rule (agentlint explain ID) its violations are reported under.", kindName, info.Seed, unit)
	if strict {
		b.WriteString(" Strict (agentlint --strict): a member the definition does not declare is rule AL004 unless the object allows it (x_ members, open objects).")
	} else {
		b.WriteString(" Not strict: undeclared members are allowed (additionalProperties: true); --strict's closed objects are in the .strict.schema.json export.")
	}
	var gaps []string
	for _, r := range rules.All() {
		if !r.AppliesTo(kindName) || r.Kinds == nil {
			continue
		}
		if why := r.NotInJSONSchema(); why != "" {
			gaps = append(gaps, fmt.Sprintf("%s (%s): %s [%s]", r.ID, r.Code, r.Summary, why))
		}
	}
	if len(gaps) > 0 {
		b.WriteString(" Checked by agentlint but not (or only in part) by this schema: ")
		b.WriteString(strings.Join(gaps, "; "))
		b.WriteString(".")
	}
	h.Description = b.String()
	return h, nil
}

// LeapSecondNote is added to the description of every schema with a
// date-time: the one place where the JSON Schema denies what agentlint allows.
const LeapSecondNote = `Stricter than agentlint: format date-time (RFC 3339 section 5.7) takes second 60 only at 23:59:60 UTC, ` +
	`while agentlint accepts any :60 (cue/README.md, All families), except in collector events (rule CL013).`

// RuleText is how a field's description names a rule: "OP005
// (SCHEMA_INVALID): <summary>", or without long "OP005 (SCHEMA_INVALID)".
func RuleText(id string, long bool) string {
	r := rules.Lookup(id)
	if r == nil {
		return id
	}
	if !long {
		return fmt.Sprintf("%s (%s)", r.ID, r.Code)
	}
	return fmt.Sprintf("%s (%s): %s", r.ID, r.Code, r.Summary)
}
