//go:build unix

package server

import (
	"net"
	"syscall"
)

// listenUnix creates the Unix socket addr with the umask set so that it is
// never accessible to group or others, not even before its chmod.
func listenUnix(addr string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	defer syscall.Umask(old)
	return net.Listen("unix", addr)
}
