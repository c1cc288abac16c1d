package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// loadSecondsEnv sets the duration of TestServeLoad's load, in seconds
// (default loadSeconds: 32 clients for 20 s, as `make test` runs it). A
// quick run while editing the server:
//
//	AGENTLINT_LOAD_SECONDS=5 go test -tags devtools ./cmd/agentlint -run TestServeLoad
const loadSecondsEnv = "AGENTLINT_LOAD_SECONDS"

// loadSeconds is the default duration of TestServeLoad's load.
const loadSeconds = 20.0

// Bounds of TestServeLoad: the concurrent clients, the requests they send
// at most in all (the load also ends by itself after its duration), the
// server's limits.
const (
	loadClients     = 32
	loadMaxRequests = 2_000_000
	loadMaxBody     = 64 << 10
	loadMaxInFlight = 2 * loadClients
)

// TestServeLoad drives one `agentlint serve` on a Unix socket with 32
// concurrent clients validating an operator/assignment packet, injects
// faults while they run, and sends SIGTERM in the middle of the load. It
// asserts correctness, never speed (the figures are `make bench`'s):
//
//   - before SIGTERM every request is 200 with the envelope of the CLI,
//     byte for byte;
//   - every request that got an answer, after SIGTERM too, got the whole
//     body, a parseable envelope (no half-written body); the statuses
//     after SIGTERM are 200 or 503; a request that got no answer failed
//     only after SIGTERM, and only to dial the closed socket;
//   - the server's resident memory (VmRSS of its process, Linux) after the
//     warm-up and at the end of the load differ by at most 25% + 16 MiB;
//   - the faults get their documented answers while the load goes on: a
//     body over --max-body 413 (with Content-Length, without sending the
//     body; chunked, before the client stops sending); headers that never
//     end: the connection is closed after --read-header-timeout;
//     clients that hang up mid-body, twice as many as --max-in-flight
//     (their slots come back); malformed JSON 200 with a SCHEMA_INVALID
//     envelope; an unknown kind 404;
//   - the server exits 0.
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the load test runs for seconds")
	}
	seconds := loadSeconds
	if v := os.Getenv(loadSecondsEnv); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			t.Fatalf("%s=%q: want a positive number of seconds", loadSecondsEnv, v)
		}
		seconds = f
	}
	duration := time.Duration(seconds * float64(time.Second))
	s := startServe(t, "--max-in-flight", strconv.Itoa(loadMaxInFlight), "--max-body", strconv.Itoa(loadMaxBody),
		"--read-header-timeout", "1s", "--shutdown-timeout", "20s")
	payload, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "packets", "t12-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	const path = "/v1/validate?kind=operator/assignment"
	code, _, want := s.do(t, "POST", path, payload)
	if code != 200 || !strings.HasPrefix(want, `{"allow":true,"code":"OK"`) {
		t.Fatalf("reference answer: %d %s", code, want)
	}

	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", s.sock)
		},
		MaxIdleConnsPerHost: loadClients,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: waitLimit}

	var (
		draining atomic.Bool  // set just before SIGTERM
		sent     atomic.Int64 // requests started
		ok       atomic.Int64 // 200 with the reference body
		after    atomic.Int64 // answers after SIGTERM
		refused  atomic.Int64 // dials refused after SIGTERM
		mu       sync.Mutex
		problems []string
	)
	problem := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	// one sends one request; false when the client should stop.
	one := func() bool {
		if sent.Add(1) > loadMaxRequests {
			return false
		}
		req, err := http.NewRequest("POST", "http://agentlint"+path, bytes.NewReader(payload))
		if err != nil {
			problem("%v", err)
			return false
		}
		// Validation is idempotent: this lets the client send the request
		// again on a new connection when the server closes a kept-alive
		// one as the request goes out (the drain closes idle connections).
		req.Header.Set("Idempotency-Key", "validate")
		wasDraining := draining.Load()
		resp, err := client.Do(req)
		if err != nil {
			var op *net.OpError
			switch {
			case !draining.Load():
				problem("before SIGTERM: %v", err)
			case errors.As(err, &op) && op.Op == "dial":
				refused.Add(1) // the socket is closed: the server is gone
			default:
				problem("after SIGTERM, not a refused dial: %v", err)
			}
			return false
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if wasDraining || draining.Load() {
			after.Add(1)
		}
		if err != nil {
			problem("status %d: the body was cut: %v (%d bytes)", resp.StatusCode, err, len(body))
			return true
		}
		var env struct {
			Allow *bool  `json:"allow"`
			Code  string `json:"code"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Allow == nil || env.Code == "" {
			problem("status %d: not an envelope: %q", resp.StatusCode, body)
			return true
		}
		switch {
		case resp.StatusCode == 200 && string(body) == want:
			ok.Add(1)
		case resp.StatusCode == 503 && draining.Load():
		default:
			problem("status %d (draining %v): %s", resp.StatusCode, draining.Load(), body)
		}
		return true
	}
	var clients sync.WaitGroup
	for range loadClients {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for one() {
			}
		}()
	}

	warm := duration / 5
	time.Sleep(warm)
	rss0 := vmRSS(s.cmd.Process.Pid)
	okBefore := ok.Load()
	serveFaults(t, s, payload, want)
	if rest := duration - warm; rest > 0 {
		time.Sleep(rest) // may have passed during the faults: no sleep then
	}
	rss1 := vmRSS(s.cmd.Process.Pid)
	if ok.Load() == okBefore {
		t.Errorf("no request was served while the faults were injected")
	}
	draining.Store(true)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("the clients did not stop within %s of SIGTERM", waitLimit)
	}
	select {
	case <-s.exited:
	case <-time.After(waitLimit):
		t.Fatalf("no exit within %s of SIGTERM", waitLimit)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d clients, %s: %d requests sent, %d served with the CLI's envelope, %d answered after SIGTERM, %d refused after SIGTERM; VmRSS %d KiB after warm-up, %d KiB at the end",
		loadClients, duration, min(sent.Load(), loadMaxRequests), ok.Load(), after.Load(), refused.Load(), rss0, rss1)
	if ok.Load() == 0 {
		t.Error("no request was served")
	}
	if rss0 > 0 && rss1 > rss0+rss0/4+16<<10 {
		t.Errorf("the server's VmRSS grew under a steady load from %d KiB after the warm-up to %d KiB", rss0, rss1)
	}
}

// serveFaults injects the faults of TestServeLoad, one after the other,
// and checks each answer; want is the envelope of payload.
func serveFaults(t *testing.T, s *served, payload []byte, want string) {
	t.Helper()
	dial := func() net.Conn {
		c, err := net.Dial("unix", s.sock)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(waitLimit))
		return c
	}
	// answer reads one response from c and checks its status and envelope.
	answer := func(what string, c net.Conn, status int, code string) {
		t.Helper()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%s: no answer: %v", what, err)
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != status || !strings.HasPrefix(string(b), `{"allow":false,"code":"`+code+`"`) {
			t.Errorf("%s: %d %q (%v), want %d with a %s envelope", what, resp.StatusCode, b, err, status, code)
		}
	}
	const head = "POST /v1/validate?kind=operator/assignment HTTP/1.1\r\nHost: agentlint\r\n"

	// A body over --max-body announced by Content-Length: 413 before a
	// byte of it is sent (the server does not wait for the rest).
	c := dial()
	fmt.Fprintf(c, head+"Content-Length: %d\r\n\r\n", 100*loadMaxBody)
	answer("Content-Length over --max-body", c, 413, "MISSING_REQUIRED_INPUT")
	c.Close()

	// A chunked body that goes past --max-body and never ends: 413 once
	// the limit is passed.
	c = dial()
	fmt.Fprintf(c, head+"Transfer-Encoding: chunked\r\n\r\n")
	chunk := bytes.Repeat([]byte(" "), 16<<10)
	for range loadMaxBody/len(chunk) + 2 {
		fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk)
	}
	answer("chunked body over --max-body", c, 413, "MISSING_REQUIRED_INPUT")
	c.Close()

	// Headers that never end: the server closes the connection after
	// --read-header-timeout, without an answer.
	c = dial()
	io.WriteString(c, head+"Content-Type: application/json\r\n")
	if n, err := io.Copy(io.Discard, c); err != nil || n != 0 {
		t.Errorf("slow headers: %d bytes, %v; want the connection closed without an answer", n, err)
	}
	c.Close()

	// Clients that hang up in the middle of the body, more than
	// --max-in-flight of them: the server goes on serving the others, and
	// their in-flight slots come back (else every later request would be
	// 503).
	for range 2 * loadMaxInFlight {
		c = dial()
		fmt.Fprintf(c, head+"Content-Length: %d\r\n\r\n", len(payload))
		c.Write(payload[:len(payload)/2])
		c.Close()
	}
	code, _, body := s.do(t, "POST", "/v1/validate?kind=operator/assignment", payload)
	if code != 200 || body != want {
		t.Errorf("after clients hung up mid-body: %d %s", code, body)
	}

	// Malformed JSON is served: its verdict is SCHEMA_INVALID.
	code, _, body = s.do(t, "POST", "/v1/validate?kind=operator/assignment", []byte(`{"schema_version":`))
	if code != 200 || !strings.HasPrefix(body, `{"allow":false,"code":"SCHEMA_INVALID"`) {
		t.Errorf("malformed JSON: %d %s, want 200 with a SCHEMA_INVALID envelope", code, body)
	}
	// An unknown kind: 404.
	code, _, body = s.do(t, "POST", "/v1/validate?kind=operator/nothing", payload)
	if code != 404 || !strings.HasPrefix(body, `{"allow":false,"code":"MISSING_VALIDATOR"`) {
		t.Errorf("unknown kind: %d %s, want 404 with a MISSING_VALIDATOR envelope", code, body)
	}
}

// vmRSS is the resident memory of process pid in KiB (VmRSS of
// /proc/PID/status); 0 where there is no /proc.
func vmRSS(pid int) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
