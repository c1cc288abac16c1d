// Package serveconf is the configuration of `agentlint serve` (README,
// "Orchestrators: validate without a process per packet"): the defaults of
// its limits and the RunConfig that lint/server's Run takes. It links
// nothing of the server (net/http, the Prometheus client), so that the
// agentlint binary parses and checks serve's command line with the same
// types and defaults before it hands the command over to agentlint-serve.
package serveconf

import (
	"io"
	"net"
	"time"

	"github.com/agentlint/agentlint/lint/record"
)

// Defaults of the server's limits.
const (
	// DefaultMaxBody is the longest request body, in bytes (16 MiB).
	DefaultMaxBody = 16 << 20
	// DefaultMaxSessions is the number of live sessions at most.
	DefaultMaxSessions = 64
	// DefaultSessionIdle is how long a session lives without a request.
	DefaultSessionIdle = 15 * time.Minute
	// DefaultRequestTimeout is the deadline of one request.
	DefaultRequestTimeout = 60 * time.Second
)

// RunConfig configures Run: where to listen, the limits of Config and the
// timeouts of the HTTP server. Durations must be positive.
type RunConfig struct {
	// Listen is "unix:PATH" (a Unix socket, created owner-only: mode 0600;
	// a stale socket file nothing listens on is replaced) or "HOST:PORT"
	// over TCP, whose HOST must be loopback (127.0.0.0/8, ::1, localhost)
	// unless AllowRemote is set, which needs a Token.
	Listen      string
	AllowRemote bool
	// Token is the bearer token (Config.Token); "" for none.
	Token string
	// Options, MaxBody, MaxInFlight, MaxSessions, SessionIdle and
	// RequestTimeout are those of Config.
	Options        record.Options
	MaxBody        int64
	MaxInFlight    int
	MaxSessions    int
	SessionIdle    time.Duration
	RequestTimeout time.Duration
	// ShutdownTimeout bounds the drain when ctx ends; the HTTP server's
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout.
	ShutdownTimeout   time.Duration
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// Cores is how many cores run the server's Go code at once (its
	// GOMAXPROCS). 0 chooses: the GOMAXPROCS environment variable when it
	// is set; otherwise, on a Unix socket or a loopback address, where the
	// clients run on the same machine, every core but one (at least one),
	// and on a remote address every core. See LocalCores.
	Cores int
	// Log receives the log lines (log/slog text): one when listening, one
	// per request, and the shutdown's.
	Log io.Writer
}

// LoopbackHost reports whether host, of a --listen HOST:PORT, is reachable
// only from this machine: "localhost" or a loopback IP (127.0.0.0/8, ::1).
func LoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LocalCores returns the cores a server listening on a Unix socket or a
// loopback address runs on by default, of the n the Go runtime would use
// (GOMAXPROCS: the machine's cores or its container's limit): n-1, at
// least 1. Its clients run on the same machine; a server that took every
// core would make them wait for its time slices, and they it: on two
// cores, one core for the server answered as many validations a second
// as two, with a shorter tail (cmd/agentlint/server/README.md,
// "Measured").
func LocalCores(n int) int { return max(1, n-1) }
