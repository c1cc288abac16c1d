package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// deadline answers 503 with body (an envelope) when h has not answered
// within d; h still runs to its end (holding its in-flight slot), and its
// own answer is then dropped. Unlike http.TimeoutHandler it runs h on the
// connection's goroutine: no goroutine, context and timer are made per
// request (a measured share of a validation's cost; cmd/agentlint/server/README.md,
// "Measured"), only a pooled answer buffer and its timer are reused. h's
// answer is buffered until it returns, so that the deadline's may be
// written instead in the meantime, from the timer's goroutine, with
// Content-Length (the client has it whole at once) and Connection: close
// (the connection is busy until h ends). The log line and metrics of a
// late request are written when h ends.
func deadline(d time.Duration, body []byte, h http.Handler) http.Handler {
	pool := sync.Pool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw, _ := pool.Get().(*deadlineWriter)
		if dw == nil {
			dw = &deadlineWriter{header: http.Header{}, late: body}
			dw.timer = time.AfterFunc(time.Hour, dw.fire)
			dw.timer.Stop()
		}
		dw.mu.Lock()
		dw.w = w
		dw.mu.Unlock()
		dw.timer.Reset(d)
		h.ServeHTTP(dw, r)
		stopped := dw.timer.Stop()
		dw.commit()
		if stopped {
			// The timer never fired and never will: dw may serve another
			// request. (One that fired keeps its late answer's writer.)
			dw.reset()
			pool.Put(dw)
		}
	})
}

// deadlineWriter buffers a handler's answer (see deadline).
type deadlineWriter struct {
	header http.Header // the handler's, alone
	status int
	body   []byte
	late   []byte // the deadline's answer
	timer  *time.Timer

	mu    sync.Mutex // w, done, fired
	w     http.ResponseWriter
	done  bool // the handler's answer was written
	fired bool // the deadline's answer was written
}

// Header implements http.ResponseWriter.
func (d *deadlineWriter) Header() http.Header { return d.header }

// WriteHeader implements http.ResponseWriter.
func (d *deadlineWriter) WriteHeader(code int) {
	if d.status == 0 {
		d.status = code
	}
}

// Write implements http.ResponseWriter.
func (d *deadlineWriter) Write(b []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	d.body = append(d.body, b...)
	return len(b), nil
}

// fire writes the deadline's answer, unless the handler's was written.
func (d *deadlineWriter) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done || d.w == nil {
		return
	}
	d.fired = true
	h := d.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(d.late)))
	h.Set("Connection", "close")
	d.w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = d.w.Write(d.late)
	_ = http.NewResponseController(d.w).Flush()
}

// commit writes the handler's answer, unless the deadline's was written.
func (d *deadlineWriter) commit() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.done = true
	if d.fired {
		return
	}
	dst := d.w.Header()
	for k, v := range d.header {
		dst[k] = v
	}
	if d.status == 0 {
		d.status = http.StatusOK
	}
	d.w.WriteHeader(d.status)
	if len(d.body) > 0 {
		_, _ = d.w.Write(d.body)
	}
}

// reset empties d for the next request (its timer stopped).
func (d *deadlineWriter) reset() {
	clear(d.header)
	if cap(d.body) > 64<<10 {
		d.body = nil // a large answer's buffer is not kept
	}
	d.status, d.body = 0, d.body[:0]
	d.w, d.done, d.fired = nil, false, false
}
