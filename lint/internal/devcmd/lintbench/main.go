//go:build devtools

// Command lintbench is `make bench`: for each JSON Lines family's event
// kind (collector, operator worklog, ledger, idle, VerMAS) it generates a
// log shaped like real producers' output (lint/bench.GenerateMix, seed 4:
// 1 % defective lines; collector events with 47 % unknown-but-valid event
// types and 40 % parents in other agents' logs) of -lines lines into a
// temporary directory and measures, in -rounds interleaved rounds (medians
// shown): the floor (jsontext.Value.IsValid on every line, one goroutine,
// in this process), ajv 8 validating every line against the schema
// `agentlint schema export --kind K` writes (lint/bench/ajv.js, node; with
// -ajv), and `agentlint lint --kind K -j N` (a child process whose peak
// RSS is its VmHWM) at each -j. It checks that agentlint denied and warned
// exactly what the generator wrote (every finding counted: the defects,
// CL010 and CL101) and that ajv rejected the defects the schema can
// express (ajvLenient). Then it lints a log of -rss-lines lines once at the
// largest -j for its peak RSS, and prints the table of the bars: agentlint
// vs ajv (throughput), wall time × the floor, peak RSS, RSS -rss-lines /
// -lines.
//
// Then it times start-up (`agentlint validate` of one record against a
// hello-world Go binary it builds, median of -startup runs of each,
// interleaved) and `agentlint replay` of -deltas deltas over -tasks tasks
// (lint/bench.GenerateDeltas): deltas/s and peak RSS (with -replay-before,
// also of an earlier binary, as ratios). -kinds= -startup 0 measures the
// replay alone.
//
// Last, the orchestrator benchmark (orchestrator.go): per operator/assignment
// packet, from a Python 3 orchestrator (lintbench/orchestrator.py, skipped
// with a reason without python3), one `agentlint validate` process per
// packet, the `validate --stream` co-process and `agentlint serve` on a Unix
// socket with -orch-clients concurrent clients (Python threads, then Go
// goroutines): packets/s, p50/p99 latency, errors, and the ratios to the
// process per packet. -kinds= -startup 0 -deltas 0 measures it alone.
//
//	go run ./lint/internal/devcmd/lintbench -bin bin/agentlint -ajv "$(scripts/tools/ajv.sh)"
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint/bench"
)

func main() {
	bin := flag.String("bin", "bin/agentlint", "the agentlint binary to measure")
	kinds := flag.String("kinds", strings.Join([]string{bench.KindCollector, bench.KindWorklog, bench.KindLedger, bench.KindIdle, bench.KindVermas}, ","), "kinds to generate, comma-separated")
	sizes := flag.String("lines", "1000000", "log sizes in lines, comma-separated (the bars are read at the last)")
	flag.IntVar(&rssLines, "rss-lines", 3000000, "lines of the log whose peak RSS is compared with the last -lines' (0: none)")
	flag.IntVar(&rounds, "rounds", 3, "interleaved rounds of each measurement (the median is shown)")
	jobs := flag.String("j", "1,"+strconv.Itoa(runtime.NumCPU()), "agentlint -j values, comma-separated")
	dir := flag.String("dir", "", "where to write the logs (default: a new temporary directory, removed at the end)")
	flag.StringVar(&ajvDir, "ajv", "", "ajv install directory (scripts/tools/ajv.sh); empty: no ajv comparison")
	flag.IntVar(&startupRuns, "startup", 200, "start-up runs of each binary (0: skip)")
	flag.IntVar(&replayDeltas, "deltas", 1000000, "replay: number of deltas (0: skip)")
	flag.IntVar(&replayTasks, "tasks", 10000, "replay: number of tasks")
	flag.StringVar(&replayBefore, "replay-before", "", "replay: another agentlint binary (e.g. built from the previous commit) to replay the same input in the same run, for a ratio")
	flag.IntVar(&orchProcs, "orch-procs", 200, "orchestrator: packets validated by one agentlint process each (0: skip the orchestrator benchmark)")
	flag.IntVar(&orchStream, "orch-stream", 20000, "orchestrator: packets through the validate --stream co-process")
	flag.IntVar(&orchServe, "orch-serve", 32000, "orchestrator: validations sent to agentlint serve by the Python clients")
	flag.IntVar(&orchServeGo, "orch-serve-go", 200000, "orchestrator: validations sent to agentlint serve by this harness's Go clients (0: none)")
	flag.IntVar(&orchClients, "orch-clients", 32, "orchestrator: concurrent clients of agentlint serve")
	flag.Parse()
	if err := run(*bin, split(*kinds), ints(*sizes), ints(*jobs), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "lintbench:", err)
		os.Exit(1)
	}
}

func split(s string) []string {
	if s == "" {
		return nil // -kinds= measures no log (start-up and replay only)
	}
	return strings.Split(s, ",")
}

func ints(s string) []int {
	var out []int
	for _, f := range split(s) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "lintbench: bad number %q\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func run(bin string, kinds []string, sizes, jobs []int, dir string) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %v (run make build first)", bin, err)
	}
	keep := dir != ""
	if !keep {
		d, err := os.MkdirTemp("", "lintbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if err := families(bin, kinds, sizes, jobs, dir, keep); err != nil {
		return err
	}
	if startupRuns > 0 {
		fmt.Println()
		if err := startup(bin, dir); err != nil {
			return err
		}
	}
	if replayDeltas > 0 {
		fmt.Println()
		if err := replayBench(bin, dir, keep); err != nil {
			return err
		}
	}
	if orchProcs > 0 {
		fmt.Println()
		if err := orchestratorBench(bin, dir); err != nil {
			return err
		}
	}
	return nil
}

type measurement struct {
	wall    time.Duration
	rssKiB  int64
	summary []byte
}

// measureCmd runs a command twice and keeps the faster run: its wall time,
// peak RSS and last line of output. Exit status 0 and 1 are results, others
// errors.
func measureCmd(bin string, args ...string) (measurement, error) {
	var best measurement
	for i := 0; i < 2; i++ {
		m, err := measureOnce(bin, args...)
		if err != nil {
			return best, err
		}
		if i == 0 || m.wall < best.wall {
			best = m
		}
	}
	return best, nil
}

// lastLine keeps the last line written to it (the summary envelope), so
// that a run printing many envelopes costs the harness no memory.
type lastLine struct{ cur, prev []byte }

func (l *lastLine) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.cur = append(l.cur, p...)
			break
		}
		l.cur = append(l.cur, p[:i]...)
		l.prev, l.cur = l.cur, l.prev[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (l *lastLine) line() []byte {
	if len(l.cur) > 0 {
		return l.cur
	}
	return l.prev
}

// pollHWM returns the last VmHWM (KiB) read from /proc/pid/status before
// done is closed; 0 when it could never be read.
func pollHWM(pid int, done chan struct{}) int64 {
	var last int64
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	for {
		if data, err := os.ReadFile(path); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					if n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil && n > last {
						last = n
					}
				}
			}
		}
		select {
		case <-done:
			return last
		case <-time.After(2 * time.Millisecond):
		}
	}
}
