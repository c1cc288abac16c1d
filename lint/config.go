package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// ConfigName is the config file looked up from the working directory upward.
const ConfigName = ".agentlint.toml"

// Config is the parsed .agentlint.toml (README, Usage):
//
//	strict = true
//	exclude = ["vendor/**"]
//	[kinds]
//	"logs/*.jsonl" = "collector/event"
//	[rules.OP004]
//	severity = "off"   # or "warning", "error"; the code never changes
//	[collector]        # event types and namespaces beyond seed 004
//	event_types = ["task.created"]
//	namespaces = ["git", "container"]
//	[vermas]           # event types and namespaces beyond seed 000
//	event_types = ["team.standup"]
type Config struct {
	Path    string   `toml:"-"`
	Dir     string   `toml:"-"`
	Strict  bool     `toml:"strict"`
	Exclude []string `toml:"exclude"`
	// Baseline is the baseline file of `agentlint lint` (--baseline),
	// relative to the config file's directory.
	Baseline  string                `toml:"baseline"`
	Kinds     map[string]string     `toml:"kinds"`
	Rules     map[string]RuleConfig `toml:"rules"`
	Collector rules.Extension       `toml:"collector"`
	Vermas    rules.Extension       `toml:"vermas"`
}

// isNamespace and isEventType say what a declared namespace and event type
// must look like: seed 000's event type grammar (which seed 004's fits in),
// `^[a-z][a-z0-9_]*$` and `^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`. Written
// out so that no regular expression is compiled at start-up.
func isNamespace(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isEventType(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isNamespace(p) {
			return false
		}
	}
	return true
}

// RuleConfig is one [rules.ID] table.
type RuleConfig struct {
	Severity string `toml:"severity"`
}

// FindConfig returns the path of .agentlint.toml in dir or its nearest
// ancestor, or "".
func FindConfig(dir string) string {
	dir, _ = filepath.Abs(dir)
	for {
		p := filepath.Join(dir, ConfigName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// rawConfig is the file as decoded; exclude and [kinds] stay primitive
// until checked, so that a bad value's line can be found (keyLine).
type rawConfig struct {
	Strict   bool                      `toml:"strict"`
	Exclude  toml.Primitive            `toml:"exclude"`
	Baseline string                    `toml:"baseline"`
	Kinds    map[string]toml.Primitive `toml:"kinds"`
	Rules    map[string]RuleConfig     `toml:"rules"`
	// [collector] and [vermas]: event types and namespaces beyond the seed.
	Collector rules.Extension `toml:"collector"`
	Vermas    rules.Extension `toml:"vermas"`
}

const globHint = "(an unclosed [ or {, or a trailing \\)"

// keyLine returns the line of the key that holds prim: BurntSushi/toml
// reports it (toml.ParseError.Position) for an error of a value's
// toml.Unmarshaler, so prim is decoded into one that always fails.
func keyLine(md *toml.MetaData, prim toml.Primitive) int {
	var pe toml.ParseError
	if err := md.PrimitiveDecode(prim, &lineFinder{}); errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

// lineFinder is a toml.Unmarshaler that fails, for keyLine.
type lineFinder struct{}

func (*lineFinder) UnmarshalTOML(any) error { return errors.New("line") }

// lineOf returns the line, at or after line from, that holds s (an element
// of a multi-line array), or from.
func lineOf(data []byte, from int, s string) int {
	lines := strings.Split(string(data), "\n")
	for i := max(from-1, 0); i < len(lines); i++ {
		if strings.Contains(lines[i], s) {
			return i + 1
		}
	}
	return from
}

// LoadConfig parses the config at path; unknown keys, invalid globs,
// unknown kinds or rules and bad severities are errors that say what to fix.
// A bad glob or kind names its line ("path:5: [kinds] ...").
func LoadConfig(path string) (*Config, error) {
	c := &Config{Path: path, Dir: filepath.Dir(path)}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw rawConfig
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	c.Strict, c.Rules, c.Baseline = raw.Strict, raw.Rules, raw.Baseline
	c.Collector, c.Vermas = raw.Collector, raw.Vermas
	if md.IsDefined("exclude") {
		if err := md.PrimitiveDecode(raw.Exclude, &c.Exclude); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		for _, g := range c.Exclude {
			if !doublestar.ValidatePattern(g) {
				return nil, fmt.Errorf("%s:%d: exclude glob %q is not a valid glob %s", path, lineOf(data, keyLine(&md, raw.Exclude), g), g, globHint)
			}
		}
	}
	globs := make([]string, 0, len(raw.Kinds))
	for g := range raw.Kinds {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	for _, g := range globs {
		prim := raw.Kinds[g]
		var k string
		if err := md.PrimitiveDecode(prim, &k); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		switch {
		case !doublestar.ValidatePattern(g):
			return nil, fmt.Errorf("%s:%d: [kinds] %q is not a valid glob %s", path, keyLine(&md, prim), g, globHint)
		case kind.Lookup(k) == nil:
			return nil, fmt.Errorf("%s:%d: [kinds] %q names unknown kind %q (agentlint kinds lists them)", path, keyLine(&md, prim), g, k)
		}
		if c.Kinds == nil {
			c.Kinds = map[string]string{}
		}
		c.Kinds[g] = k
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s", path, und[0])
	}
	for _, fe := range []struct {
		family string
		e      rules.Extension
	}{{rules.FamilyCollector, c.Collector}, {rules.FamilyVermas, c.Vermas}} {
		family, e := fe.family, fe.e
		for _, t := range e.EventTypes {
			if !isEventType(t) {
				return nil, fmt.Errorf("%s: [%s] event_types: %q is not an event type (namespace.name, lowercase)", path, family, t)
			}
		}
		for _, ns := range e.Namespaces {
			if !isNamespace(ns) {
				return nil, fmt.Errorf("%s: [%s] namespaces: %q is not a namespace (lowercase letters, digits, _)", path, family, ns)
			}
		}
	}
	for id, rc := range c.Rules {
		if rules.Lookup(id) == nil {
			return nil, fmt.Errorf("%s: [rules.%s]: no such rule (agentlint rules lists them)", path, id)
		}
		switch rc.Severity {
		case "off", "warning", "error":
		default:
			return nil, fmt.Errorf("%s: [rules.%s] severity must be \"off\", \"warning\" or \"error\", not %q", path, id, rc.Severity)
		}
	}
	return c, nil
}

// Apply merges the config into validator options.
func (c *Config) Apply(o *record.Options) {
	if c == nil {
		return
	}
	if c.Strict {
		o.Strict = true
	}
	if len(c.Rules) > 0 && o.Severity == nil {
		o.Severity = map[string]string{}
	}
	for id, rc := range c.Rules {
		o.Severity[id] = rc.Severity
	}
	for family, e := range map[string]rules.Extension{rules.FamilyCollector: c.Collector, rules.FamilyVermas: c.Vermas} {
		if len(e.EventTypes)+len(e.Namespaces) > 0 {
			if o.Extend == nil {
				o.Extend = map[string]rules.Extension{}
			}
			o.Extend[family] = e
		}
	}
}

// KindFor returns the kind the config's [kinds] globs give file (globs are
// relative to the config's directory), or nil. Globs are tried in sorted
// order so that the result is deterministic.
func (c *Config) KindFor(file string) *kind.Kind {
	if c == nil || len(c.Kinds) == 0 || file == "-" {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil {
		return nil
	}
	globs := make([]string, 0, len(c.Kinds))
	for g := range c.Kinds {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	for _, g := range globs {
		if kind.MatchGlob(g, filepath.ToSlash(rel)) {
			return kind.Lookup(c.Kinds[g])
		}
	}
	return nil
}

// Excluded reports whether path (slash-separated, relative to the config's
// directory) matches an exclude glob.
func (c *Config) Excluded(file string) bool {
	if c == nil {
		return false
	}
	abs, _ := filepath.Abs(file)
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil {
		return false
	}
	for _, g := range c.Exclude {
		if kind.MatchGlob(g, filepath.ToSlash(rel)) {
			return true
		}
	}
	return false
}
