package replay

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/bench"
	"github.com/agentlint/agentlint/lint/record"
)

// The benchmark of lint/replay/README.md's replayer (issue: "1,000,000 deltas
// over 10,000 tasks"):
//
//	go test -run '^$' -bench Replay -benchtime 1x ./lint/replay
//
// BenchmarkReplay/replay replays one JSON Lines stream of benchDeltas deltas
// against a JSON Lines BASE of benchTasks rows (every delta valid: each task
// goes todo → in_progress, heartbeats, blocked and back, done).
// BenchmarkReplay/decode is the baseline measured in the same run: reading
// the same lines and decoding each delta into a struct with the JSON library
// the project uses (github.com/go-json-experiment/json). Each reports
// deltas/s (in process) and peak-RSS-MB: the peak resident set size (VmHWM)
// of a child process (this test binary, TestBenchChild) doing the same work
// once.
const (
	benchTasks  = 10_000
	benchDeltas = 1_000_000
)

// writeBenchData writes the BASE and the stream to dir.
func writeBenchData(tb testing.TB, dir string) (base, stream string) {
	base, stream = filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "stream.jsonl")
	bf, err := os.Create(base)
	if err != nil {
		tb.Fatal(err)
	}
	sf, err := os.Create(stream)
	if err != nil {
		tb.Fatal(err)
	}
	if err := bench.GenerateDeltas(bf, sf, benchTasks, benchDeltas); err != nil {
		tb.Fatal(err)
	}
	if err := bf.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := sf.Close(); err != nil {
		tb.Fatal(err)
	}
	return base, stream
}

// replayFilesOnce replays the stream file against the base file.
func replayFilesOnce(base, stream string) (*Result, error) {
	bf, err := os.Open(base)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	sf, err := os.Open(stream)
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	return Run(Input{Name: base, R: bf}, []Input{{Name: stream, R: sf}}, Options{})
}

// benchDelta is the baseline's target: every member of the deltas.
type benchDelta struct {
	TaskID          string `json:"task_id"`
	Status          string `json:"status"`
	Owner           string `json:"owner"`
	Reason          string `json:"reason"`
	DeltaID         string `json:"delta_id"`
	LastHeartbeatAt string `json:"last_heartbeat_at"`
}

// decodeOnce is the baseline: read the stream's lines and decode each.
func decodeOnce(stream string) (int, error) {
	f, err := os.Open(stream)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lr := record.NewLineReader(f)
	n := 0
	for {
		text, _, _, _, err := lr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		var d benchDelta
		if err := json.Unmarshal(text, &d); err != nil {
			return n, err
		}
		n++
	}
}

func BenchmarkReplay(b *testing.B) {
	base, stream := writeBenchData(b, b.TempDir())
	b.Run("replay", func(b *testing.B) {
		for range b.N {
			res, err := replayFilesOnce(base, stream)
			if err != nil {
				b.Fatal(err)
			}
			if !res.Envelope.Allow || res.Counts.Applied != benchDeltas {
				b.Fatalf("benchmark replay: %s %s, counts %+v", res.Envelope.Code, res.Envelope.Reason, res.Counts)
			}
		}
		b.ReportMetric(float64(benchDeltas)*float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
		b.ReportMetric(childPeakRSS(b, "replay", base, stream), "peak-RSS-MB")
	})
	b.Run("decode", func(b *testing.B) {
		for range b.N {
			if n, err := decodeOnce(stream); err != nil || n != benchDeltas {
				b.Fatalf("decoded %d: %v", n, err)
			}
		}
		b.ReportMetric(float64(benchDeltas)*float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
		b.ReportMetric(childPeakRSS(b, "decode", base, stream), "peak-RSS-MB")
	})
}

// childPeakRSS runs mode ("replay" or "decode") once in a child process and
// returns its peak resident set size in MB (0 where the platform does not
// report it).
func childPeakRSS(b *testing.B, mode, base, stream string) float64 {
	b.StopTimer()
	defer b.StartTimer()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "REPLAY_BENCH_CHILD="+mode, "REPLAY_BENCH_BASE="+base, "REPLAY_BENCH_STREAM="+stream)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child %s: %v\n%s", mode, err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, "peak-rss-kb="); i >= 0 {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(l[i+len("peak-rss-kb="):]), 64)
			return kb / 1024
		}
	}
	b.Fatalf("child %s reported no peak RSS:\n%s", mode, out)
	return 0
}

// TestBenchChild does the work of one benchmark mode when run as
// BenchmarkReplay's child process, then logs its peak RSS; otherwise it is
// skipped.
func TestBenchChild(t *testing.T) {
	mode := os.Getenv("REPLAY_BENCH_CHILD")
	if mode == "" {
		t.Skip("run by BenchmarkReplay only")
	}
	base, stream := os.Getenv("REPLAY_BENCH_BASE"), os.Getenv("REPLAY_BENCH_STREAM")
	switch mode {
	case "replay":
		res, err := replayFilesOnce(base, stream)
		if err != nil || !res.Envelope.Allow {
			t.Fatalf("replay: %v %+v", err, res)
		}
	case "decode":
		if _, err := decodeOnce(stream); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("peak-rss-kb=%d", peakRSSKB())
}
