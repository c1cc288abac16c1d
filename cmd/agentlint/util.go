package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/agentlint/agentlint/lint"
)

func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// loadConfig reads --config, or .agentlint.toml found upward from the
// working directory; no config file is fine.
func (a *app) loadConfig() (*lint.Config, error) {
	path := a.g.config
	if path == "" {
		wd, _ := os.Getwd()
		path = lint.FindConfig(wd)
		if path == "" {
			return nil, nil
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, usagef("--config %s: no such file", path)
	}
	c, err := lint.LoadConfig(path)
	if err != nil {
		return nil, usagef("bad config: %v", err)
	}
	return c, nil
}

// isExecutable reports whether p is a file with an execute bit (the
// agentlint-cue and agentlint-serve binaries found next to agentlint).
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
