package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
)

// These tests call the handler directly: no socket.

var demo = filepath.Join("..", "..", "..", "testdata", "demo")

func readDemo(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(demo, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (a answer) envelopes(t *testing.T) []envelope.Envelope {
	t.Helper()
	var out []envelope.Envelope
	for _, l := range strings.Split(strings.TrimSuffix(a.body, "\n"), "\n") {
		var e envelope.Envelope
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not an envelope: %q (%v)", l, err)
		}
		out = append(out, e)
	}
	return out
}

func do(s *Server, method, target string, body []byte, hdr ...string) answer {
	r := httptest.NewRequest(method, target, bytes.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return answer{status: w.Code, header: w.Header(), body: w.Body.String()}
}

func newTest(t *testing.T, cfg Config) *Server {
	s := New(cfg)
	t.Cleanup(s.Close)
	return s
}

func TestValidateStatuses(t *testing.T) {
	var logBuf bytes.Buffer
	s := newTest(t, Config{MaxBody: 4096, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	t12, t13 := readDemo(t, "packets/t12-assignment.json"), readDemo(t, "packets/t13-assignment.json")

	a := do(s, "POST", "/v1/validate?kind=operator/assignment", t12)
	if a.status != 200 || !strings.HasPrefix(a.body, `{"allow":true,"code":"OK","reason":"assignment packet valid"`) {
		t.Errorf("t12: %d %s", a.status, a.body)
	}
	// Denied is still served: 200, the verdict is the body.
	a = do(s, "POST", "/v1/validate", t13)
	if e := a.envelopes(t); a.status != 200 || len(e) != 1 || e[0].Allow || e[0].Code != envelope.SchemaInvalid || e[0].Details["line"] != 16.0 {
		t.Errorf("t13: %d %s", a.status, a.body)
	}
	for _, c := range []struct {
		name, target string
		body         []byte
		status       int
		code         envelope.Code
	}{
		{"unknown kind", "/v1/validate?kind=nope/nope", t12, 404, envelope.MissingValidator},
		{"bad strict", "/v1/validate?kind=operator/assignment&strict=maybe", t12, 400, envelope.MissingRequiredInput},
		{"bad now", "/v1/validate?kind=operator/assignment&now=yesterday", t12, 400, envelope.MissingRequiredInput},
		{"undetectable", "/v1/validate", []byte(`{"hello":"world"}`), 400, envelope.MissingRequiredInput},
		{"too large", "/v1/validate?kind=operator/assignment", bytes.Repeat([]byte(" "), 5000), 413, envelope.MissingRequiredInput},
		{"no endpoint", "/v2/validate", t12, 404, envelope.MissingRequiredInput},
	} {
		a := do(s, "POST", c.target, c.body)
		e := a.envelopes(t)
		if a.status != c.status || len(e) != 1 || e[0].Allow || e[0].Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, a.status, a.body, c.status, c.code)
		}
	}
	// Empty payload: served, SCHEMA_INVALID "empty payload", as validate.
	a = do(s, "POST", "/v1/validate?kind=operator/assignment", nil)
	if a.status != 200 || !strings.Contains(a.body, `"code":"SCHEMA_INVALID","reason":"empty payload"`) {
		t.Errorf("empty: %d %s", a.status, a.body)
	}
	if a := do(s, "GET", "/v1/validate", nil); a.status != 405 {
		t.Errorf("GET /v1/validate: %d", a.status)
	}
	// One log line per request; no payload value in any.
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	if len(lines) != 10 {
		t.Errorf("%d log lines for 10 requests:\n%s", len(lines), logBuf.String())
	}
	for _, bad := range []string{"Add endpoint tests", "T-12", "hello", "world"} {
		if strings.Contains(logBuf.String(), bad) {
			t.Errorf("the log holds the payload value %q:\n%s", bad, logBuf.String())
		}
	}
}

func TestOverloaded(t *testing.T) {
	s := newTest(t, Config{MaxInFlight: 2})
	s.slots <- struct{}{}
	s.slots <- struct{}{}
	a := do(s, "POST", "/v1/validate?kind=operator/assignment", readDemo(t, "packets/t12-assignment.json"))
	if a.status != 503 || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "overloaded") {
		t.Errorf("full: %d %v %s", a.status, a.header, a.body)
	}
	// Health and metrics are still served.
	if a := do(s, "GET", "/healthz", nil); a.status != 200 {
		t.Errorf("healthz: %d", a.status)
	}
	<-s.slots
	if a := do(s, "POST", "/v1/validate?kind=operator/assignment", readDemo(t, "packets/t12-assignment.json")); a.status != 200 {
		t.Errorf("a slot free: %d %s", a.status, a.body)
	}
}

const (
	ev1 = `{"version":"1.0.0","event_id":"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"lifecycle.started","timestamp":"2025-12-13T00:01:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"trace-abc","span_id":"span-001"}}`
	ev2 = `{"version":"1.0.0","event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","event_type":"activity.progress","timestamp":"2025-12-13T00:02:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-404"}}`
	ev3 = `{"version":"1.0.0","event_id":"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"activity.progress","timestamp":"2025-12-13T00:03:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"trace-abc","span_id":"span-003"}}`
)

func TestSessions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	s := newTest(t, Config{MaxSessions: 2, SessionIdle: time.Minute, Now: clock})

	a := do(s, "POST", "/v1/sessions/run-1/records?kind=collector/event", []byte(ev1+"\n"+ev2+"\n"))
	if e := a.envelopes(t); a.status != 200 || len(e) != 2 || !e[0].Allow || !e[1].Allow || e[1].Details["line"] != 2.0 {
		t.Fatalf("first batch: %d %s", a.status, a.body)
	}
	// The next request's record repeats line 1's event_id: the session
	// remembers it.
	a = do(s, "POST", "/v1/sessions/run-1/records", []byte(ev3))
	if e := a.envelopes(t); a.status != 200 || len(e) != 1 || e[0].Allow || e[0].Details["rule"] != "CL100" || e[0].Details["line"] != 3.0 {
		t.Fatalf("duplicate: %d %s", a.status, a.body)
	}
	// Another session does not see run-1's records.
	a = do(s, "POST", "/v1/sessions/run-2/records", []byte(ev3))
	if e := a.envelopes(t); a.status != 200 || !e[0].Allow {
		t.Fatalf("run-2: %d %s", a.status, a.body)
	}
	// Two live sessions: a third is refused for now.
	a = do(s, "POST", "/v1/sessions/run-3/records", []byte(ev1))
	if a.status != 503 || a.header.Get("Retry-After") == "" {
		t.Errorf("third session: %d %s", a.status, a.body)
	}
	for _, c := range []struct {
		target string
		status int
	}{
		{"/v1/sessions/run-1/records?kind=operator/worklog", 400},
		{"/v1/sessions/bad%20name/records", 400},
		{"/v1/sessions/run-1/records?kind=nope", 404},
	} {
		if a := do(s, "POST", c.target, []byte(ev1)); a.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.target, a.status, a.body, c.status)
		}
	}
	m := do(s, "GET", "/metrics", nil)
	if !strings.Contains(m.body, `agentlint_session_memory_bytes{session="run-1"}`) || !strings.Contains(m.body, "agentlint_sessions 2") ||
		!strings.Contains(m.body, `agentlint_session_lines{session="run-1"} 3`) {
		t.Errorf("metrics:\n%s", m.body)
	}
	// DELETE ends the session with its run-wide findings: span-404 is
	// nobody's span.
	a = do(s, "DELETE", "/v1/sessions/run-1", nil)
	e := a.envelopes(t)
	if a.status != 200 || len(e) != 1 || e[0].Details["records"] != 3.0 || !strings.Contains(a.body, `"rule":"CL101"`) || e[0].Allow {
		t.Errorf("end: %d %s", a.status, a.body)
	}
	if a := do(s, "DELETE", "/v1/sessions/run-1", nil); a.status != 404 {
		t.Errorf("ended twice: %d %s", a.status, a.body)
	}
	// Idle longer than SessionIdle: run-2 is gone.
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if a := do(s, "DELETE", "/v1/sessions/run-2", nil); a.status != 404 {
		t.Errorf("idle session: %d %s", a.status, a.body)
	}
}

func TestLintEndpoint(t *testing.T) {
	s := newTest(t, Config{})
	a := do(s, "POST", "/v1/lint?kind=collector/event", []byte(ev1+"\n"+ev3+"\n"))
	e := a.envelopes(t)
	if a.status != 200 || len(e) != 2 || e[0].Details["rule"] != "CL100" || e[1].Reason != "1 record denied" {
		t.Errorf("lint: %d %s", a.status, a.body)
	}
	if a := do(s, "POST", "/v1/lint", []byte("{}\n")); a.status != 400 {
		t.Errorf("undetectable log: %d %s", a.status, a.body)
	}
}

func TestInfoEndpoints(t *testing.T) {
	s := newTest(t, Config{Token: "s3cr3t-token"})
	if a := do(s, "GET", "/v1/kinds", nil); a.status != 401 || strings.Contains(a.body, "s3cr3t") {
		t.Errorf("no token: %d %s", a.status, a.body)
	}
	if a := do(s, "GET", "/v1/kinds", nil, "Authorization", "Bearer wrong"); a.status != 401 {
		t.Errorf("wrong token: %d", a.status)
	}
	auth := []string{"Authorization", "Bearer s3cr3t-token"}
	a := do(s, "GET", "/v1/kinds", nil, auth...)
	var kinds []map[string]any
	if err := json.Unmarshal([]byte(a.body), &kinds); err != nil || a.status != 200 || len(kinds) < 19 || kinds[0]["kind"] != "operator/assignment" {
		t.Errorf("kinds: %d %s", a.status, a.body)
	}
	a = do(s, "GET", "/v1/rules", nil, auth...)
	if a.status != 200 || !strings.Contains(a.body, `"id":"OP014"`) {
		t.Errorf("rules: %d", a.status)
	}
	a = do(s, "GET", "/v1/schemas/operator/assignment", nil, auth...)
	if a.status != 200 || !strings.Contains(a.body, `operator.assignment.schema.json"`) {
		t.Errorf("schema: %d %.200s", a.status, a.body)
	}
	if a := do(s, "GET", "/v1/schemas/nope", nil, auth...); a.status != 404 {
		t.Errorf("unknown schema: %d", a.status)
	}
	// Health needs no token.
	if a := do(s, "GET", "/healthz", nil); a.status != 200 {
		t.Errorf("healthz: %d", a.status)
	}
	if a := do(s, "GET", "/readyz", nil); a.status != 200 {
		t.Errorf("readyz: %d", a.status)
	}
	s.Drain()
	if a := do(s, "GET", "/readyz", nil); a.status != 503 {
		t.Errorf("readyz draining: %d", a.status)
	}
}

func TestReplayEndpoint(t *testing.T) {
	s := newTest(t, Config{})
	// JSON Lines ledger rows and one JSON Lines stream, as JSON strings.
	body := `{"ledger": "{\"task_id\": \"T-1\", \"title\": \"API\", \"status\": \"todo\", \"owner\": \"\", \"timeout_seconds\": 1200}\n{\"task_id\": \"T-2\", \"title\": \"Docs\", \"status\": \"todo\", \"owner\": \"\"}\n{\"task_id\": \"T-3\", \"title\": \"Tests\", \"status\": \"todo\", \"owner\": \"\", \"dependencies\": [\"T-1\"]}\n", "streams": ["{\"task_id\": \"T-1\", \"status\": \"in_progress\", \"owner\": \"agent-1\", \"reason\": \"assigned\", \"delta_id\": \"d-1\", \"last_heartbeat_at\": \"2026-02-14T19:50:00Z\"}\n{\"task_id\": \"T-2\", \"status\": \"blocked\", \"owner\": \"\", \"reason\": \"waiting for T-1\", \"delta_id\": \"d-2\"}\n\n{\"task_id\": \"T-1\", \"status\": \"done\", \"owner\": \"agent-1\", \"reason\": \"tests pass\", \"delta_id\": \"d-3\"}\n"]}`
	a := do(s, "POST", "/v1/replay", []byte(body))
	e := a.envelopes(t)
	if a.status != 200 || len(e) != 1 || !e[0].Allow || e[0].Details["applied"] != 3.0 || !strings.HasPrefix(e[0].Reason, "replayed 3 deltas from 1 stream onto 3 tasks") {
		t.Errorf("replay: %d %s", a.status, a.body)
	}
	if a := do(s, "POST", "/v1/replay", []byte(`{"ledger":1}`)); a.status != 400 {
		t.Errorf("malformed replay: %d %s", a.status, a.body)
	}
}

// TestSessionConcurrentAppends: requests appending to one session at once
// are applied one after the other; every line gets its own line number.
func TestSessionConcurrentAppends(t *testing.T) {
	s := newTest(t, Config{MaxInFlight: 8})
	const workers, per = 4, 25
	concurrently(t, workers, per, func(int, int) string {
		if a := do(s, "POST", "/v1/sessions/shared/records?kind=collector/event", []byte(ev2+"\n")); a.status != 200 {
			return a.body
		}
		return ""
	})
	a := do(s, "DELETE", "/v1/sessions/shared", nil)
	e := a.envelopes(t)
	// Every append after the first repeats ev2's event_id: CL100 each time.
	if e[0].Details["lines"] != float64(workers*per) || e[0].Details["denied"] != float64(workers*per-1) {
		t.Errorf("summary: %s", a.body)
	}
}

// TestRequestDeadline: a request still running at the deadline gets 503
// with an envelope, whole, at the deadline (over a real connection on
// 127.0.0.1: the handler itself still runs); its slot is held until its
// work ends.
func TestRequestDeadline(t *testing.T) {
	s := newTest(t, Config{RequestTimeout: 20 * time.Millisecond, MaxInFlight: 1})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	// A body that never ends: its length is announced, a part is sent, and
	// the connection stays open until the test closes it.
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, "POST /v1/validate?kind=operator/assignment HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"packet_type\":"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body) // whole while the handler still waits
	if err != nil || resp.StatusCode != 503 || !strings.Contains(string(body), `"reason":"the request took longer than the deadline of 20ms`) {
		t.Errorf("deadline: %d %s (%v)", resp.StatusCode, body, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deadline's answer took %s", d)
	}
	// The handler still waits for its body: its slot is taken.
	if len(s.slots) != 1 {
		t.Fatal("the late request does not hold its slot")
	}
	if a := do(s, "POST", "/v1/validate?kind=operator/assignment", readDemo(t, "packets/t12-assignment.json")); a.status != 503 || !strings.Contains(a.body, "overloaded") {
		t.Errorf("while the late request runs: %d %s", a.status, a.body)
	}
	conn.Close() // the body ends: the handler fails to read it and ends
	for deadline := time.Now().Add(10 * time.Second); len(s.slots) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the late request never gave its slot back")
		}
	}
	// A request within the deadline is answered as before.
	if a := do(s, "POST", "/v1/validate?kind=operator/assignment", readDemo(t, "packets/t12-assignment.json")); a.status != 200 {
		t.Errorf("after the late request: %d %s", a.status, a.body)
	}
}

// TestValidateReusedBodies: POST /v1/validate reuses its body buffers;
// requests of different lengths and verdicts, alternating from several
// clients at once, each get the verdict of their own body (a buffer given
// back too early, or sliced to the wrong length, would mix them up).
func TestValidateReusedBodies(t *testing.T) {
	s := newTest(t, Config{MaxInFlight: 16})
	allowed := readDemo(t, "packets/t12-assignment.json")
	// The same packet with an escaping lock resource and padding: longer,
	// and denied.
	denied := bytes.Replace(allowed, []byte(`"lock_scope": [`), []byte(`"lock_scope": ["../outside", `), 1)
	if bytes.Equal(denied, allowed) {
		t.Fatal("the packet has no lock_scope to change")
	}
	denied = append(denied, bytes.Repeat([]byte(" "), 3000)...)
	concurrently(t, 4, 50, func(w, i int) string {
		body, want := allowed, true
		if (i+w)%2 == 1 {
			body, want = denied, false
		}
		if a := do(s, "POST", "/v1/validate?kind=operator/assignment", body); a.status != 200 || strings.HasPrefix(a.body, `{"allow":true`) != want {
			return a.body
		}
		return ""
	})
}

// concurrently runs fn(w, i) for i < per on each of workers goroutines at
// once; each non-empty string fn returns is an error of the test.
func concurrently(t *testing.T, workers, per int, fn func(w, i int) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, workers*per)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if e := fn(w, i); e != "" {
					errs <- e
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
