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

	"github.com/agentlint/agentlint/rules"
)

// ConfigName is the config file looked up from the working directory upward.
const ConfigName = ".agentlint.toml"

// Config is the parsed .agentlint.toml (CONTRACT.md section 6):
//
//	strict = true
//	exclude = ["vendor/**"]
//	[kinds]
//	"logs/*.jsonl" = "collector/event"
//	[rules.OP004]
//	severity = "off"   # or "warning", "error"; the code never changes
type Config struct {
	Path    string                `toml:"-"`
	Dir     string                `toml:"-"`
	Strict  bool                  `toml:"strict"`
	Exclude []string              `toml:"exclude"`
	Kinds   map[string]string     `toml:"kinds"`
	Rules   map[string]RuleConfig `toml:"rules"`
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

// rawConfig is the file as decoded: globs are checked as they are decoded,
// so that an error names the line of its key (toml.ParseError).
type rawConfig struct {
	Strict  bool                      `toml:"strict"`
	Exclude []excludeGlob             `toml:"exclude"`
	Kinds   map[string]toml.Primitive `toml:"kinds"`
	Rules   map[string]RuleConfig     `toml:"rules"`
}

// excludeGlob is one glob of exclude, checked when decoded.
type excludeGlob string

// UnmarshalTOML implements toml.Unmarshaler.
func (g *excludeGlob) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("exclude holds globs (strings), not %v", v)
	}
	if !doublestar.ValidatePattern(s) {
		return fmt.Errorf("exclude glob %q is not a valid glob (an unclosed [ or {, or a trailing \\)", s)
	}
	*g = excludeGlob(s)
	return nil
}

// kindsEntry is one `"glob" = "kind"` line of [kinds], checked when
// decoded (glob is set first: the decoder hands over only the value).
type kindsEntry struct {
	glob, kind string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (e *kindsEntry) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("[kinds] %q must name a kind (a string), not %v", e.glob, v)
	}
	if !doublestar.ValidatePattern(e.glob) {
		return fmt.Errorf("[kinds] %q is not a valid glob (an unclosed [ or {, or a trailing \\)", e.glob)
	}
	if Kind(s) == nil {
		return fmt.Errorf("[kinds] %q names unknown kind %q (agentlint kinds lists them)", e.glob, s)
	}
	e.kind = s
	return nil
}

// configError names the file and, for an error of a value we check
// (globs, kinds), its line: "path:3: message"; TOML's own errors keep
// their text ("path: toml: line 2: ...").
func configError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Position.Line > 0 && (strings.HasPrefix(pe.Message, "exclude ") || strings.HasPrefix(pe.Message, "[kinds] ")) {
		return fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// LoadConfig parses the config at path; unknown keys, invalid globs,
// unknown kinds or rules and bad severities are errors that say what to fix
// (globs and kinds also name the line: "toml: line 3 (last key ...)").
func LoadConfig(path string) (*Config, error) {
	c := &Config{Path: path, Dir: filepath.Dir(path)}
	var raw rawConfig
	md, err := toml.DecodeFile(path, &raw)
	if err != nil {
		return nil, configError(path, err)
	}
	c.Strict, c.Rules = raw.Strict, raw.Rules
	for _, g := range raw.Exclude {
		c.Exclude = append(c.Exclude, string(g))
	}
	globs := make([]string, 0, len(raw.Kinds))
	for g := range raw.Kinds {
		globs = append(globs, g)
	}
	sort.Strings(globs) // the first error in file order would need positions; sorted is deterministic
	for _, g := range globs {
		e := kindsEntry{glob: g}
		if err := md.PrimitiveDecode(raw.Kinds[g], &e); err != nil {
			return nil, configError(path, err)
		}
		if c.Kinds == nil {
			c.Kinds = map[string]string{}
		}
		c.Kinds[g] = e.kind
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s", path, und[0])
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
func (c *Config) Apply(o *Options) {
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
}

// KindFor returns the kind the config's [kinds] globs give file (globs are
// relative to the config's directory), or nil. Globs are tried in sorted
// order so that the result is deterministic.
func (c *Config) KindFor(file string) (*KindInfo, error) {
	if c == nil || len(c.Kinds) == 0 || file == "-" {
		return nil, nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, nil
	}
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil {
		return nil, nil
	}
	globs := make([]string, 0, len(c.Kinds))
	for g := range c.Kinds {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	for _, g := range globs {
		if MatchGlob(g, filepath.ToSlash(rel)) {
			return Kind(c.Kinds[g]), nil
		}
	}
	return nil, nil
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
		if MatchGlob(g, filepath.ToSlash(rel)) {
			return true
		}
	}
	return false
}
