//go:build devtools

package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
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
// orchClients goroutines of this harness (Go's net/http client), which
// shows what the server does when the client is not the bottleneck. It
// prints throughput, p50/p99 latency and errors of each, and the ratios to
// (a). Without python3 on PATH it prints why and measures only the Go
// client.
func orchestratorBench(bin, dir string) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs + "-serve"); err != nil {
		return fmt.Errorf("%s-serve: %v (run make build first: agentlint serve hands over to it)", abs, err)
	}
	fmt.Printf("orchestrator: validating %s (allowed), %s, %d CPUs\n", orchPacket, time.Now().UTC().Format(time.RFC3339), runtime.NumCPU())
	fmt.Println("bars: co-process >= 100,000 packets/s; serve >= 20,000 validations/s with 32 clients, p99 <= 5 ms, 0 errors; both >= 50x process per packet")
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
		r, err := serveGo(abs, dir)
		if err != nil {
			return err
		}
		results = append(results, r)
		printOrch(r, results)
	}
	fmt.Println("x (a): packets/s divided by those of (a) process, measured above in the same run")
	return nil
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
// (faster of two runs).
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
	m, err := measureCmd(bin, "validate", "--stream", "--kind", "operator/assignment", path)
	if err != nil {
		return r, err
	}
	r.Seconds = m.wall.Seconds()
	r.PerS = float64(r.N) / r.Seconds
	if !bytes.Contains(m.summary, []byte(`"allow":true`)) {
		r.Errors = 1 // the summary does not allow: some packet was denied
	}
	return r, nil
}

// serveGo starts `agentlint serve` on a Unix socket and sends orchServeGo
// validations from orchClients goroutines, each over its own kept-alive
// connection; an error is a transport error, a status other than 200 or
// an envelope that does not allow.
func serveGo(bin, dir string) (orchResult, error) {
	r := orchResult{Way: "serve-go", Note: fmt.Sprintf("%d goroutines of this harness, net/http over the socket, kept-alive", orchClients)}
	packet, err := os.ReadFile(orchPacket)
	if err != nil {
		return r, err
	}
	sock := filepath.Join(dir, "orch.sock")
	srv := exec.Command(bin, "serve", "--listen", "unix:"+sock, "--max-in-flight", fmt.Sprint(2*orchClients))
	if err := srv.Start(); err != nil {
		return r, err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	}()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConnsPerHost: orchClients,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := client.Get("http://agentlint/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			return r, fmt.Errorf("agentlint serve did not come up: %v", err)
		}
	}
	per := orchServeGo / orchClients
	lats := make([][]time.Duration, orchClients)
	errs := make([]int, orchClients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range orchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				t := time.Now()
				resp, err := client.Post("http://agentlint/v1/validate?kind=operator/assignment", "application/json", bytes.NewReader(packet))
				if err != nil {
					errs[i]++
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				lats[i] = append(lats[i], time.Since(t))
				if err != nil || resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte(`{"allow":true`)) {
					errs[i]++
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	var all []time.Duration
	for i := range lats {
		all = append(all, lats[i]...)
		r.Errors += errs[i]
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(len(all)-1, int(float64(len(all))*p))].Microseconds()) / 1000
	}
	r.N, r.Seconds = per*orchClients, wall.Seconds()
	r.PerS = float64(r.N) / r.Seconds
	r.P50ms, r.P99ms = pct(0.50), pct(0.99)
	return r, nil
}
