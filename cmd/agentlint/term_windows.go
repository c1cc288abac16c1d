//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth returns the columns of the console f is.
func terminalWidth(f *os.File) (int, bool) {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0, false
	}
	return int(info.Window.Right-info.Window.Left) + 1, true
}
