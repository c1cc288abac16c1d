package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait of these tests on another process; reaching
// it fails the test (a hang), it is never a measurement.
const waitLimit = 60 * time.Second

// lockedBuffer is a bytes.Buffer safe for a writer process and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// readLines delivers the lines of r on a channel, so that a test can
// wait for one with a limit.
// startCoprocess starts `agentlint ARGS...` as a co-process: its standard
// input to write, and its output lines as they come. The process is killed
// at the end of the test.
func startCoprocess(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, <-chan string) {
	t.Helper()
	cmd := exec.Command("agentlint", args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, stdin, readLines(stdout)
}

func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				ch <- l
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func nextLine(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatalf("%s: output ended", what)
		}
		return l
	case <-time.After(waitLimit):
		t.Fatalf("%s: no line within %s (does the co-process wait for more input?)", what, waitLimit)
	}
	return ""
}

const (
	coEv1 = `{"version":"1.0.0","event_id":"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"lifecycle.started","timestamp":"2025-12-13T00:01:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"trace-abc","span_id":"span-001"}}`
	coEv2 = `{"version":"1.0.0","event_id":"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"activity.progress","timestamp":"2025-12-13T00:02:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-404"}}`
)

// TestValidateStreamCoprocess drives `agentlint validate --stream` as an
// orchestrator would: it writes one line, reads that line's envelope while
// the pipe stays open, and only then writes the next.
func TestValidateStreamCoprocess(t *testing.T) {
	cmd, stdin, lines := startCoprocess(t, "validate", "--stream", "--kind", "collector/event")
	for i, c := range []struct {
		in, want string
	}{
		{coEv1, `{"allow":true,"code":"OK","reason":"collector event valid","details":{"file":"-","kind":"collector/event","line":1}}`},
		{"", `{"allow":true,"code":"OK","reason":"blank line skipped","details":{"file":"-","kind":"collector/event","line":2}}`},
		{coEv2, `{"allow":false,"code":"LEDGER_INCONSISTENT","reason":"event_id \"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d\" was already used on line 1`},
		{`{"version":`, `{"allow":false,"code":"SCHEMA_INVALID","reason":"invalid JSON`},
	} {
		if _, err := io.WriteString(stdin, c.in+"\n"); err != nil {
			t.Fatal(err)
		}
		got := nextLine(t, lines, fmt.Sprintf("line %d", i+1))
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("line %d: got %s\nwant %s...", i+1, got, c.want)
		}
	}
	stdin.Close()
	sum := nextLine(t, lines, "summary")
	var e map[string]any
	if err := json.Unmarshal([]byte(sum), &e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum, `"rule":"CL101"`) || e["allow"] != false || e["reason"] != "2 records denied" {
		t.Errorf("summary: %s", sum)
	}
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit status %d (%v), want 1", cmd.ProcessState.ExitCode(), err)
	}
}

// served is a running `agentlint serve` on a Unix socket.
type served struct {
	cmd    *exec.Cmd
	sock   string
	stderr *lockedBuffer
	client *http.Client
	exited chan struct{} // closed when the process has exited
}

// startServe runs `agentlint serve --listen unix:SOCK ARGS...` and waits
// until it answers /healthz. It is stopped with SIGTERM at the end of the
// test.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	dir, err := os.MkdirTemp("", "al") // short: a socket path is limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &served{sock: filepath.Join(dir, "s.sock"), stderr: &lockedBuffer{}}
	s.cmd = exec.Command("agentlint", append([]string{"serve", "--listen", "unix:" + s.sock}, args...)...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func() {
		_ = s.cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(waitLimit):
			_ = s.cmd.Process.Kill()
			t.Errorf("the server did not stop on SIGTERM within %s", waitLimit)
		}
	})
	s.client = &http.Client{Timeout: waitLimit, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", s.sock)
		}}}
	deadline := time.Now().Add(waitLimit)
	for {
		resp, err := s.client.Get("http://agentlint/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("agentlint serve exited: %s", s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentlint serve did not answer within %s: %s", waitLimit, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

func (s *served) do(t *testing.T, method, path string, body []byte) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://agentlint"+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// TestServe runs agentlint serve (handed over to agentlint-serve) on a
// Unix socket: owner-only, the same envelopes as the CLI, the statuses.
func TestServe(t *testing.T) {
	s := startServe(t, "--max-body", "65536")
	fi, err := os.Stat(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	payload, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "packets", "t13-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The body is byte-identical to `agentlint validate --kind K -`.
	cli := exec.Command("agentlint", "validate", "--format", "json", "--kind", "operator/assignment", "-")
	cli.Stdin = bytes.NewReader(payload)
	want, _ := cli.Output()
	code, _, body := s.do(t, "POST", "/v1/validate?kind=operator/assignment", payload)
	if code != 200 || body != string(want) || !strings.Contains(body, `"code":"SCHEMA_INVALID"`) {
		t.Errorf("validate: %d\n%s\nwant\n%s", code, body, want)
	}
	for _, c := range []struct {
		method, path string
		body         []byte
		status       int
	}{
		{"POST", "/v1/validate?kind=nope/nope", payload, 404},
		{"POST", "/v1/validate?strict=perhaps", payload, 400},
		{"POST", "/v1/validate?kind=operator/assignment", bytes.Repeat([]byte(" "), 70000), 413},
		{"DELETE", "/v1/sessions/never", nil, 404},
		{"GET", "/readyz", nil, 200},
	} {
		if code, _, body := s.do(t, c.method, c.path, c.body); code != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, code, body, c.status)
		}
	}
	// A session over two requests, then its end.
	code, _, body = s.do(t, "POST", "/v1/sessions/orchestrator-7/records?kind=collector/event", []byte(coEv1+"\n"))
	if code != 200 || !strings.HasPrefix(body, `{"allow":true`) {
		t.Errorf("session: %d %s", code, body)
	}
	code, _, body = s.do(t, "POST", "/v1/sessions/orchestrator-7/records", []byte(coEv2+"\n"))
	if code != 200 || !strings.Contains(body, `"rule":"CL100"`) {
		t.Errorf("session duplicate: %d %s", code, body)
	}
	_, _, metrics := s.do(t, "GET", "/metrics", nil)
	if !strings.Contains(metrics, `agentlint_session_memory_bytes{session="orchestrator-7"}`) ||
		!strings.Contains(metrics, `agentlint_http_requests_total{route="POST /v1/validate",status="413"} 1`) {
		t.Errorf("metrics:\n%s", metrics)
	}
	code, _, body = s.do(t, "DELETE", "/v1/sessions/orchestrator-7", nil)
	if code != 200 || !strings.Contains(body, `"rule":"CL101"`) {
		t.Errorf("end: %d %s", code, body)
	}
	// The log: one line per request, and neither payload values nor the
	// session's name.
	// 11 requests: the /healthz that found the server up, then 10. A
	// request's line is written once its answer is sent: wait for it.
	log := s.stderr.String()
	for deadline := time.Now().Add(waitLimit); strings.Count(log, "msg=request ") < 11 && time.Now().Before(deadline); log = s.stderr.String() {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(log, "msg=request "); n != 11 {
		t.Errorf("%d request log lines for 11 requests:\n%s", n, log)
	}
	for _, v := range []string{"T-13", "orchestrator-7", "0b0e4f5e", "@pm-agent"} {
		if strings.Contains(log, v) {
			t.Errorf("the log holds %q:\n%s", v, log)
		}
	}
}

// TestServeDrain: SIGTERM while a request is in flight (its body half
// sent) stops accepting, lets that request finish with its verdict, and
// exits 0.
func TestServeDrain(t *testing.T) {
	s := startServe(t)
	payload, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "packets", "t12-assignment.json"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	half := len(payload) / 2
	fmt.Fprintf(conn, "POST /v1/validate?kind=operator/assignment HTTP/1.1\r\nHost: agentlint\r\nContent-Length: %d\r\n\r\n", len(payload))
	if _, err := conn.Write(payload[:half]); err != nil {
		t.Fatal(err)
	}
	// In flight once the handler waits for the rest of the body.
	deadline := time.Now().Add(waitLimit)
	for {
		_, _, m := s.do(t, "GET", "/metrics", nil)
		if strings.Contains(m, "agentlint_http_in_flight_requests 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request never got in flight:\n%s", m)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// No new connection is accepted once the server drains.
	for {
		c, err := net.Dial("unix", s.sock)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := conn.Write(payload[half:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), `{"allow":true,"code":"OK"`) {
		t.Errorf("the request in flight: %d %s", resp.StatusCode, b)
	}
	select {
	case <-s.exited:
	case <-time.After(waitLimit):
		t.Fatalf("no exit within %s after the drain", waitLimit)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0:\n%s", code, s.stderr.String())
	}
	if log := s.stderr.String(); !strings.Contains(log, `msg="shutting down"`) || !strings.Contains(log, "msg=stopped") {
		t.Errorf("log:\n%s", log)
	}
}
