package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/cmd/agentlint/server/serveconf"
)

// `agentlint serve` (README, "Orchestrators: validate without a process
// per packet"). The server links net/http and the Prometheus client, whose
// package initialisation would add ~12 ms to every start of this binary
// (every `validate` of a hook): it lives in cmd/agentlint/server, linked only into
// agentlint-serve, the same CLI built with -tags serveengine (`make build`
// writes bin/agentlint-serve). This binary parses and checks the command
// line, then hands it over (serve_handoff_*.go).

// serveFlags are the flags of `agentlint serve`.
type serveFlags struct {
	listen            string
	allowRemote       bool
	tokenFile         string
	maxBody           int64
	maxInFlight       int
	maxSessions       int
	sessionIdle       time.Duration
	requestTimeout    time.Duration
	shutdownTimeout   time.Duration
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	cores             int
}

func (a *app) serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve --listen unix:PATH|127.0.0.1:PORT",
		Short: "Serve validate, lint, replay and live sessions over HTTP (JSON)",
		Long: `Serve the validator over HTTP/1.1, so that an orchestrator validates
without starting one process per payload. The verdict is the response body,
the same envelope as the CLI; the HTTP status only says whether the request
was served (200; 400 malformed request; 401 bad token; 404 unknown kind or
session; 413 body over --max-body; 503 overloaded, with Retry-After).

  POST   /v1/validate?kind=K[&strict=true][&now=T]   one payload, one envelope
  POST   /v1/lint?kind=K                            JSON Lines: envelopes + summary
  POST   /v1/replay[?now=T]                         {"ledger": BASE, "streams": [...]}
  POST   /v1/sessions/{name}/records?kind=K         append JSON Lines to a live log
  DELETE /v1/sessions/{name}                        end it: run-wide findings
  GET    /v1/kinds  /v1/rules  /v1/schemas/{kind}
  GET    /healthz  /readyz  /metrics (Prometheus)

A Unix socket is created owner-only (0600). A TCP address must be loopback
unless --allow-remote is given together with --token-file (bearer token).
SIGTERM or SIGINT stops accepting, drains the requests in flight within
--shutdown-timeout and exits 0. One log line per request goes to standard
error; it never holds a payload value, a session name or a secret.`,
		Example: `  agentlint serve --listen unix:/run/agentlint.sock
  agentlint serve --listen 127.0.0.1:8765 --max-in-flight 8
  agentlint serve --listen 0.0.0.0:8765 --allow-remote --token-file /etc/agentlint/token
  curl --unix-socket /run/agentlint.sock -d @packets/t12.json 'http://x/v1/validate?kind=operator/assignment'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.noBase("serve"); err != nil {
				return err
			}
			return a.serve(f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.listen, "listen", "", "unix:PATH (a Unix socket, mode 0600) or HOST:PORT (loopback unless --allow-remote)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback TCP address (needs --token-file)")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token every request but /healthz and /readyz must carry")
	fs.Int64Var(&f.maxBody, "max-body", serveconf.DefaultMaxBody, "longest request body in bytes (longer: 413)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 4, "requests validated at once (more: 503 with Retry-After)")
	fs.IntVar(&f.maxSessions, "max-sessions", serveconf.DefaultMaxSessions, "live sessions at most (more: 503 with Retry-After)")
	fs.DurationVar(&f.sessionIdle, "session-idle", serveconf.DefaultSessionIdle, "end a session idle for this long")
	fs.DurationVar(&f.requestTimeout, "request-timeout", serveconf.DefaultRequestTimeout, "deadline of one request (past it: 503)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long SIGTERM waits for requests in flight")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", 5*time.Second, "time to read a request's headers")
	fs.DurationVar(&f.readTimeout, "read-timeout", time.Minute, "time to read a whole request")
	fs.DurationVar(&f.writeTimeout, "write-timeout", 2*time.Minute, "time from the end of a request's headers to the end of its answer")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 2*time.Minute, "how long a kept-alive connection waits for its next request")
	fs.IntVar(&f.cores, "cores", 0, "cores running the server at once (0: $GOMAXPROCS when set, else all but one on a Unix socket or loopback, where the clients share the machine, all on a remote address)")
	a.addCommonFlags(cmd)
	return cmd
}

// serveImpl runs the server until ctx ends; nil in this binary, which
// hands `serve` over to agentlint-serve (set by serve_engine.go there).
var serveImpl func(ctx context.Context, r serveconf.RunConfig) error

// serve checks the command line and runs the server until SIGTERM or
// SIGINT (exit 0), or hands the command over to agentlint-serve.
func (a *app) serve(f serveFlags) error {
	if f.listen == "" {
		return usagef("serve needs --listen unix:PATH or --listen 127.0.0.1:PORT")
	}
	durations := []struct {
		name string
		d    time.Duration
	}{{"--session-idle", f.sessionIdle}, {"--request-timeout", f.requestTimeout}, {"--shutdown-timeout", f.shutdownTimeout},
		{"--read-header-timeout", f.readHeaderTimeout}, {"--read-timeout", f.readTimeout}, {"--write-timeout", f.writeTimeout},
		{"--idle-timeout", f.idleTimeout}}
	for _, x := range durations {
		if x.d <= 0 {
			return usagef("%s must be positive", x.name)
		}
	}
	if f.maxBody <= 0 || f.maxInFlight <= 0 || f.maxSessions <= 0 {
		return usagef("--max-body, --max-in-flight and --max-sessions must be positive")
	}
	if f.cores < 0 {
		return usagef("--cores must be 0 (choose) or positive")
	}
	if a.g.engine != "fast" {
		return usagef("serve runs the fast engine only (--engine fast)")
	}
	token := ""
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return usagef("--token-file %s: cannot read: %v", f.tokenFile, unwrapPath(err))
		}
		if token = strings.TrimSpace(string(b)); token == "" || strings.ContainsAny(token, " \t\r\n") {
			return usagef("--token-file %s must hold one token (no white space inside)", f.tokenFile)
		}
	}
	if err := checkListen(f.listen, f.allowRemote, token != ""); err != nil {
		return err
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	opts, err := a.options()
	if err != nil {
		return err
	}
	cfg.Apply(&opts)
	if serveImpl == nil {
		return a.handOffServe()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err = serveImpl(ctx, serveconf.RunConfig{Listen: f.listen, AllowRemote: f.allowRemote, Token: token, Options: opts,
		MaxBody: f.maxBody, MaxInFlight: f.maxInFlight, MaxSessions: f.maxSessions, SessionIdle: f.sessionIdle,
		RequestTimeout: f.requestTimeout, ShutdownTimeout: f.shutdownTimeout, ReadHeaderTimeout: f.readHeaderTimeout,
		ReadTimeout: f.readTimeout, WriteTimeout: f.writeTimeout, IdleTimeout: f.idleTimeout, Cores: f.cores, Log: a.stderr})
	if err != nil {
		return usagef("serve: %v", err)
	}
	return nil
}

// checkListen refuses a --listen that the server would refuse, before
// the hand-over: unix:PATH, or HOST:PORT with a loopback HOST unless
// --allow-remote and a token are given.
func checkListen(listen string, allowRemote, token bool) error {
	if p, ok := strings.CutPrefix(listen, "unix:"); ok {
		if p == "" {
			return usagef("--listen unix:PATH needs a PATH")
		}
		return nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return usagef("--listen must be unix:PATH or HOST:PORT, not %q", listen)
	}
	switch {
	case serveconf.LoopbackHost(host):
	case !allowRemote:
		return usagef("--listen %s is not a loopback address: anyone who reaches it could use the server; give --allow-remote with --token-file, or listen on 127.0.0.1 or a Unix socket", listen)
	case !token:
		return usagef("--allow-remote needs --token-file: a server reachable from other hosts requires a bearer token")
	}
	return nil
}

// serveBinary is the name of the build that links the server.
const serveBinary = "agentlint-serve"

// findServeBinary looks for agentlint-serve next to this executable, then
// on PATH; "" when absent.
func findServeBinary() string {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), serveBinary); isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath(serveBinary); err == nil {
		return p
	}
	return ""
}

func missingServeBinary() error {
	return usagef("serve runs %s, which was found neither next to agentlint nor on PATH; build it with `make build` (bin/%s) or `go build -tags serveengine -o $(go env GOPATH)/bin/%s ./cmd/agentlint`", serveBinary, serveBinary, serveBinary)
}
