// Command agentlint validates and lints the data that multi-agent systems
// write: event logs (JSON Lines), task packets and ledgers (JSON), workflow
// templates (TOML). See README.md and `agentlint --help`.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
