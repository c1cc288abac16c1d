// Package rules is the one registry of every rule agentlint knows: its ID,
// code, default severity, summary, source and a failing and a passing
// example. The engine, `agentlint rules` and `agentlint explain` all read it.
//
// Two sorts of rules live here. Schema rules (Check == nil) are enforced by
// the validators generated from cue/*.cue; the CUE fields name them with
// @rule(ID). Document rules (Check != nil) need more than one field or more
// than one document and are written in Go, one file per rule family
// (rule_*.go).
//
// # Document rules
//
// **Document rules** (more than one field or document: lock normalization and
// overlap, scope, reconciliation, watchdog, deltas, secrets, control-plane
// injection) are Go, one file per family (`rules/rule_*.go`), and run on every
// record that is well-formed JSON, whatever the schema found: details.violations
// lists every violation and the primary code follows the precedence (a secret in
// `notes_for_orchestrator` is UNTRUSTED_CONTEXT_BLOCK even when the schema also
// finds ACCEPTANCE_FAILED). A rule reads values with checked accessors and skips
// what is absent or of another type (the schema reports that), and leaves a value
// the schema rejects to the schema (CL010 and VM003 judge only well-formed event
// types); `TestEveryViolationAlways` breaks, for every rule's failing example,
// each member the rule does not read and checks that the rule is still reported;
// `TestNoCascadeFromIllTypedValues` breaks each member of every passing example
// and checks that no document rule reports anywhere else (an ill-typed `ledger` is
// one finding, not one per event). A rule that declares `Fields` gets only those
// members decoded: every rule of the JSON Lines kinds does, so no record is
// decoded into a whole map; for a record its kind's acceptor read, nothing is
// decoded at all (`Doc.Flat`: the members' JSON texts, read with `Doc.DocStr`;
// `TestShallowDecodeAgrees` runs every such rule on its examples decoded whole,
// decoded shallowly and in place, and fails on any difference, e.g. a rule that
// reads a member it did not declare). Each rule has an ID, code, severity,
// summary, source clause and a failing and a passing example; `TestRuleExamples`
// runs every example through the engine.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Rule is one registry entry.
type Rule struct {
	// ID is stable: AL (all families), OP (operator, seed 001), ...
	ID string
	// Name is a short kebab-case slug.
	Name string
	// Code is the primary code a violation of this rule carries
	// (README, Codes and precedence). The config may change the severity, never the code.
	Code envelope.Code
	// Severity is the default: error denies, warning only reports.
	Severity envelope.Severity
	// Kinds the rule applies to; "*" for every kind.
	Kinds []string
	// Summary is one line.
	Summary string
	// Source names the seed section or project doc (file and heading) the rule implements.
	Source string
	// Scope, for a rule across records (a stream or tree rule), says over
	// which records it decides and whether its verdict depends on which
	// files were linted or in which order (such a finding
	// is a warning or is resolved over the whole run); `agentlint explain`
	// prints it. Empty for a rule on one record or document.
	Scope string
	// Example is a payload of kind ExampleKind that violates the rule; Fixed
	// is the same payload repaired. Both are checked by the tests. A rule
	// whose examples are built (from a base payload, by a helper) sets
	// examples instead: Lookup and All fill Example and Fixed from it on
	// first use, so that loading a group of rules builds no example (a
	// one-record validate runs rules, it does not print them).
	ExampleKind string
	Example     string
	Fixed       string
	examples    func() (example, fixed string)
	exampleOnce sync.Once
	// Options are the CLI flags the examples need (e.g. "--strict").
	Options []string
	// ExampleFile is the path the examples are validated as, for rules that
	// compare a record with its location (default: example.json).
	ExampleFile string
	// ExampleTree, for a rule across files (a tree rule), is the folder of
	// the repository that holds its golden examples: fail/ and pass/ trees,
	// each with the want.txt of `agentlint lint` on it (tested by
	// lint/tree_examples_test.go).
	ExampleTree string
	// Check runs a document rule; nil for schema rules enforced by the
	// generated validators.
	Check func(d *Doc, r *Reporter)
	// Fields, when set, are the only values Check reads: JSON Pointers made
	// of member names ("/event_type", "/tool/tool_name"). When every enabled
	// document rule of a kind declares them, the engine decodes only those
	// values of a record into Doc.Value (an object holding just those
	// members, with the types a full decode gives; an intermediate object
	// only when the value exists) instead of the whole record: the hot path
	// of large JSON Lines files. Declare the parent ("/tool") to read a
	// member's presence or type. nil: Check reads the whole document.
	// lint.TestShallowDecodeAgrees checks every declaration.
	Fields []string
	// InPlace says that Check reads the Fields of a record (a JSON Lines
	// record, or a document its caller does not keep: a packet of
	// `validate --stream` or of the server) with Doc.DocStr, or in place
	// with the scanners of rules/inplace.go (inPlaceFirst), and calls
	// Doc.Root only for a record that may have a finding: the engine may
	// then give it the record's values in place (Doc.Flat), with nothing
	// decoded. A rule that calls Root on such a document still gets the
	// right values, at the cost of decoding them.
	InPlace bool
	// JSONSchema says which part of a schema rule the exported JSON Schema
	// (`agentlint schema export`, lint/schemaexport) cannot express, when it
	// expresses the rule only in part (a comparison of two fields, the text
	// of an integer, the bytes of a file); empty when the JSON Schema checks
	// the whole rule. Document and stream rules are never expressed: see
	// NotInJSONSchema.
	JSONSchema string
}

// NotInJSONSchema returns what of the rule the exported JSON Schema of its
// kinds does not check, or "" when it checks all of it: the rule's own
// JSONSchema text, else a fixed text for stream rules (across records or
// files) and document rules (Go code over a whole document). `agentlint
// explain` prints it and every exported schema lists it in its top
// description.
func (r *Rule) NotInJSONSchema() string {
	switch {
	case r.JSONSchema != "":
		return r.JSONSchema
	case snap().streams[r.ID] != nil:
		return "not expressible in JSON Schema: it compares records of a log or files of a tree"
	case r.Check != nil:
		return "not expressible in JSON Schema: a document rule (Go code that relates several values of the record)"
	}
	return ""
}

// Scopes shared by many rules (Rule.Scope).
const (
	// ScopeFile: the rule compares the records of one file only.
	ScopeFile = "each file on its own: the verdict depends on that file alone, not on which other files were linted or in which order."
	// ScopeWork: the rules across the files of one VerMAS .work/ directory.
	ScopeWork = "the files of one .work/ directory, decided after the last file, whatever their order. events.jsonl (the history), " +
		"work_orders.jsonl and messages.jsonl (its projections) and routes.jsonl are each one whole file, and a comparison whose side was not " +
		"linted is skipped; templates/ and processes/ hold many files: lint the whole .work/ so that a reference to one of them is judged " +
		"against all of them."
)

// The registry is built on first use, one group of rules at a time: built
// at package initialisation it cost every process start, a one-record
// `agentlint validate` and `agentlint version` included, about a third of a
// millisecond. A group holds the rules of one ID prefix: AL (any
// kind) and one per family of kinds (CL collector, IL idle, LG ledger, OP
// operator, VM vermas, RP the replayer), and a rule of a family's group
// applies to that family's kinds only (register checks both). So ForKind
// and StreamsForKind load AL and the kind's group, Lookup and Stream the ID's
// group, All every group.
//
// Readers never lock: a load builds a new snapshot of the registry under
// regMu and publishes it; a published snapshot is never modified.
type snapshot struct {
	rules   map[string]*Rule
	streams map[string]StreamRule
}

// ruleGroup is the definitions of the rules of one ID prefix.
type ruleGroup struct {
	prefix string
	defs   []func() // each calls register and registerStream
	loaded atomic.Bool
}

// groups lists the definitions of every rule_*.go file (a function that
// calls register and registerStream), by group. It is static data, so that
// nothing runs at package initialisation; TestGroupsComplete checks that
// every function of the package that registers rules is listed.
var groups = []*ruleGroup{
	{prefix: "AL", defs: []func(){genericRules, appendOnlyRules}},
	{prefix: "CL", defs: []func(){collectorRules, collectorStreamRules}},
	{prefix: "IL", defs: []func(){idleRules, idleStreamRules}},
	{prefix: "LG", defs: []func(){ledgerRules, ledgerStreamRules, ledgerTreeRules}},
	{prefix: "OP", defs: []func(){deltaRules, lockRules, opSchemaRules, reconcileRules, runIDRules, scopeRules,
		secretRules, watchdogRules, worklogOrderRules, worklogStreamRules}},
	{prefix: "VM", defs: []func(){vermasRules, vermasStreamRules, vermasTreeRules}},
	{prefix: "RP", defs: []func(){replayRules}},
}

var (
	regMu  sync.Mutex // serializes loads and Register
	cur    atomic.Pointer[snapshot]
	next   *snapshot  // under regMu: the snapshot being built
	adding *ruleGroup // under regMu: the group whose definitions run, nil for Register
)

// forKind caches ForKind: the rules of a kind are read for every record.
var forKind sync.Map // kind → []*Rule

// groupOf returns the group of rule id, or nil when no group has its prefix.
func groupOf(id string) *ruleGroup {
	for _, g := range groups {
		if strings.HasPrefix(id, g.prefix) {
			return g
		}
	}
	return nil
}

// familyGroup is the ID prefix of the rules of a family of kinds (a kind
// or kind pattern up to its "/": "collector" for collector/event), or ""
// for a family no group is bound to.
func familyGroup(kind string) string {
	family, _, _ := strings.Cut(kind, "/")
	switch family {
	case FamilyCollector:
		return "CL"
	case "idle":
		return "IL"
	case "ledger":
		return "LG"
	case "operator":
		return "OP"
	case FamilyVermas:
		return "VM"
	case ReplayKind:
		return "RP"
	}
	return ""
}

// snap returns the published registry.
func snap() *snapshot {
	if s := cur.Load(); s != nil {
		return s
	}
	return &snapshot{}
}

// begin starts a change of the registry (regMu held): next is a copy of the
// published snapshot.
func begin() {
	old := snap()
	next = &snapshot{rules: make(map[string]*Rule, len(old.rules)+64), streams: make(map[string]StreamRule, len(old.streams)+8)}
	for id, r := range old.rules {
		next.rules[id] = r
	}
	for id, s := range old.streams {
		next.streams[id] = s
	}
}

// publish ends a change (regMu held).
func publish() {
	cur.Store(next)
	next = nil
	forKind.Clear()
}

// load runs the definitions of the groups gs that are not loaded yet.
func load(gs ...*ruleGroup) {
	todo := false
	for _, g := range gs {
		todo = todo || (g != nil && !g.loaded.Load())
	}
	if !todo {
		return
	}
	regMu.Lock()
	defer regMu.Unlock()
	begin()
	var done []*ruleGroup
	for _, g := range gs {
		if g == nil || g.loaded.Load() {
			continue
		}
		adding = g
		for _, def := range g.defs {
			def()
		}
		done = append(done, g)
	}
	adding = nil
	publish()
	for _, g := range done {
		g.loaded.Store(true)
	}
}

// loadAll loads every group.
func loadAll() { load(groups...) }

// loadKind loads the groups whose rules may apply to kind: AL and the
// kind's family's (every group for a kind of no known family).
func loadKind(kind string) {
	p := familyGroup(kind)
	if p == "" {
		loadAll()
		return
	}
	load(groupOf("AL"), groupOf(p))
}

// Register adds rules to the registry; it panics on a duplicate or malformed
// ID, an unknown code or severity (a programming error caught by every test).
// The built-in rules are added by their group's definitions (register);
// Register is for rules defined elsewhere (tests).
func Register(rs ...*Rule) {
	for _, r := range rs {
		load(groupOf(r.ID)) // a duplicate of a built-in rule panics now
	}
	regMu.Lock()
	defer regMu.Unlock()
	begin()
	register(rs...)
	publish()
}

// register is Register within a change of the registry (regMu held). Field
// pointers are checked by TestRegistryWellFormed, not here: parsing every
// pointer of every rule cost a one-record `validate` a measurable share of
// its start-up.
func register(rs ...*Rule) {
	for _, r := range rs {
		if r.ID == "" || next.rules[r.ID] != nil {
			panic("rules: duplicate or empty rule ID " + r.ID)
		}
		if !envelope.Valid(r.Code) {
			panic("rules: rule " + r.ID + " has unknown code " + string(r.Code))
		}
		if r.Severity != envelope.SeverityError && r.Severity != envelope.SeverityWarning {
			panic("rules: rule " + r.ID + " has bad severity")
		}
		if g := adding; g != nil {
			if !strings.HasPrefix(r.ID, g.prefix) {
				panic("rules: rule " + r.ID + " defined in group " + g.prefix)
			}
			for _, k := range r.Kinds {
				if g.prefix != "AL" && familyGroup(k) != g.prefix {
					panic("rules: rule " + r.ID + " of group " + g.prefix + " applies to kind " + k + " of another family")
				}
			}
		}
		next.rules[r.ID] = r
	}
}

// Lookup returns the rule with the given ID, or nil.
func Lookup(id string) *Rule {
	load(groupOf(id))
	return snap().rules[id].withExamples()
}

// withExamples fills Example and Fixed from examples, once; nil-safe.
func (r *Rule) withExamples() *Rule {
	if r != nil && r.examples != nil {
		r.exampleOnce.Do(func() { r.Example, r.Fixed = r.examples() })
	}
	return r
}

// All returns every rule sorted by ID.
func All() []*Rule {
	loadAll()
	rs := sorted(snap())
	for _, r := range rs {
		r.withExamples()
	}
	return rs
}

// sorted returns the rules of s sorted by ID.
func sorted(s *snapshot) []*Rule {
	out := make([]*Rule, 0, len(s.rules))
	for _, r := range s.rules {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByCode returns the rules whose code is c, sorted by ID.
func ByCode(c envelope.Code) []*Rule {
	var out []*Rule
	for _, r := range All() {
		if r.Code == c {
			out = append(out, r)
		}
	}
	return out
}

// AppliesTo reports whether the rule runs on kind.
func (r *Rule) AppliesTo(kind string) bool {
	for _, k := range r.Kinds {
		if k == "*" || k == kind || (strings.HasSuffix(k, "/*") && strings.HasPrefix(kind, strings.TrimSuffix(k, "*"))) {
			return true
		}
	}
	return false
}

// ForKind returns the document rules (Check != nil) that apply to kind, by
// ID, for the engine: their Example and Fixed may be unset (Lookup and All
// fill them). The slice is shared: do not modify it.
func ForKind(kind string) []*Rule {
	if rs, ok := forKind.Load(kind); ok {
		return rs.([]*Rule)
	}
	loadKind(kind)
	var out []*Rule
	for _, r := range sorted(snap()) {
		if r.Check != nil && r.AppliesTo(kind) {
			out = append(out, r)
		}
	}
	forKind.Store(kind, out)
	return out
}

// Finding is what a document rule reports: a JSON Pointer into the document,
// a reason and optional details. Line and column are filled by the engine.
// A finding about two places of one document (a repeated id) puts the JSON
// Pointer of the other, first place in Extra[FirstPointer]; the engine then
// adds its 1-based line as Extra["first_line"] (cue/README.md, Decisions,
// "Two places").
type Finding struct {
	Rule    string
	Pointer string
	Reason  string
	Extra   map[string]any
	// Checked says that the rule found no secret in Reason or in the
	// strings of Extra (secrets.Scan): the engine fills the finding
	// without scanning them again (StreamFinding.Checked).
	Checked bool
}

// FirstPointer is the details key of the JSON Pointer of the first place a
// finding is about (see Finding).
const FirstPointer = "first_pointer"

// Reporter collects the findings of document rules.
type Reporter struct {
	rule  string
	out   *[]Finding
	count bool // Options.CountOnly: the findings are only counted
	// hit, when set, makes the reporter a probe (Doc.noFindingInPlace): a
	// finding only sets *hit and is not kept.
	hit *bool
}

// Counting reports whether the findings are only counted (Options.CountOnly:
// a quiet lint run): their reason and details are dropped unread, so a rule
// on a hot path may skip building them and report "" and nil.
func (r *Reporter) Counting() bool { return r.count || r.hit != nil }

// Report records a finding of the reporter's rule at pointer (RFC 6901).
// The pointer, the reason and the string values of extra are copied: a
// rule may pass strings that point into the record (Doc.DocStr).
func (r *Reporter) Report(pointer, reason string, extra map[string]any) {
	if r.hit != nil {
		*r.hit = true
		return
	}
	for k, v := range extra {
		if s, ok := v.(string); ok {
			extra[k] = strings.Clone(s)
		}
	}
	*r.out = append(*r.out, Finding{Rule: r.rule, Pointer: strings.Clone(pointer), Reason: strings.Clone(reason), Extra: extra})
}

// reportOwned is Report for a pointer, a reason and extra strings that do
// not point into the record (constants, or strings the rule built): they
// are kept as they are.
func (r *Reporter) reportOwned(pointer, reason string, extra map[string]any) {
	r.reportChecked(pointer, reason, extra, false)
}

// reportChecked is reportOwned for a finding whose reason and details the
// rule scanned for secrets (checked: none; Finding.Checked).
func (r *Reporter) reportChecked(pointer, reason string, extra map[string]any, checked bool) {
	if r.hit != nil {
		*r.hit = true
		return
	}
	*r.out = append(*r.out, Finding{Rule: r.rule, Pointer: pointer, Reason: reason, Extra: extra, Checked: checked})
}

// Reportf records a finding with a formatted reason.
func (r *Reporter) Reportf(pointer string, extra map[string]any, format string, args ...any) {
	r.Report(pointer, fmt.Sprintf(format, args...), extra)
}

// As returns a reporter for another rule sharing the same findings: one
// Check may report under several rules (e.g. OP030 and OP031 for lock
// resources). It panics on an unknown ID.
func (r *Reporter) As(id string) *Reporter {
	if Lookup(id) == nil {
		panic("rules: unknown rule " + id)
	}
	return &Reporter{rule: id, out: r.out, count: r.count, hit: r.hit}
}

// Run runs every document rule for d.Kind and returns the findings of the
// enabled rules (enabled == nil: all), in rule-ID order of the Checks.
func Run(d *Doc, enabled func(id string) bool) []Finding {
	return new(Runner).Run(d, enabled)
}

// Runner runs document rules like Run with state it reuses from one
// document to the next, so that a document with no finding costs no
// allocation: the engine's hot path (one Runner per worker; not safe for
// concurrent use).
type Runner struct {
	rep Reporter
	out []Finding
	ip  inPlaceState // lent to each document it runs (Doc.ip)
}

// Run is the package function Run on x's reusable state; the returned
// slice is valid until the next call.
func (x *Runner) Run(d *Doc, enabled func(id string) bool) []Finding {
	return x.RunRules(d, ForKind(d.Kind), enabled)
}

// RunRules is Run over the rules rs (document rules of d.Kind, as ForKind
// returns them or a subset the caller keeps per kind: the engine's hot
// path, which looks them up once per kind instead of once per record).
func (x *Runner) RunRules(d *Doc, rs []*Rule, enabled func(id string) bool) []Finding {
	x.out = x.out[:0]
	x.rep.out = &x.out
	x.rep.count = d.Options != nil && d.Options.CountOnly
	if d.ip == nil {
		x.ip.reset()
		d.ip = &x.ip
		defer func() {
			d.ip = nil
			x.ip.release()
		}()
	}
	for _, r := range rs {
		if enabled != nil && !enabled(r.ID) {
			continue
		}
		x.rep.rule = r.ID
		r.Check(d, &x.rep)
	}
	if enabled == nil {
		return x.out
	}
	out := x.out[:0]
	for _, f := range x.out {
		if enabled(f.Rule) {
			out = append(out, f)
		}
	}
	x.out = out
	return out
}
