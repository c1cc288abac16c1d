//go:build devtools

package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentlint/agentlint/cmd/agentlint/server/loadgen"
)

// Sizes of the orchestrator benchmark (flags -orch-*).
var (
	orchProcs   int
	orchStream  int
	orchServe   int
	orchServeGo int
	orchClients int
)

// orchestratorPy is the Python orchestrator that measures the three ways
// of validating a packet (process per packet, co-process, serve).
//
//go:embed orchestrator.py
var orchestratorPy []byte

// orchPacket is the packet every way validates: an allowed
// operator/assignment.
const orchPacket = "testdata/demo/packets/t12-assignment.json"

// orchResult is one way's figures, as orchestrator.py prints them.
type orchResult struct {
	Way     string  `json:"way"`
	N       int     `json:"n"`
	Seconds float64 `json:"seconds"`
	PerS    float64 `json:"per_s"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	Errors  int     `json:"errors"`
	Note    string  `json:"note"`
}

// orchestratorBench measures, per operator/assignment packet and in one
// run, what an orchestrator written in Python pays to validate it with
// agentlint: (a) one `agentlint validate` process per packet, (b) the
// `validate --stream` co-process (lockstep: write a line, read a line; and
// pipelined: one thread writes, one reads), (c) `agentlint serve` on a
// Unix socket with orchClients Python threads (http.client over AF_UNIX,
// one kept-alive connection each), then the same server load from
// orchClients Go clients of cmd/agentlint/server/loadgen, which shows what the
// server does when the client is not the bottleneck. It prints
// throughput, p50/p99 latency and errors of each, the ratios to (a), and
// each bar as a ratio to (a) with whether it is met (printBars). Without
// python3 on PATH it prints why and measures the co-process reading a file
// and the Go clients only.
func orchestratorBench(bin, dir string) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs + "-serve"); err != nil {
		return fmt.Errorf("%s-serve: %v (run make build first: agentlint serve hands over to it)", abs, err)
	}
	fmt.Printf("orchestrator: validating %s (allowed), %s, %d CPUs\n", orchPacket, time.Now().UTC().Format(time.RFC3339), runtime.NumCPU())
	fmt.Printf("bars: co-process >= %d packets/s one way through; serve >= %d validations/s with %d clients, p99 <= %g ms, 0 errors; both >= %dx process per packet\n",
		barStream, barServe, barClients, barP99ms, barTimes)
	fmt.Printf("%-18s %8s %9s %12s %9s %9s %7s %9s  %s\n", "way", "packets", "seconds", "packets/s", "p50 ms", "p99 ms", "errors", "x (a)", "how")
	var results []orchResult
	py, err := exec.LookPath("python3")
	if err != nil {
		fmt.Println("python3 not found on PATH: the Python orchestrator (process per packet, co-process, serve from Python) is not measured")
	} else {
		script := filepath.Join(dir, "orchestrator.py")
		if err := os.WriteFile(script, orchestratorPy, 0o644); err != nil {
			return err
		}
		cmd := exec.Command(py, script, abs, orchPacket, fmt.Sprint(orchProcs), fmt.Sprint(orchStream), fmt.Sprint(orchServe), fmt.Sprint(orchClients))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var r orchResult
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return fmt.Errorf("orchestrator.py printed %q: %v", sc.Text(), err)
			}
			results = append(results, r)
			printOrch(r, results)
		}
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("orchestrator.py: %v", err)
		}
	}
	if orchStream > 0 {
		r, err := streamFile(abs, dir)
		if err != nil {
			return err
		}
		results = append(results, r)
		printOrch(r, results)
	}
	if orchServeGo > 0 {
		for _, c := range []struct {
			rate  float64
			cores int
			tcp   bool
		}{{0, 0, false}, {barServe, 0, false}, {0, runtime.NumCPU(), false}, {0, 0, true}} {
			r, err := serveGo(abs, dir, c.rate, c.cores, c.tcp)
			if err != nil {
				return err
			}
			results = append(results, r)
			printOrch(r, results)
		}
	}
	fmt.Println("x (a): packets/s divided by those of (a) process, measured above in the same run")
	printBars(results)
	return nil
}

// The bars of the orchestrator benchmark (cmd/agentlint/server/README.md,
// "Measured"), on a machine of two cores.
const (
	barStream  = 100_000 // co-process packets/s, one way through
	barServe   = 20_000  // serve validations/s
	barClients = 32      // concurrent clients of serve
	barP99ms   = 5.0     // serve's p99 latency
	barTimes   = 50      // both, against one process per packet
)

// printBars prints each bar as a ratio to the process per packet of the
// same run, what was measured against it, and whether it is met. The
// co-process's figure is the pipelined Python client's (one thread writes,
// one reads: one way through), or without python3 the co-process reading a
// file; serve's is the Go load clients' (loadgen: the server's throughput,
// not a client's).
func printBars(results []orchResult) {
	find := func(ways ...string) *orchResult {
		for _, w := range ways {
			for i := range results {
				if results[i].Way == w {
					return &results[i]
				}
			}
		}
		return nil
	}
	proc := find("process")
	times := func(perS float64) string {
		if proc == nil || proc.PerS <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.0fx (a)", perS/proc.PerS)
	}
	met := func(ok bool) string {
		if ok {
			return "MET"
		}
		return "NOT MET"
	}
	if r := find("stream-pipelined", "stream-file"); r != nil {
		fmt.Printf("bar co-process (%s): %.0f packets/s = %s against a bar of %d = %s: %.2f of the bar, %s; >= %dx (a): %s\n",
			r.Way, r.PerS, times(r.PerS), barStream, times(barStream), r.PerS/barStream, met(r.PerS >= barStream && r.Errors == 0),
			barTimes, met(proc != nil && r.PerS >= barTimes*proc.PerS))
	}
	if r := find("serve-go-paced"); r != nil {
		ok := r.PerS >= 0.98*barServe && r.P99ms <= barP99ms && r.Errors == 0 && orchClients >= barClients
		fmt.Printf("bar serve at its rate (%s, %d clients paced at %d/s in all): %.0f validations/s answered, p99 %.2f ms (bar %g); %d errors: %s\n",
			r.Way, orchClients, barServe, r.PerS, r.P99ms, barP99ms, r.Errors, met(ok))
	}
	if r := find("serve-go"); r != nil {
		ok := r.PerS >= barServe && r.P99ms <= barP99ms && r.Errors == 0 && orchClients >= barClients
		fmt.Printf("bar serve (%s, %d clients): %.0f validations/s = %s against a bar of %d = %s: %.2f of the bar; p99 %.2f ms (bar %g); %d errors: %s; >= %dx (a): %s\n",
			r.Way, orchClients, r.PerS, times(r.PerS), barServe, times(barServe), r.PerS/barServe, r.P99ms, barP99ms, r.Errors, met(ok),
			barTimes, met(proc != nil && r.PerS >= barTimes*proc.PerS))
	}
	if r := find("serve-go-tcp"); r != nil {
		ok := r.PerS >= barServe && r.P99ms <= barP99ms && r.Errors == 0 && orchClients >= barClients
		fmt.Printf("bar serve on TCP loopback (%s, %d clients, 127.0.0.1): %.0f validations/s, %.2f of the bar; p99 %.2f ms (bar %g); %d errors: %s\n",
			r.Way, orchClients, r.PerS, r.PerS/barServe, r.P99ms, barP99ms, r.Errors, met(ok))
	}
	if r := find(fmt.Sprintf("serve-go-cores%d", runtime.NumCPU())); r != nil {
		ok := r.PerS >= barServe && r.P99ms <= barP99ms && r.Errors == 0 && orchClients >= barClients
		fmt.Printf("  the same with the server on every core (--cores %d, none left to the clients; not the default on a Unix socket): %.0f validations/s, p99 %.2f ms, %d errors: the bar's figures %s\n",
			runtime.NumCPU(), r.PerS, r.P99ms, r.Errors, met(ok))
	}
}

// printOrch prints one row, with its ratio to the process-per-packet row.
func printOrch(r orchResult, all []orchResult) {
	ratio := "-"
	for _, a := range all {
		if a.Way == "process" && a.PerS > 0 && r.Way != "process" {
			ratio = fmt.Sprintf("%.0fx", r.PerS/a.PerS)
		}
	}
	lat := func(v float64) string {
		if r.Way == "stream-pipelined" || r.Way == "stream-file" {
			return "-"
		}
		return fmt.Sprintf("%.3f", v)
	}
	fmt.Printf("%-18s %8d %9.3f %12.0f %9s %9s %7d %9s  %s\n", r.Way, r.N, r.Seconds, r.PerS, lat(r.P50ms), lat(r.P99ms), r.Errors, ratio, r.Note)
}

// streamFile times `agentlint validate --stream` reading orchStream
// packets, one per line, from a file and writing to a pipe this harness
// drains: the co-process's own throughput, without a client in the loop
// (faster of two runs), and its CPU time (user and system) per packet.
func streamFile(bin, dir string) (orchResult, error) {
	r := orchResult{Way: "stream-file", N: orchStream, Note: "agentlint validate --stream FILE, no client: the co-process's own ceiling"}
	data, err := os.ReadFile(orchPacket)
	if err != nil {
		return r, err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, data); err != nil {
		return r, err
	}
	line.WriteByte('\n')
	path := filepath.Join(dir, "orch-packets.jsonl")
	if err := os.WriteFile(path, bytes.Repeat(line.Bytes(), orchStream), 0o644); err != nil {
		return r, err
	}
	defer os.Remove(path)
	for i := range 2 {
		var out lastLine
		cmd := exec.Command(bin, "validate", "--stream", "--kind", "operator/assignment", path)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return r, fmt.Errorf("%s: %v", cmd, err)
		}
		wall := time.Since(start)
		if i > 0 && wall.Seconds() >= r.Seconds {
			continue
		}
		r.Seconds = wall.Seconds()
		r.PerS = float64(r.N) / r.Seconds
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		r.Note = fmt.Sprintf("agentlint validate --stream FILE, no client: the co-process's own ceiling; CPU %.1f µs/packet", float64(cpu.Microseconds())/float64(r.N))
		r.Errors = 0
		if !bytes.Contains(out.line(), []byte(`"allow":true`)) {
			r.Errors = 1 // the summary does not allow: some packet was denied
		}
	}
	return r, nil
}

// serveGo starts `agentlint serve` on a Unix socket and sends orchServeGo
// validations from orchClients clients of cmd/agentlint/server/loadgen
// (rate 0: each sends its next request when the last is answered, the
// server's highest throughput, row serve-go; rate > 0: paced at rate
// requests/s in all, latencies from each request's intended time, row
// serve-go-paced: the latency at the bar's throughput), each over
// its own kept-alive connection, one request at a time. loadgen sends a
// request serialized once and reads only the status and Content-Length of
// the answer (a few microseconds of CPU a request, where Go's net/http
// client took more CPU per request than the server's validation, on the
// same two cores): the row measures the server. An error is a transport
// error, a status other than 200 or an envelope that does not allow. The
// note gives the server's CPU time per validation (Linux: /proc). The
// clients run on one thread (GOMAXPROCS 1) while they load the server.
// The server runs on the cores serve chooses for a Unix socket (all but
// one: the clients share the machine); cores > 0 runs it with --cores
// cores instead (row serve-go-coresN, every core: what serve did before it
// left one to its local clients; no bar is read from that row).
func serveGo(bin, dir string, rate float64, cores int, tcp bool) (orchResult, error) {
	r := orchResult{Way: "serve-go"}
	if rate > 0 {
		r.Way = "serve-go-paced"
	}
	if cores > 0 {
		r.Way += fmt.Sprintf("-cores%d", cores)
	}
	packet, err := os.ReadFile(orchPacket)
	if err != nil {
		return r, err
	}
	network, addr := "unix", filepath.Join(dir, "orch.sock")
	listen := "unix:" + addr
	if tcp {
		// A free loopback port (the server takes it a moment later).
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return r, err
		}
		addr = ln.Addr().String()
		ln.Close()
		network, listen = "tcp", addr
		r.Way += "-tcp"
	}
	srv := exec.Command(bin, "serve", "--listen", listen, "--max-in-flight", fmt.Sprint(2*orchClients), "--cores", fmt.Sprint(cores))
	if err := srv.Start(); err != nil {
		return r, err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	}()
	cfg := loadgen.Config{Network: network, Addr: addr, Method: "POST", Path: "/v1/validate?kind=operator/assignment", Body: packet,
		Conns: orchClients, Requests: orchClients, Check: func(status int, body []byte) bool {
			return status == 200 && bytes.HasPrefix(body, []byte(`{"allow":true`))
		}}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		w, err := loadgen.Run(cfg) // also the warm-up
		if err == nil && w.Errors == 0 {
			break
		}
		if time.Since(start) > 10*time.Second {
			return r, fmt.Errorf("agentlint serve did not come up: %s", w.FirstError)
		}
	}
	// A warm-up of a tenth of the load, not measured: the server's heap
	// and pools reach their size, as in a server that has been running.
	cfg.Requests = max(orchServeGo/10, orchClients)
	if w, err := loadgen.Run(cfg); err != nil || w.Errors > 0 {
		return r, fmt.Errorf("warm-up: %v %s", err, w.FirstError)
	}
	cfg.Requests, cfg.Rate = orchServeGo, rate
	// The clients on one thread: they need a fraction of a core (a few
	// µs a request), and more threads of this process would only compete
	// with the server's for the same cores (measured: more validations/s
	// and a lower p99 than with one thread per core).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	cpu0, cpuOK := procCPU(srv.Process.Pid)
	res, err := loadgen.Run(cfg)
	if err != nil {
		return r, err
	}
	cpu1, _ := procCPU(srv.Process.Pid)
	r.N, r.Seconds, r.PerS, r.Errors = res.Requests, res.Wall.Seconds(), res.PerSecond(), res.Errors
	r.P50ms = float64(res.Percentile(0.50).Microseconds()) / 1000
	r.P99ms = float64(res.Percentile(0.99).Microseconds()) / 1000
	over := "the Unix socket"
	if tcp {
		over = "TCP on 127.0.0.1"
	}
	r.Note = fmt.Sprintf("%d loadgen clients (Go, one thread, kept-alive, one request at a time) over %s", orchClients, over)
	if rate > 0 {
		r.Note += fmt.Sprintf(", paced at %.0f/s in all (latency from each request's intended time)", rate)
	}
	if cores > 0 {
		r.Note += fmt.Sprintf(", server with --cores %d", cores)
	}
	if cpuOK && res.Requests > 0 {
		r.Note += fmt.Sprintf("; server CPU %.0f µs/validation", float64((cpu1-cpu0).Microseconds())/float64(res.Requests))
	}
	if res.FirstError != "" {
		r.Note += "; first error: " + res.FirstError
	}
	return r, nil
}

// procCPU returns the CPU time (user and system) process pid has used, from
// /proc/PID/stat (Linux; false elsewhere), in clock ticks of 10 ms.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: fields count from its ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
