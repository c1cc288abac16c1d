//go:build devtools

// Command hellodeps is the hello-world Go program of `make bench`'s start-up
// figure, linked with every package outside the standard library that
// agentlint links (cobra and pflag, BurntSushi/toml, go-json-experiment,
// fatih/color and what they bring, doublestar, go-sarif, renameio): the
// floor that any `agentlint validate` built from these dependencies starts
// from, before a line of agentlint runs (the Go runtime runs the
// init of every linked package, and a larger program faults in more pages).
// TestLinksWhatAgentlintLinks keeps the list equal to agentlint's.
package main

import (
	"fmt"

	_ "github.com/BurntSushi/toml"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/fatih/color"
	_ "github.com/go-json-experiment/json"
	_ "github.com/go-json-experiment/json/jsontext"
	_ "github.com/google/renameio/v2"
	_ "github.com/mattn/go-colorable"
	_ "github.com/mattn/go-isatty"
	_ "github.com/owenrumney/go-sarif/v2/sarif"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/sys/unix"
)

func main() { fmt.Println("hello, world") }
