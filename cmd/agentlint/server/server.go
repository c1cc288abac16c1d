// Package server is the HTTP/1.1 JSON service of `agentlint serve` (README,
// "Orchestrators: validate without a process per packet"): the validator
// envelope of seed 001 ("Contracts", "Validator Output Contract") for one
// payload, a JSON Lines log or a live log of records appended over many
// requests (a session), without one process per payload.
//
// The verdict is always the response body, the same envelope the CLI
// prints; the HTTP status says only whether the request was served:
//
//	200  served (the verdict may still deny)
//	400  malformed request (bad query parameter, bad session name, a kind
//	     that cannot be detected, a session of another kind)
//	401  missing or wrong bearer token (Config.Token)
//	404  unknown kind, session or path
//	405  wrong method for the path
//	413  body longer than Config.MaxBody (not read further)
//	500  the engine failed (not expected; the reason says how)
//	503  overloaded (Config.MaxInFlight requests in flight, or
//	     Config.MaxSessions sessions live), with Retry-After; or the
//	     per-request deadline passed (Config.RequestTimeout)
//
// Every non-200 body (but /readyz's {"status":"draining"}) is an envelope
// with allow false and code MISSING_REQUIRED_INPUT (MISSING_VALIDATOR for
// an unknown kind) whose reason says what to fix.
package server

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentlint/agentlint/cmd/agentlint/server/serveconf"
	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
)

// Defaults of Config (README, "Orchestrators: validate without a process
// per packet"): serveconf's, where the agentlint binary reads them too.
const (
	// DefaultMaxBody is the longest request body, in bytes (16 MiB).
	DefaultMaxBody = serveconf.DefaultMaxBody
	// DefaultMaxSessions is the number of live sessions at most.
	DefaultMaxSessions = serveconf.DefaultMaxSessions
	// DefaultSessionIdle is how long a session lives without a request.
	DefaultSessionIdle = serveconf.DefaultSessionIdle
	// DefaultRequestTimeout is the deadline of one request.
	DefaultRequestTimeout = serveconf.DefaultRequestTimeout
)

// Config configures a Server. Zero values take the defaults above;
// MaxInFlight defaults to 4.
type Config struct {
	// Options are the validators' options (strict mode, severities); a
	// zero Now is the current time of each request, as for `agentlint
	// validate`.
	Options record.Options
	// MaxBody is the longest request body in bytes; a longer one is 413.
	MaxBody int64
	// MaxInFlight is the number of validating requests served at once; one
	// more is 503 with Retry-After.
	MaxInFlight int
	// MaxSessions is the number of live sessions; a request that would
	// start one more is 503 with Retry-After.
	MaxSessions int
	// SessionIdle ends a session that received no request for that long
	// (its run-wide findings are dropped).
	SessionIdle time.Duration
	// RequestTimeout is the deadline of one request: past it the client
	// gets 503 (the work already started still finishes, and holds its
	// in-flight slot until then).
	RequestTimeout time.Duration
	// Token, when not empty, is the bearer token every request but
	// /healthz and /readyz must carry (Authorization: Bearer TOKEN).
	Token string
	// Logger receives one line per request (method, route, status, sizes,
	// duration); never a payload value, a session name or a secret. nil:
	// no log.
	Logger *slog.Logger
	// Now is the clock of session idleness; nil: time.Now.
	Now func() time.Time
}

// Server is the handler of `agentlint serve`. Create it with New, serve
// Handler, and call Close when done (it ends every session).
type Server struct {
	cfg      Config
	mux      *http.ServeMux
	handler  http.Handler
	slots    chan struct{}
	draining atomic.Bool

	mu       sync.Mutex
	sessions map[string]*session

	// validators are the reused validators of POST /v1/validate, by
	// strict (0: false, 1: true); each request sets its clock (SetNow).
	validators [2]sync.Pool
	// bodies are reused request bodies of POST /v1/validate (*[]byte of
	// at most pooledBody bytes' capacity): taken by body, given back by
	// validate once the envelope is written.
	bodies sync.Pool

	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	verdicts *prometheus.CounterVec
	byCode   sync.Map // envelope.Code -> prometheus.Counter of verdicts
	inflight prometheus.Gauge

	stop chan struct{}
	done chan struct{}
}

// session is one named live log.
type session struct {
	mu   sync.Mutex
	s    *lint.Session
	name string
	last time.Time // of the last request (Server.mu)
}

// New returns a Server with cfg (defaults filled in) and starts its
// idle-session sweeper.
func New(cfg Config) *Server {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 4
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), slots: make(chan struct{}, cfg.MaxInFlight),
		sessions: map[string]*session{}, stop: make(chan struct{}), done: make(chan struct{})}
	for i := range s.validators {
		o := s.cfg.Options
		o.Strict = i == 1
		s.validators[i].New = func() any { return record.NewValidator(o, nil) }
	}
	s.metrics()
	s.routes()
	s.handler = s.mux
	go s.sweeper()
	return s
}

// Handler returns the HTTP handler of every endpoint.
func (s *Server) Handler() http.Handler { return s.handler }

// Drain marks the server as shutting down: /readyz answers 503 from now on.
func (s *Server) Drain() { s.draining.Store(true) }

// Close stops the sweeper and ends every session (their findings are
// dropped). Requests still running may fail afterwards.
func (s *Server) Close() {
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, se := range s.sessions {
		se.mu.Lock()
		se.s.Close()
		se.mu.Unlock()
		delete(s.sessions, name)
	}
}

func (s *Server) metrics() {
	s.reg = prometheus.NewRegistry()
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentlint_http_requests_total",
		Help: "HTTP requests served, by route and status."}, []string{"route", "status"})
	s.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "agentlint_http_request_duration_seconds",
		Help: "Time to serve a request, by route.", Buckets: prometheus.ExponentialBuckets(0.0005, 4, 9)}, []string{"route"})
	s.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentlint_verdicts_total",
		Help: "Envelopes returned, by code (OK for an allowing one)."}, []string{"code"})
	s.inflight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "agentlint_http_in_flight_requests",
		Help: "Validating requests being served."})
	s.reg.MustRegister(s.requests, s.duration, s.verdicts, s.inflight)
	s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "agentlint_sessions",
		Help: "Live sessions."}, func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return float64(len(s.sessions))
	}))
	s.reg.MustRegister(sessionCollector{s})
}

// sessionCollector exports the size of each live session.
type sessionCollector struct{ s *Server }

var (
	sessionMemDesc = prometheus.NewDesc("agentlint_session_memory_bytes",
		"Estimated memory a live session retains (its cross-record rule state and buffers), by session.", []string{"session"}, nil)
	sessionLinesDesc = prometheus.NewDesc("agentlint_session_lines",
		"Lines a live session has received, by session.", []string{"session"}, nil)
)

func (c sessionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- sessionMemDesc
	ch <- sessionLinesDesc
}

func (c sessionCollector) Collect(ch chan<- prometheus.Metric) {
	c.s.mu.Lock()
	list := make([]*session, 0, len(c.s.sessions))
	for _, se := range c.s.sessions {
		list = append(list, se)
	}
	c.s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	for _, se := range list {
		se.mu.Lock()
		mem, lines := se.s.MemoryBytes(), se.s.Lines()
		se.mu.Unlock()
		ch <- prometheus.MustNewConstMetric(sessionMemDesc, prometheus.GaugeValue, float64(mem), se.name)
		ch <- prometheus.MustNewConstMetric(sessionLinesDesc, prometheus.GaugeValue, float64(lines), se.name)
	}
}

// routes registers every endpoint. Validating endpoints take an in-flight
// slot and run under the request deadline.
func (s *Server) routes() {
	work := func(pattern string, h http.HandlerFunc) {
		s.mux.Handle(pattern, s.wrap(pattern, true, true, h))
	}
	info := func(pattern string, auth bool, h http.HandlerFunc) {
		s.mux.Handle(pattern, s.wrap(pattern, auth, false, h))
	}
	work("POST /v1/validate", s.validate)
	work("POST /v1/lint", s.lint)
	work("POST /v1/replay", s.replay)
	work("POST /v1/sessions/{name}/records", s.records)
	work("DELETE /v1/sessions/{name}", s.endSession)
	info("GET /v1/kinds", true, s.kinds)
	info("GET /v1/rules", true, s.rules)
	info("GET /v1/schemas/{kind...}", true, s.schema)
	info("GET /healthz", false, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	info("GET /readyz", false, func(w http.ResponseWriter, _ *http.Request) {
		if s.draining.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
	})
	metrics := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
	info("GET /metrics", true, metrics.ServeHTTP)
	info("/", false, func(w http.ResponseWriter, r *http.Request) {
		if allow := s.methods(r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			fail(w, http.StatusMethodNotAllowed, envelope.MissingRequiredInput, r.Method+" is not served at this path; "+strings.Join(allow, ", ")+" is")
			return
		}
		fail(w, http.StatusNotFound, envelope.MissingRequiredInput, "no endpoint "+r.Method+" "+printable(r.URL.Path)+"; see GET /v1/kinds, POST /v1/validate?kind=K (README, \"Orchestrators: validate without a process per packet\")")
	})
}

// methods returns the methods served at r's path.
func (s *Server) methods(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			out = append(out, m)
		}
	}
	return out
}

// statusWriter remembers the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap returns the connection's writer (for http.ResponseController).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// wrap adds, around h: the log line and metrics of the request, the bearer
// token check (auth), and for validating endpoints (limit) the in-flight
// limit and the request deadline.
func (s *Server) wrap(route string, auth, limit bool, h http.HandlerFunc) http.Handler {
	var inner http.Handler = h
	if limit {
		limited := inner
		inner = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case s.slots <- struct{}{}:
			default:
				w.Header().Set("Retry-After", "1")
				fail(w, http.StatusServiceUnavailable, envelope.MissingRequiredInput,
					fmt.Sprintf("overloaded: %d requests in flight; retry after 1 s", cap(s.slots)))
				return
			}
			s.inflight.Inc()
			defer func() {
				s.inflight.Dec()
				<-s.slots
			}()
			limited.ServeHTTP(w, r)
		})
		inner = deadline(s.cfg.RequestTimeout,
			append(output.AppendEnvelope(nil, envelope.Envelope{Allow: false, Code: envelope.MissingRequiredInput,
				Reason: "the request took longer than the deadline of " + s.cfg.RequestTimeout.String() + "; its outcome is unknown"}), '\n'),
			inner)
	}
	// The route's series, resolved on first use (a series appears in
	// /metrics once it counts something), not hashed and looked up for
	// every request.
	ok200 := sync.OnceValue(func() prometheus.Counter { return s.requests.WithLabelValues(route, "200") })
	observe := sync.OnceValue(func() prometheus.Observer { return s.duration.WithLabelValues(route) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		body := &countingBody{ReadCloser: r.Body}
		r.Body = body
		if auth && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			fail(sw, http.StatusUnauthorized, envelope.MissingRequiredInput, "missing or wrong bearer token (Authorization: Bearer TOKEN)")
		} else {
			inner.ServeHTTP(sw, r)
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		if sw.status == http.StatusOK {
			ok200().Inc()
		} else {
			s.requests.WithLabelValues(route, strconv.Itoa(sw.status)).Inc()
		}
		observe().Observe(d.Seconds())
		if s.cfg.Logger != nil {
			// The record goes to the handler as Logger.LogAttrs would send
			// it, but without the caller's program counter, which nothing
			// prints (no AddSource) and which costs a stack walk a request.
			if h := s.cfg.Logger.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
				rec := slog.NewRecord(start.Add(d), slog.LevelInfo, "request", 0)
				rec.AddAttrs(slog.String("method", r.Method), slog.String("route", route), slog.Int("status", sw.status),
					slog.Int64("bytes_in", body.n), slog.Int64("bytes_out", sw.bytes), slog.Float64("ms", float64(d.Microseconds())/1000))
				_ = h.Handle(r.Context(), rec)
			}
		}
	})
}

func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) == 1
}

// countingBody counts the bytes read of a request body.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}

// body reads the whole request body, at most MaxBody bytes: a longer body
// answers 413 without reading the rest (the connection is then closed).
func (s *Server) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > s.cfg.MaxBody {
		s.tooLarge(w)
		return nil, false
	}
	rd := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	var data []byte
	var err error
	if n := r.ContentLength; n > 0 {
		// The length is known (and within MaxBody): one buffer of that
		// size, not the doublings of io.ReadAll. net/http ends the body
		// after n bytes.
		data = s.buffer(n)
		_, err = io.ReadFull(rd, data)
	} else {
		data, err = io.ReadAll(rd)
	}
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			s.tooLarge(w)
			return nil, false
		}
		fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "cannot read the request body: "+err.Error())
		return nil, false
	}
	return data, true
}

// pooledBody is the capacity, in bytes, of the largest body buffer kept
// for another request: a packet is a few kilobytes.
const pooledBody = 64 << 10

// buffer returns a buffer of n bytes for a request body: a reused one
// (Server.bodies) when one is large enough, else a new one.
func (s *Server) buffer(n int64) []byte {
	if n <= pooledBody {
		if p, _ := s.bodies.Get().(*[]byte); p != nil {
			if int64(cap(*p)) >= n {
				return (*p)[:n]
			}
		}
		return make([]byte, n, max(n, 4<<10))
	}
	return make([]byte, n)
}

// reuse gives back a body buffer (Server.buffer) that nothing reads any
// more.
func (s *Server) reuse(b []byte) {
	if c := cap(b); c > 0 && c <= pooledBody {
		s.bodies.Put(&b)
	}
}

func (s *Server) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	fail(w, http.StatusRequestEntityTooLarge, envelope.MissingRequiredInput,
		fmt.Sprintf("request body longer than the limit of %d bytes (agentlint serve --max-body)", s.cfg.MaxBody))
}

// options are the validator options of a request: the server's, with
// strict=true|false and now=RFC3339 from the query q.
func (s *Server) options(w http.ResponseWriter, q url.Values) (record.Options, bool) {
	o := s.cfg.Options
	if o.Now.IsZero() {
		o.Now = time.Now() // a runtime gate: time rules at the current time
	}
	if v := q.Get("strict"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "strict must be true or false")
			return o, false
		}
		o.Strict = b
	}
	if v := q.Get("now"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "now must be an RFC 3339 date-time")
			return o, false
		}
		o.Now = t
	}
	return o, true
}

// kindParam returns the kind of kind=K in the query q: nil when absent;
// an unknown kind answers 404.
func kindParam(w http.ResponseWriter, q url.Values) (*kind.Kind, bool) {
	name := q.Get("kind")
	if name == "" {
		return nil, true
	}
	k := kind.Lookup(name)
	if k == nil {
		fail(w, http.StatusNotFound, envelope.MissingValidator, "unknown kind "+strconv.Quote(name)+"; GET /v1/kinds lists them")
		return nil, false
	}
	return k, true
}

// request reads what POST /v1/validate and /v1/lint take: ?kind=K (nil
// when absent), the options of the query and the body; ok is false when the
// request was answered already (404, 400, 413).
func (s *Server) request(w http.ResponseWriter, r *http.Request) (*kind.Kind, record.Options, []byte, bool) {
	q := r.URL.Query() // parsed once
	k, ok := kindParam(w, q)
	if !ok {
		return nil, record.Options{}, nil, false
	}
	opts, ok := s.options(w, q)
	if !ok {
		return nil, opts, nil, false
	}
	data, ok := s.body(w, r)
	return k, opts, data, ok
}

// validate is POST /v1/validate?kind=K[&strict=true][&now=T]: the body is
// one payload, the answer its one envelope (as `agentlint validate -`).
func (s *Server) validate(w http.ResponseWriter, r *http.Request) {
	k, opts, data, ok := s.request(w, r)
	if !ok {
		return
	}
	if k == nil {
		k = kind.Sniff(data)
		if k == nil && len(bytes.TrimSpace(data)) > 0 {
			fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "cannot determine the kind of the payload from its top-level keys; name it with ?kind=K (GET /v1/kinds)")
			return
		}
	}
	// A validator of the pool (its decoder's buffers and per-kind plans are
	// reused, not made again for every request), at the request's clock. It
	// goes back once the envelope is written, so nothing of the answer can
	// still point into it.
	pool := &s.validators[0]
	if opts.Strict {
		pool = &s.validators[1]
	}
	v := pool.Get().(*record.Validator)
	v.SetNow(opts.Now)
	env := lint.ValidatePayloadWith(v, k, "-", data)
	s.verdict(env)
	writeEnvelopes(w, env)
	pool.Put(v)
	// The envelope is written (bytes of its own): the body may serve
	// another request.
	s.reuse(data)
}

// lint is POST /v1/lint?kind=K: the body is a JSON Lines log (or one
// document), linted as `agentlint lint --format json -`: the envelopes of
// denied or warned records, then the summary.
func (s *Server) lint(w http.ResponseWriter, r *http.Request) {
	k, opts, data, ok := s.request(w, r)
	if !ok {
		return
	}
	if k == nil {
		if k = kind.Sniff(data); k == nil {
			fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "cannot determine the kind of the log from its first record; name it with ?kind=K (GET /v1/kinds)")
			return
		}
	}
	var envs []envelope.Envelope
	st, err := lint.Lint(func(yield func(lint.Input) bool) {
		yield(lint.Input{Path: "-", Reader: bytes.NewReader(data), Kind: k})
	}, lint.LintConfig{Options: opts, Jobs: 1, Emit: func(e envelope.Envelope) error {
		envs = append(envs, e)
		return nil
	}})
	if err != nil {
		fail(w, http.StatusInternalServerError, envelope.MissingRequiredInput, "lint failed: "+err.Error())
		return
	}
	for _, e := range envs {
		s.verdict(e)
	}
	envs = append(envs, st.Summary())
	writeEnvelopes(w, envs...)
}

// sessionName is what a session may be called.
var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// records is POST /v1/sessions/{name}/records?kind=K: the body's lines are
// appended to the live log name (started by the first request, whose kind
// is ?kind=K or sniffed from its first line); the answer is one envelope
// per line, in order, as `agentlint validate --stream` prints them.
func (s *Server) records(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !sessionName.MatchString(name) {
		fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "a session name is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
		return
	}
	k, ok := kindParam(w, r.URL.Query())
	if !ok {
		return
	}
	data, ok := s.body(w, r)
	if !ok {
		return
	}
	se, status, reason := s.session(name, k)
	if se == nil {
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		fail(w, status, envelope.MissingRequiredInput, reason)
		return
	}
	defer se.mu.Unlock()
	if k != nil && se.s.Kind() != nil && se.s.Kind() != k {
		fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "the session holds "+se.s.Kind().Name+" records, not "+k.Name)
		return
	}
	var out []envelope.Envelope
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		e := se.s.Record(line)
		s.verdict(e)
		out = append(out, e)
	}
	writeEnvelopes(w, out...)
}

// session returns the live session name, locked (started with kind k when
// new), or nil with the status and reason of the refusal.
func (s *Server) session(name string, k *kind.Kind) (*session, int, string) {
	s.mu.Lock()
	now := s.cfg.Now()
	s.sweepLocked(now)
	se := s.sessions[name]
	if se == nil {
		if len(s.sessions) >= s.cfg.MaxSessions {
			s.mu.Unlock()
			return nil, http.StatusServiceUnavailable, fmt.Sprintf("%d sessions are live (agentlint serve --max-sessions); end one with DELETE /v1/sessions/{name}, or retry", s.cfg.MaxSessions)
		}
		kind := ""
		if k != nil {
			kind = k.Name
		}
		ls, err := lint.NewSession(kind, lint.SessionConfig{Options: s.cfg.Options, File: name})
		if err != nil {
			s.mu.Unlock()
			return nil, http.StatusBadRequest, err.Error()
		}
		se = &session{s: ls, name: name}
		s.sessions[name] = se
	}
	se.last = now
	s.mu.Unlock()
	se.mu.Lock()
	return se, 0, ""
}

// endSession is DELETE /v1/sessions/{name}: the session ends and the
// answer is its summary envelope, with the run-wide findings.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.mu.Lock()
	s.sweepLocked(s.cfg.Now())
	se := s.sessions[name]
	delete(s.sessions, name)
	s.mu.Unlock()
	if se == nil {
		fail(w, http.StatusNotFound, envelope.MissingRequiredInput, "no live session of that name (it was never started, ended, or idle longer than the idle timeout)")
		return
	}
	se.mu.Lock()
	env := se.s.Close()
	se.mu.Unlock()
	s.verdict(env)
	writeEnvelopes(w, env)
}

// sweepLocked ends the sessions idle for longer than SessionIdle (s.mu held).
func (s *Server) sweepLocked(now time.Time) {
	for name, se := range s.sessions {
		if now.Sub(se.last) > s.cfg.SessionIdle {
			delete(s.sessions, name)
			go func() {
				se.mu.Lock()
				se.s.Close()
				se.mu.Unlock()
			}()
		}
	}
}

// sweeper ends idle sessions now and then until Close.
func (s *Server) sweeper() {
	defer close(s.done)
	every := min(max(s.cfg.SessionIdle/4, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.sweepLocked(s.cfg.Now())
			s.mu.Unlock()
		}
	}
}

// kinds is GET /v1/kinds: the kinds, as `agentlint kinds --format json`
// prints them, in one JSON array.
func (s *Server) kinds(w http.ResponseWriter, _ *http.Request) {
	out := make([]map[string]any, 0, len(kind.All))
	for _, k := range kind.All {
		globs := k.Globs
		if globs == nil {
			globs = []string{}
		}
		out = append(out, map[string]any{"kind": k.Name, "seed": k.Seed, "format": k.Format, "globs": globs, "sniff": k.Sniff})
	}
	writeJSON(w, http.StatusOK, out)
}

// verdict counts an envelope returned.
func (s *Server) verdict(e envelope.Envelope) {
	if c, ok := s.byCode.Load(e.Code); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	c, _ := s.byCode.LoadOrStore(e.Code, s.verdicts.WithLabelValues(string(e.Code)))
	c.(prometheus.Counter).Inc()
}

// fail answers status with an envelope that denies with code and reason.
func fail(w http.ResponseWriter, status int, code envelope.Code, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(output.AppendEnvelope(nil, envelope.Envelope{Allow: false, Code: code, Reason: reason}), '\n'))
}

// writeEnvelopes answers 200 with the envelopes as JSON Lines (one JSON
// object for a single envelope, which is also one line).
func writeEnvelopes(w http.ResponseWriter, envs ...envelope.Envelope) {
	var b []byte
	for _, e := range envs {
		b = append(output.AppendEnvelope(b, e), '\n')
	}
	if len(envs) == 1 {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// printable quotes s for a message when it holds anything but printable
// ASCII (never a raw control character in output).
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return strconv.QuoteToASCII(s)
		}
	}
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
