package rules

import (
	"fmt"
	"strings"
)

// Reference returns the rule reference, rules/README.md: a Markdown page
// with a table of every rule of the registry (ID, name, code, default
// severity, kinds) and, per rule, its summary, source, scope and examples,
// as `agentlint explain ID` prints them (Explain). It is generated from the
// registry, the one place a rule is defined, and a test holds the committed
// page equal to it (go test ./rules -run TestReference -update rewrites it).
func Reference() string {
	var b strings.Builder
	b.WriteString("# Rule reference\n\n")
	b.WriteString("Generated from the rule registry (`rules/registry.go` and the `rule_*.go` files) by `rules.Reference`;\n")
	b.WriteString("`go test ./rules -run TestReference -update` rewrites it, and the test fails when it is stale.\n")
	b.WriteString("`agentlint rules` lists the same rules and `agentlint explain ID` prints one of them.\n")
	b.WriteString("Every example below is run by the tests: the failing one must violate its rule, the passing one must not.\n\n")
	b.WriteString(addingARule)
	all := All()
	fmt.Fprintf(&b, "%d rules.\n\n| rule | name | code | severity | kinds |\n|---|---|---|---|---|\n", len(all))
	for _, r := range all {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Name, r.Code, r.Severity, cell(strings.Join(r.Kinds, ", ")))
	}
	for _, r := range all {
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s```\n", r.ID, Explain(r))
	}
	return b.String()
}

// cell escapes the characters that end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// addingARule is the guide at the top of the rule reference: the four sorts
// of rules and the places to touch for each.
const addingARule = `## Adding a rule

Every rule is one entry of the registry: a ` + "`&Rule{...}`" + ` in the ` + "`rule_<family>.go`" + ` file of its group
(the ID prefix: AL, CL, IL, LG, OP, VM, RP; ` + "`groups`" + ` in ` + "`registry.go`" + ` lists which function defines which
file's rules). The entry holds the ID, name, code, severity, kinds, a one-line summary, the source (the seed
document and section, or this project's docs) and a failing and a passing example; the engine, ` + "`agentlint rules`" + `,
` + "`agentlint explain`" + `, the exported JSON Schemas and this page all read it. Pick the sort by what the rule needs to see:

| sort | sees | write | attach |
|---|---|---|---|
| schema | one field's value | a constraint in ` + "`cue/<family>.cue`" + ` with ` + "`@rule(ID)`" + ` | ` + "`make generate`" + ` (fast path and exported schemas) |
| document | one record or document | ` + "`Check: func(d *Doc, r *Reporter)`" + `; ` + "`Fields`" + ` names the values it reads | the ` + "`Rule`" + ` entry |
| stream | the records of one file, in order | a ` + "`FileCheck[S]`" + `: a ` + "`FieldList`" + ` of the values it reads, ` + "`Observe`" + ` and ` + "`Finish`" + ` over a state S | ` + "`registerStream(ID, check)`" + `, ` + "`Scope: ScopeFile`" + ` |
| tree | every file of a run | a ` + "`TreeRule`" + ` (` + "`NewTree`" + `, then ` + "`AddFile`" + ` per finished file and ` + "`Finish`" + `) | ` + "`registerStream(ID, check)`" + `, ` + "`Scope`" + ` says which files it relates (e.g. ` + "`ScopeWork`" + `) |

A stream rule, whole (LG101 in ` + "`rule_ledger_stream.go`" + ` and OP082 in ` + "`rule_worklog_stream.go`" + ` are written so):

` + "```go" + `
var (
	myFields = FieldList{}
	myID     = myFields.String("/event_id")
	myCheck  = &FileCheck[map[string]int]{
		Reads: myFields.Fields(),
		New:   func(string, *Options) *map[string]int { m := map[string]int{}; return &m },
		Observe: func(seen *map[string]int, rec *StreamRecord, r *StreamReporter) {
			id := rec.Get(myID).Text() // valid during Observe only
			if first, ok := (*seen)[id]; ok && rec.Valid {
				r.Report(StreamFinding{Line: rec.Line, Pointer: "/event_id", Reason: "repeats line " + strconv.Itoa(first)})
				return
			}
			(*seen)[strings.Clone(id)] = rec.Line
		},
	}
)
` + "```" + `

Then, in order:

1. Examples: ` + "`examples`" + ` returns the failing and the passing text (JSON Lines for stream rules);
   ` + "`ExampleKind`" + ` names their kind. ` + "`go test ./rules ./lint`" + ` runs them (TestRuleExamples, TestTreeRuleExamples).
2. This page: ` + "`go test ./rules -run TestReference -update`" + `; the exported schemas name the rules of their kind:
   ` + "`go generate -tags devtools ./lint/schemaexport`" + ` (a test fails while either is stale).
3. A rule whose verdicts the golden trees show: ` + "`go test ./lint -run TestFamilies -update`" + `, then read the diff.
4. ` + "`make test`" + ` and ` + "`make lint`" + `.

Memory: a stream rule keeps compact state (hashes, offsets, counters), never whole records; a rule that must
remember every id keeps a hash and the record's offset and confirms a possible repeat by re-reading it
(` + "`StreamRecord.Source`" + `). Performance hooks a rule may add later, all optional: ` + "`Flusher`" + ` (decide a batch of
records at once), ` + "`Expecter`" + ` (reserve room for a whole file), ` + "`KindRule`" + ` (other values per kind),
` + "`RunBinder`" + ` (state shared across the files of a run), and a field of a ` + "`DigestField`" + ` type (the workers pass
a nested value as a compact digest the rule reads as a table instead of scanning it in the sequential stage, and
a document rule that reads the same value shares it: ` + "`digest.go`" + `, IL101's stack frames). A document rule may declare
` + "`Fields`" + ` (only those values of a record are decoded) and ` + "`InPlace`" + ` (it reads them in the bytes of the record
and decodes only when it may have a finding, ` + "`rules/inplace.go`" + `): a check written once over accessors
that read in place or decoded runs first in place with ` + "`inPlaceFirst`" + `, as the operator rules do (` + "`op_inplace.go`" + `).

`
