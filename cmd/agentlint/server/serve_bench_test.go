//go:build unix

package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/agentlint/agentlint/cmd/agentlint/server/loadgen"
)

// BenchmarkServeValidate: the server of `agentlint serve` (Run, its log
// to /dev/null) on a Unix socket, 32 loadgen clients each with a
// kept-alive connection, validating the allowed operator/assignment packet
// (testdata/demo/packets/t12-assignment.json) through POST /v1/validate;
// one op is one validation. Client and server share the machine's cores:
// `-cpuprofile` shows both, and cpu-µs/op is the CPU time of both per
// validation (steadier than req/s when other work shares the machine).
// The server runs on every core (RunConfig.Cores): it shares this process
// with the clients, whose GOMAXPROCS it would otherwise lower.
func BenchmarkServeValidate(b *testing.B) {
	packet, err := os.ReadFile(filepath.Join(demo, "packets", "t12-assignment.json"))
	if err != nil {
		b.Fatal(err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	sock := filepath.Join(b.TempDir(), "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, RunConfig{Listen: "unix:" + sock, MaxInFlight: 64, Log: devnull, ShutdownTimeout: 10 * time.Second,
			ReadHeaderTimeout: 5 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: time.Minute,
			Cores: runtime.GOMAXPROCS(0)})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	cfg := loadgen.Config{Network: "unix", Addr: sock, Method: "POST", Path: "/v1/validate?kind=operator/assignment", Body: packet,
		Conns: 32, Requests: 32, Check: func(status int, body []byte) bool {
			return status == 200 && bytes.HasPrefix(body, []byte(`{"allow":true`))
		}}
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if r, _ := loadgen.Run(cfg); r.Errors == 0 {
			break
		}
		if time.Since(start) > 10*time.Second {
			b.Fatal("the server did not come up")
		}
	}
	cfg.Requests = max(b.N, 32)
	cpu0 := cpuTime()
	b.ResetTimer()
	r, err := loadgen.Run(cfg)
	b.StopTimer()
	cpu := cpuTime() - cpu0
	if err != nil {
		b.Fatal(err)
	}
	if r.Errors > 0 {
		b.Fatalf("%d errors, the first: %s", r.Errors, r.FirstError)
	}
	b.ReportMetric(r.PerSecond(), "req/s")
	b.ReportMetric(float64(r.Percentile(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(r.Requests), "cpu-µs/op")
}

// cpuTime is the CPU time this process has used, user and system: the
// server's and the clients' together. On a shared machine it varies less
// than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
