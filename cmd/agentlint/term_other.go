//go:build !unix && !windows

package main

import "os"

// terminalWidth: unknown on this system.
func terminalWidth(*os.File) (int, bool) { return 0, false }
