package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentlint/agentlint/cmd/agentlint/server/serveconf"
)

// RunConfig configures Run (serveconf.RunConfig: a package of its own, so
// that the agentlint binary checks serve's command line without linking
// the server).
type RunConfig = serveconf.RunConfig

// Run serves until ctx ends (SIGTERM or SIGINT in `agentlint serve`), then
// stops accepting, drains the requests in flight within ShutdownTimeout
// (cutting those still running after it) and returns nil. It returns an
// error, before serving, for a bad Listen, a non-loopback address without
// AllowRemote and Token, or a listener that cannot be opened; and when
// serving fails.
func Run(ctx context.Context, rc RunConfig) error {
	network, addr, err := ListenAddress(rc.Listen, rc.AllowRemote, rc.Token != "")
	if err != nil {
		return err
	}
	ln, err := listen(network, addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", rc.Listen, err)
	}
	lw := newLogBuffer(rc.Log)
	defer lw.stop()
	log := slog.New(slog.NewTextHandler(lw, nil))
	cores, of := setCores(rc.Cores, network == "unix" || loopbackAddr(addr))
	defer runtime.GOMAXPROCS(of)
	s := New(Config{Options: rc.Options, MaxBody: rc.MaxBody, MaxInFlight: rc.MaxInFlight, MaxSessions: rc.MaxSessions,
		SessionIdle: rc.SessionIdle, RequestTimeout: rc.RequestTimeout, Token: rc.Token, Logger: log})
	defer s.Close()
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: rc.ReadHeaderTimeout, ReadTimeout: rc.ReadTimeout,
		WriteTimeout: rc.WriteTimeout, IdleTimeout: rc.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	shown := ln.Addr().String()
	if network == "unix" {
		shown = "unix:" + addr
	}
	log.Info("listening", "addr", shown, "max_body", s.cfg.MaxBody, "max_in_flight", s.cfg.MaxInFlight,
		"max_sessions", s.cfg.MaxSessions, "auth", rc.Token != "", "cores", cores, "of", of)
	lw.flush()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	s.Drain()
	log.Info("shutting down", "shutdown_timeout", rc.ShutdownTimeout.String())
	lw.flush()
	sctx, cancel := context.WithTimeout(context.Background(), rc.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("requests still in flight at the shutdown timeout were cut", "error", err.Error())
		_ = hs.Close()
	}
	log.Info("stopped")
	return nil
}

// setCores sets the Go runtime's GOMAXPROCS for the server (RunConfig.Cores:
// cores when above 0; otherwise the GOMAXPROCS environment variable's when
// set, else serveconf.LocalCores for a local listener) and returns it with
// the value it had before (of), which Run restores when it returns.
func setCores(cores int, local bool) (n, of int) {
	of = runtime.GOMAXPROCS(0)
	switch {
	case cores > 0:
		n = cores
	case os.Getenv("GOMAXPROCS") != "" || !local:
		n = of
	default:
		n = serveconf.LocalCores(of)
	}
	runtime.GOMAXPROCS(n)
	return n, of
}

// loopbackAddr reports whether the host of a HOST:PORT is loopback.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && serveconf.LoopbackHost(host)
}

// ListenAddress parses a Listen value into a network ("unix" or "tcp")
// and an address; a TCP host that is not loopback is refused unless
// allowRemote and token are both true.
func ListenAddress(listen string, allowRemote, token bool) (network, addr string, err error) {
	if p, ok := strings.CutPrefix(listen, "unix:"); ok {
		if p == "" {
			return "", "", errors.New("--listen unix:PATH needs a PATH")
		}
		return "unix", p, nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", "", fmt.Errorf("--listen must be unix:PATH or HOST:PORT, not %q", listen)
	}
	if !serveconf.LoopbackHost(host) {
		if !allowRemote {
			return "", "", fmt.Errorf("--listen %s is not a loopback address: anyone who reaches it could use the server; give --allow-remote with --token-file, or listen on 127.0.0.1 or a Unix socket", listen)
		}
		if !token {
			return "", "", errors.New("--allow-remote needs --token-file: a server reachable from other hosts requires a bearer token")
		}
	}
	return "tcp", listen, nil
}

// listen opens the listener; a Unix socket is created owner-only (0600),
// replacing a stale socket file that nothing listens on.
func listen(network, addr string) (net.Listener, error) {
	if network != "unix" {
		return net.Listen(network, addr)
	}
	if fi, err := os.Lstat(addr); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", addr)
		}
		if c, err := net.DialTimeout("unix", addr, time.Second); err == nil {
			c.Close()
			return nil, errors.New("another server listens on " + addr)
		}
		if err := os.Remove(addr); err != nil {
			return nil, err
		}
	}
	ln, err := listenUnix(addr)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(addr, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// logFlushEvery is how long a log line may wait in the log's buffer.
const logFlushEvery = 100 * time.Millisecond

// logBuffer is the log's writer: lines gather in a buffer written out
// every logFlushEvery, when it is full, and when Run ends, so that a
// request costs no write system call of its own (at thousands of requests
// a second, one write per log line was a measured share of the server's
// CPU). A line reaches the log at most logFlushEvery late; a process
// killed outright loses at most that much.
type logBuffer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	done chan struct{}
	wg   sync.WaitGroup
}

func newLogBuffer(w io.Writer) *logBuffer {
	l := &logBuffer{w: bufio.NewWriterSize(w, 64<<10), done: make(chan struct{})}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(logFlushEvery)
		defer t.Stop()
		for {
			select {
			case <-l.done:
				return
			case <-t.C:
				l.flush()
			}
		}
	}()
	return l
}

// Write buffers p (one log line: slog writes each record at once).
func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *logBuffer) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Buffered() > 0 {
		_ = l.w.Flush()
	}
}

// stop ends the flushing goroutine and writes out what is buffered.
func (l *logBuffer) stop() {
	close(l.done)
	l.wg.Wait()
	l.flush()
}
