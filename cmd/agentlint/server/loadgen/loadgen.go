// Package loadgen is the load client of the benchmarks of `agentlint
// serve` (cmd/agentlint/server/README.md, "Measured"): Conns clients, each with one
// kept-alive HTTP/1.1 connection over a Unix socket or a loopback TCP
// address, send the same request one at a time (never pipelined) and read
// each whole response before the next. The request is serialized once and
// a response is parsed only as far as its status and Content-Length, so
// the client costs a few microseconds of CPU per request: on a machine of
// two cores shared by the server and its clients, what it measures is the
// server, as wrk or h2load would, rather than net/http's client, which
// costs more CPU per request than the server's validation.
//
// It is a load generator, not an HTTP client: it understands only the
// responses of agentlint serve (a status line, headers with Content-Length,
// a body of that length; no chunked bodies, no 1xx responses).
package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Config is one load run.
type Config struct {
	// Network and Addr are where the server listens: "unix" and a socket
	// path, or "tcp" and a loopback HOST:PORT.
	Network, Addr string
	// Method, Path and Body make the request: e.g. POST,
	// "/v1/validate?kind=operator/assignment", a packet.
	Method, Path string
	Body         []byte
	// Conns is the number of concurrent clients, each with its own
	// connection; Requests the total number of requests, split evenly
	// among them (a remainder is not sent).
	Conns, Requests int
	// Check, when not nil, judges each answer (status, body): false counts
	// an error. nil: any 200 is correct.
	Check func(status int, body []byte) bool
	// Timeout bounds each request (dial, write and read); zero: 30 s.
	Timeout time.Duration
	// Rate, when above zero, paces the load at Rate requests per second in
	// all (an open load, as wrk2's constant throughput): client i sends its
	// k-th request at start + (k·Conns + i)/Rate, or at once when it is late,
	// and a latency counts from that intended time, so that a late answer
	// also delays what was due after it (no coordinated omission). Zero:
	// every client sends its next request as soon as the last is answered
	// (the server's highest throughput).
	Rate float64
}

// Result is what a load run measured.
type Result struct {
	// Requests answered (correct or not) and Errors among them or not
	// answered (a transport error, a status or body Check refused).
	Requests, Errors int
	// Wall is the time from the first request sent to the last answer.
	Wall time.Duration
	// Latencies holds every answered request's round trip, sorted.
	Latencies []time.Duration
	// FirstError describes the first error, "" without one.
	FirstError string
}

// PerSecond is answered requests per second of Wall.
func (r Result) PerSecond() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Wall.Seconds()
}

// Percentile returns the latency below which a fraction p (0 to 1) of the
// requests were answered; zero without any.
func (r Result) Percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(float64(len(r.Latencies))*p))]
}

// Run sends the load and returns what it measured. It fails only when cfg
// is unusable (no clients, no requests); connection and protocol errors
// are counted in Result.Errors, and a client whose connection broke dials
// again for its next request.
func Run(cfg Config) (Result, error) {
	if cfg.Conns <= 0 || cfg.Requests < cfg.Conns {
		return Result{}, fmt.Errorf("loadgen: %d requests over %d connections", cfg.Requests, cfg.Conns)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	req := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: agentlint\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		cfg.Method, cfg.Path, len(cfg.Body))
	req = append(req, cfg.Body...)
	per := cfg.Requests / cfg.Conns
	type out struct {
		lat    []time.Duration
		errors int
		first  string
	}
	outs := make([]out, cfg.Conns)
	var start time.Time // set before the gate opens
	var ready, wg sync.WaitGroup
	gate := make(chan struct{})
	ready.Add(cfg.Conns)
	for i := range cfg.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &outs[i]
			o.lat = make([]time.Duration, 0, per)
			c := &client{cfg: &cfg, req: req}
			defer c.close()
			_ = c.dial() // connect before the clock starts; a failure redials below
			ready.Done()
			<-gate
			for k := range per {
				t := time.Now()
				if cfg.Rate > 0 {
					t = start.Add(time.Duration(float64(k*cfg.Conns+i) / cfg.Rate * float64(time.Second)))
					if d := time.Until(t); d > 0 {
						time.Sleep(d)
					}
				}
				status, body, err := c.do()
				if err == nil {
					o.lat = append(o.lat, time.Since(t))
				}
				if err == nil && cfg.Check != nil && !cfg.Check(status, body) {
					err = fmt.Errorf("status %d, body %.200q", status, body)
				} else if err == nil && cfg.Check == nil && status != 200 {
					err = fmt.Errorf("status %d", status)
				}
				if err != nil {
					o.errors++
					if o.first == "" {
						o.first = err.Error()
					}
				}
			}
		}()
	}
	ready.Wait()
	start = time.Now()
	close(gate)
	wg.Wait()
	r := Result{Wall: time.Since(start)}
	for _, o := range outs {
		r.Requests += len(o.lat)
		r.Errors += o.errors
		r.Latencies = append(r.Latencies, o.lat...)
		if r.FirstError == "" {
			r.FirstError = o.first
		}
	}
	slices.Sort(r.Latencies)
	return r, nil
}

// client is one connection and its reader.
type client struct {
	cfg  *Config
	req  []byte
	conn net.Conn
	br   *bufio.Reader
	body []byte
}

func (c *client) dial() error {
	conn, err := net.DialTimeout(c.cfg.Network, c.cfg.Addr, c.cfg.Timeout)
	if err != nil {
		return err
	}
	c.conn = conn
	if c.br == nil {
		c.br = bufio.NewReaderSize(conn, 16<<10)
	} else {
		c.br.Reset(conn)
	}
	return nil
}

func (c *client) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// do sends the request and reads its response; on any error the
// connection is closed (the next request dials again).
func (c *client) do() (int, []byte, error) {
	if c.conn == nil {
		if err := c.dial(); err != nil {
			return 0, nil, err
		}
	}
	status, body, err := c.roundTrip()
	if err != nil {
		c.close()
	}
	return status, body, err
}

var errNoLength = errors.New("loadgen: a response without Content-Length")

func (c *client) roundTrip() (int, []byte, error) {
	_ = c.conn.SetDeadline(time.Now().Add(c.cfg.Timeout))
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, nil, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, nil, fmt.Errorf("loadgen: bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, fmt.Errorf("loadgen: bad status line %q", line)
	}
	length, closeAfter := -1, false
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, nil, fmt.Errorf("loadgen: bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			closeAfter = true
		}
	}
	if length < 0 {
		return 0, nil, errNoLength
	}
	c.body = slices.Grow(c.body[:0], length)[:length]
	if _, err := io.ReadFull(c.br, c.body); err != nil {
		return 0, nil, err
	}
	if closeAfter {
		c.close()
	}
	return status, c.body, nil
}
