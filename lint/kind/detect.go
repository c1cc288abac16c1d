package lint

import "path/filepath"

// Detector applies cue/README.md "Detection" to the files of a lint
// run, in order: the --kind flag (Forced), the config file's [kinds] globs,
// the built-in globs, then sniffing of the first record. Only .json and
// .jsonl files (and standard input) are sniffed, so that a walk never opens a
// file that no glob names and that cannot hold JSON.
type Detector struct {
	// Forced is the kind named by --kind, or nil.
	Forced *KindInfo
	// Config is the loaded .agentlint.toml, or nil.
	Config *Config
}

// ByName returns the kind that --kind or a glob gives path ("-": only
// --kind), or nil.
func (d *Detector) ByName(path string) *KindInfo {
	if d.Forced != nil {
		return d.Forced
	}
	if path == "-" {
		return nil
	}
	if k, _ := d.Config.KindFor(path); k != nil {
		return k
	}
	return GlobKind(path)
}

// Sniffs reports whether a file whose name gives no kind is sniffed.
func (d *Detector) Sniffs(path string) bool {
	if path == "-" {
		return true
	}
	ext := filepath.Ext(path)
	return ext == ".json" || ext == ".jsonl"
}

// Detect returns the kind of path: by name, else by sniffing head (the
// first bytes of the file) when Sniffs(path); nil when it cannot be
// determined.
func (d *Detector) Detect(path string, head []byte) *KindInfo {
	if k := d.ByName(path); k != nil {
		return k
	}
	if d.Sniffs(path) {
		return Sniff(head)
	}
	return nil
}
