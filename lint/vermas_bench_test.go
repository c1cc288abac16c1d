package lint

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/bench"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// The VerMAS stream-rule benchmark: a 1,000,000-line event log over
// about 10,000 work orders, generated once per process.
const (
	vmBenchLines      = 1_000_000
	vmBenchWorkOrders = 10_000
)

var (
	vmBenchOnce   sync.Once
	vmBenchData   []byte
	vmBenchCounts bench.VermasCounts
)

func vmBenchLog(b *testing.B) ([]byte, bench.VermasCounts) {
	vmBenchOnce.Do(func() {
		var buf bytes.Buffer
		buf.Grow(300 * vmBenchLines)
		c, err := bench.GenerateVermas(&buf, vmBenchLines, vmBenchWorkOrders, 7)
		if err != nil {
			b.Fatal(err)
		}
		vmBenchData, vmBenchCounts = buf.Bytes(), c
	})
	return vmBenchData, vmBenchCounts
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// vmLintEvents lints data as .work/events.jsonl with every worker the
// machine has, rendering JSON envelopes to io.Discard; streams nil runs
// every stream rule, an empty list none (per-record validation alone). It
// returns the wall-clock and the CPU time of the run.
func vmLintEvents(b *testing.B, data []byte, streams []string) (wall, cpu time.Duration, st *Stats) {
	p := &output.JSON{}
	c0 := cpuTime(b)
	start := time.Now()
	st, err := Lint(func(yield func(Input) bool) {
		yield(Input{Path: ".work/events.jsonl", Reader: bytes.NewReader(data), Kind: kind.Lookup("vermas/event")})
	}, LintConfig{Jobs: runtime.NumCPU(), Render: p.AppendRecord, Out: io.Discard, StreamRules: streams})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start), cpuTime(b) - c0, st
}

// BenchmarkVermasStreamRules lints the same 1M-line log with per-record
// validation alone and with every stream rule (VM100-VM136: ids, caused_by,
// time order, work-order replay, and the tree state for the projections)
// in each iteration, and reports both costs per line and their ratio. It
// then feeds the log through the VerMAS check alone (extraction and
// Observe, as the engine's emitter does) and reports the heap its state
// holds at the end of the file, per distinct id (event ids, work orders,
// messages). The log is consistent: any finding fails the benchmark.
func BenchmarkVermasStreamRules(b *testing.B) {
	data, counts := vmBenchLog(b)
	b.SetBytes(int64(len(data)))
	var off, on, offCPU, onCPU time.Duration
	for b.Loop() {
		d, c, st := vmLintEvents(b, data, []string{})
		off, offCPU = off+d, offCPU+c
		if st.Records != counts.Lines || st.Denied+st.Warnings != 0 {
			b.Fatalf("validation alone: %d records, %d denied, %d warnings", st.Records, st.Denied, st.Warnings)
		}
		d, c, st = vmLintEvents(b, data, nil)
		on, onCPU = on+d, onCPU+c
		if st.Denied+st.Warnings != 0 {
			b.Fatalf("stream rules: %d denied, %d warnings: %v", st.Denied, st.Warnings, st.ByRule)
		}
	}
	n := float64(b.N) * float64(counts.Lines)
	b.ReportMetric(float64(off.Nanoseconds())/n, "validate-ns/line")
	b.ReportMetric(float64(on.Nanoseconds())/n, "stream-ns/line")
	b.ReportMetric(float64(on)/float64(off), "ratio")
	b.ReportMetric(float64(offCPU.Nanoseconds())/n, "validate-cpu-ns/line")
	b.ReportMetric(float64(onCPU.Nanoseconds())/n, "stream-cpu-ns/line")
	b.ReportMetric(float64(onCPU)/float64(offCPU), "cpu-ratio")
	ids := counts.Lines + counts.WorkOrders + counts.Messages
	heap, seq := vmStateBytes(b, data)
	b.ReportMetric(float64(heap)/float64(ids), "B/id")
	b.ReportMetric(float64(seq.Nanoseconds())/float64(counts.Lines), "check-ns/line")
	b.ReportMetric(float64(ids), "ids")
}

// vmStateBytes returns the heap held by the VerMAS check's state of one
// event log after its last line (before Finish): the live heap after
// observing every line minus the live heap before; and the time the check
// took, extraction included, on one goroutine.
func vmStateBytes(b *testing.B, data []byte) (uint64, time.Duration) {
	check := rules.Stream("VM100").(rules.KindRule)
	fields := check.KindFields("vermas/event")
	x := record.NewExtractor("", fields)
	vals := make([]rules.Value, len(fields))
	rep := rules.NewStreamReporter("VM100", "VM104", "VM105", "VM110", "VM111", "VM112")
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	st := check.NewKindFile(".work/events.jsonl", "vermas/event", &rules.Options{})
	line := 0
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		line++
		x.Arena = x.Arena[:0]
		x.Values(rest[:i], nil, vals)
		st.Observe(&rules.StreamRecord{Line: line, Valid: true, Values: vals}, rep)
		if f := rep.Take(); len(f) > 0 {
			b.Fatalf("line %d: %+v", line, f[0])
		}
		rest = rest[min(i+1, len(rest)):]
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(st)
	return m1.HeapAlloc - m0.HeapAlloc, took
}
