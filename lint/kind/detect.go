package kind

import "path/filepath"

// Globs gives the kind that a project's configuration names for a file
// (the [kinds] table of .agentlint.toml, README "Configuration"), or nil.
// lint.Config implements it; a nil *lint.Config gives nil for every file.
type Globs interface {
	KindFor(file string) *Kind
}

// Detector applies cue/README.md "Detection" to a file, in order: the --kind
// flag (Forced), the configuration's [kinds] globs, the built-in globs, then
// sniffing of the first record. By default only .json and .jsonl files (and
// standard input) are sniffed, so that a walk never opens a file that no
// glob names and that cannot hold JSON; SniffAny sniffs whatever the name
// (`agentlint validate`, which reads a named payload whole anyway).
type Detector struct {
	// Forced is the kind named by --kind, or nil.
	Forced *Kind
	// Config gives the configuration's globs, or nil.
	Config Globs
	// SniffAny: sniff files of any name, not only .json and .jsonl.
	SniffAny bool
}

// ByName returns the kind that --kind or a glob gives path ("-", standard
// input: only --kind), or nil.
func (d *Detector) ByName(path string) *Kind {
	if d.Forced != nil {
		return d.Forced
	}
	if path == "-" {
		return nil
	}
	if d.Config != nil {
		if k := d.Config.KindFor(path); k != nil {
			return k
		}
	}
	return ByGlob(path)
}

// Sniffs reports whether a file whose name gives no kind is sniffed.
func (d *Detector) Sniffs(path string) bool {
	if path == "-" || d.SniffAny {
		return true
	}
	ext := filepath.Ext(path)
	return ext == ".json" || ext == ".jsonl"
}

// Detect returns the kind of path: by name, else by sniffing head (the
// first bytes of the file) when Sniffs(path); nil when it cannot be
// determined.
func (d *Detector) Detect(path string, head []byte) *Kind {
	if k := d.ByName(path); k != nil {
		return k
	}
	if d.Sniffs(path) {
		return Sniff(head)
	}
	return nil
}
