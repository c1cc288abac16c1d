package rules

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlint/agentlint/lint/fast"
)

// Options are the command-line settings document rules may read.
type Options struct {
	// Now is the clock of time rules (--now; watchdog payloads carry their own).
	Now time.Time
	// MaxSkew is how far a heartbeat may lie in the future (--max-skew, default 60 s).
	MaxSkew time.Duration
	// Strict is --strict.
	Strict bool
	// Assignment is the assignment a result is checked against (--assignment),
	// already validated; nil when not given.
	Assignment *Doc
	// Walked reports whether every file under the directory dir (a path as
	// the run names files, e.g. "g/ledger/cls") takes part in the run: dir
	// is, or lies under, a directory the run walked (`agentlint lint DIR`).
	// Tree rules compare a file with a set of files (an agent's ledger
	// folder, templates/, processes/) only when that set is complete, so
	// that a run over some files (pre-commit passes the changed ones)
	// reports no reference as dangling because its target was not named.
	// nil: no directory was walked.
	Walked func(dir string) bool
	// Extend holds, per family ("collector", "vermas"), the event types and
	// namespaces a project declares beyond its seed (.agentlint.toml
	// [collector] / [vermas]); nil: none.
	Extend map[string]Extension
	// CountOnly: the findings are only counted (a quiet lint run);
	// Reporter.Counting tells the rules.
	CountOnly bool
}

// DirWalked reports whether o.Walked says dir is complete (false when o or
// o.Walked is nil).
func (o *Options) DirWalked(dir string) bool {
	return o != nil && o.Walked != nil && o.Walked(dir)
}

// The families whose event types a project may extend.
const (
	FamilyCollector = "collector"
	FamilyVermas    = "vermas"
)

// Extension is what a project declares beyond a seed for one family
// (.agentlint.toml, e.g. `[collector] event_types = ["task.created"]
// namespaces = ["task"]`): collector 1.1.0 adds namespaces, VerMAS teams add
// event types. A declared event type is known; so is every event type of a
// declared namespace.
type Extension struct {
	EventTypes []string `toml:"event_types"`
	Namespaces []string `toml:"namespaces"`
}

// Knows reports whether the event type t is declared, or is in a declared
// namespace (the text before its first '.') with a name of lowercase
// letters, digits, '_' and '.'.
func (e Extension) Knows(t string) bool {
	if len(e.EventTypes) == 0 && len(e.Namespaces) == 0 {
		return false
	}
	for _, x := range e.EventTypes {
		if x == t {
			return true
		}
	}
	ns, name, _ := strings.Cut(t, ".")
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_.") != "" {
		return false // a declared namespace does not make a malformed name known
	}
	for _, x := range e.Namespaces {
		if x == ns {
			return true
		}
	}
	return false
}

// Extended reports whether the options declare the event type t of family
// known (see Extension).
func (o *Options) Extended(family, t string) bool {
	return o != nil && len(o.Extend) != 0 && o.Extend[family].Knows(t)
}

// ExtendHint is the sentence that unknown event types end with: where a
// project declares its own.
func ExtendHint(family string) string {
	return "; a project declares its own in .agentlint.toml: [" + family + "] event_types = [...] or namespaces = [...]"
}

// Doc is one decoded JSON document (or JSON Lines record) of a known kind.
// Value holds the decoded JSON: map[string]any, []any, string, float64, bool
// or nil. Document rules run on every document that is well-formed JSON,
// also when the schema rejected it (README, Codes and precedence: every violation
// is reported), so they may not rely on types or on required members: read
// values with the checked accessors (Obj, Arr, Str, v.(T) with ok) and skip
// what is absent or has another type; the schema reports it.
type Doc struct {
	Kind    string
	File    string
	Raw     []byte
	Value   any
	Options *Options
	// InLog is true for a record that is one line of a JSON Lines log,
	// which the log's stream rules also see in context; false for a
	// document (one payload, one JSON or TOML file). A rule about the last
	// value of a log (IL013) checks documents only and leaves lines to its
	// stream check.
	InLog bool
	// Flat, when set and Value is nil, holds the values a record's rules
	// declared (Rule.Fields), found by the engine without decoding the
	// record (the hot path of large JSON Lines logs and of packet
	// streams, rules/inplace.go): DocStr reads
	// a string from them directly, and Root builds Value from them on first
	// use. Set only for records that are valid JSON, so no member name in
	// them repeats: where their kind's acceptor recorded them (it accepted
	// the record: no member name in them has an escape either), or found
	// by one scan of a record it declined (the names of the declared
	// members read as decoding reads them; their values as written).
	Flat []Flat

	// ledger memoizes opReadLedger for the ledger array it was read from
	// (ledgerOf, ledgerLen): the six reconcile rules of a document share one
	// reading instead of building six maps of every task (at 10,000 tasks the
	// replayer's reconciliation allocated ~30 MB).
	ledger    *opLedger
	ledgerOf  *any
	ledgerLen int

	// res memoizes the lock resources of the document (opLockScopes,
	// opForbidden, opDocLocks, opChanges), made on first use: the lock
	// rules share one reading.
	res *opResMemo

	// stack memoizes the scan of an idle STATE's stack read in place
	// (idleStackOf): IL009, IL012 and IL015 share one pass over it.
	stack idleStack

	// Digests, when set, is the engine's memo of the digests (Digest)
	// made of this record's values, which the extraction of the record's
	// stream values reuses: a value read in place by a document rule and
	// by a stream rule is scanned once. Nil: a rule that asks for a
	// digest gets a memo of the document's own.
	Digests *DigestMemo

	// ip is the state of the rules that read the record in place, lent by
	// the Runner that runs them (inPlaceState): nil outside a Run.
	ip *inPlaceState
}

// Flat is one declared value of a record (Doc.Flat): its JSON Pointer, as
// the rule declared it, and its JSON text, a slice of the record.
type Flat struct {
	Pointer string
	Raw     []byte
	// Elems, when set, says that Raw is an array of objects the kind's
	// acceptor read member by member, and what it recorded of them.
	Elems *FlatElems
}

// FlatElems is what a kind's acceptor recorded of the objects of an array
// (Flat.Elems; fast.Acc.Elems): Spans holds the start of each object that
// is an element, then the value of each member of it that its definition
// declares, named by its index in Names, at offsets in the record whose
// Flat.Raw starts at byte Base. Valid while the record is.
type FlatElems struct {
	Spans []fast.ElemSpan
	Names []string
	Base  int
}

// Root returns the document's top-level object (nil if it is not an object).
func (d *Doc) Root() map[string]any {
	if d.Value == nil && d.Flat != nil {
		d.Value = flatValue(d.Flat)
	}
	return Obj(d.Value)
}

// flatValue is the object holding just the values of fs, each under its
// pointer (intermediate objects made as needed), decoded as json.Unmarshal
// into any decodes them (fast.Decode, json.Unmarshal for what it declines);
// fs lists parents before their members.
func flatValue(fs []Flat) map[string]any {
	root := map[string]any{}
	for _, f := range fs {
		toks, ok := PointerTokens(f.Pointer)
		if !ok || len(toks) == 0 {
			continue
		}
		x, ok := fast.Decode(f.Raw)
		if !ok && json.Unmarshal(f.Raw, &x) != nil {
			continue
		}
		m := root
		for _, t := range toks[:len(toks)-1] {
			sub, ok := m[t].(map[string]any)
			if !ok {
				if _, taken := m[t]; taken {
					m = nil
					break
				}
				sub = map[string]any{}
				m[t] = sub
			}
			m = sub
		}
		if m != nil {
			if _, taken := m[toks[len(toks)-1]]; !taken {
				m[toks[len(toks)-1]] = x
			}
		}
	}
	return root
}

// DocStr returns the string at ptr, a JSON Pointer of member names that
// the rule declared in Fields ("/event_type"), and whether there is one
// (false when absent or not a string): the accessor of the hot path, which
// reads a flat record (Doc.Flat) without decoding it. The string is valid
// during the Check only; the Reporter copies what findings keep.
func (d *Doc) DocStr(ptr string) (string, bool) {
	if d.Value == nil && d.Flat != nil {
		ip := d.ip
		if ip != nil && ip.strPtr == ptr && ptr != "" {
			return ip.str, ip.strOK
		}
		s, ok := "", false
		for i := range d.Flat {
			if d.Flat[i].Pointer == ptr {
				s, ok = flatString(d.Flat[i].Raw)
				break
			}
		}
		if ip != nil {
			ip.strPtr, ip.str, ip.strOK = ptr, s, ok
		}
		return s, ok
	}
	toks, ok := PointerTokens(ptr)
	if !ok || len(toks) == 0 {
		return "", false
	}
	m := d.Root()
	for _, t := range toks[:len(toks)-1] {
		m = Obj(m[t])
	}
	s, ok := m[toks[len(toks)-1]].(string)
	return s, ok
}

// flatString is the content of the JSON string raw: the bytes of raw
// themselves when it has no escapes, else unquoted.
func flatString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(in), len(in)), true
	}
	out, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return "", false
	}
	return string(out), true
}

// Obj returns v as an object, or nil.
func Obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Arr returns m[key] as an array, or nil.
func Arr(m map[string]any, key string) []any {
	a, _ := m[key].([]any)
	return a
}

// Str returns m[key] as a string ("" when absent or not a string).
func Str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// escapeToken writes the reference token t escaped (RFC 6901 section 3: "~"
// as "~0", "/" as "~1") to b. (No strings.Replacer: one built at package
// initialisation cost every process start.)
func escapeToken(b *strings.Builder, t string) {
	if !strings.ContainsAny(t, "~/") {
		b.WriteString(t)
		return
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(t[i])
		}
	}
}

// Ptr builds an RFC 6901 JSON Pointer from member names and array indexes.
func Ptr(parts ...any) string {
	var b strings.Builder
	n := 0
	for _, p := range parts {
		n++ // '/'
		switch p := p.(type) {
		case int:
			n += 4
		case string:
			n += len(p)
		}
	}
	b.Grow(n)
	for _, p := range parts {
		b.WriteByte('/')
		switch p := p.(type) {
		case int:
			b.WriteString(strconv.Itoa(p))
		case string:
			escapeToken(&b, p)
		}
	}
	return b.String()
}
