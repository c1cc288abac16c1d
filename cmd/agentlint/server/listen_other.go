//go:build !unix

package server

import "net"

// listenUnix creates the Unix socket addr (its mode is set afterwards).
func listenUnix(addr string) (net.Listener, error) { return net.Listen("unix", addr) }
