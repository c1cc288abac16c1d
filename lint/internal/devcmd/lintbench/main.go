//go:build devtools

// Command lintbench is `make bench`: it generates logs of 100k and 1M lines
// of each JSON Lines family's event kind (lint/bench.Generate, seed 4:
// collector events and operator worklog entries with a defective line in
// every thousand; ledger entries, idle events and VerMAS events without
// defects, linted at bench.CoherentNow) into a temporary directory and, for
// each, times the agentlint binary (`agentlint lint --kind K -j N FILE`, a
// child process whose peak RSS is its VmHWM) next to the floor measured in
// the same run: jsontext.Value.IsValid on every line of the same file, on
// one goroutine. It checks that agentlint denied and warned about exactly
// the generated defective lines (none, for the logs without defects) and
// prints lines/s, MB/s, peak RSS, the ratio to the floor and the ratio of
// peak RSS between the largest and the smallest log.
//
// With -ajv (the directory scripts/tools/ajv.sh prints), collector events
// are also validated by ajv 8 compiled from seed 004's JSON Schema, one
// line at a time (lint/bench/ajv.js, node), in the same run: the "x ajv"
// column is ajv's wall time divided by agentlint's, and ajv's count of
// invalid lines is checked against agentlint's denied lines minus the
// defects only the contract rejects (ajvLenient).
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
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint/bench"
	"github.com/agentlint/agentlint/lint/envelope"
)

func main() {
	bin := flag.String("bin", "bin/agentlint", "the agentlint binary to measure")
	kinds := flag.String("kinds", strings.Join([]string{bench.KindCollector, bench.KindWorklog, bench.KindLedger, bench.KindIdle, bench.KindVermas}, ","), "kinds to generate, comma-separated")
	sizes := flag.String("lines", "100000,1000000", "log sizes in lines, comma-separated")
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
	// The stream rules that remember every distinct id (duplicate event_id,
	// parent spans) hold memory proportional to the ids of the log;
	// the "-ids" runs switch them off to show the streaming bound.
	noIDs := filepath.Join(dir, "no-id-rules.toml")
	if err := os.WriteFile(noIDs, []byte("[rules.CL100]\nseverity = \"off\"\n[rules.CL101]\nseverity = \"off\"\n"), 0o644); err != nil {
		return err
	}
	fmt.Printf("lintbench: %s, %d CPUs, %s/%s, %s; bars: collector events >= 4.5x ajv, exact verdicts; peak RSS <= 64 MiB every rule on, <= 32 MiB id rules off, 1M/100k <= 1.2\n\n",
		runtime.Version(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("%-17s %9s %8s %-8s %9s %10s %8s %8s  %10s %8s  %7s %6s  %s\n",
		"kind", "lines", "MB", "run", "seconds", "lines/s", "MB/s", "RSS MiB", "floor l/s", "floor/s", "x floor", "x ajv", "verdicts")
	for _, kind := range kinds {
		rss := map[string]map[int]int64{} // run → lines → peak RSS
		var runs []string
		for _, n := range sizes {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", strings.ReplaceAll(kind, "/", "-"), n))
			defects, size, err := generate(path, kind, n)
			if err != nil {
				return err
			}
			floor, err := measureFloor(path)
			if err != nil {
				return err
			}
			mb := float64(size) / 1e6
			fmt.Printf("%-17s %9d %8.1f %-8s %9.3f %10.0f %8.1f %8s  %10s %8s  %7s %6s  %s\n",
				kind, n, mb, "IsValid", floor.Seconds(), float64(n)/floor.Seconds(), mb/floor.Seconds(), "-", "", "", "", "", "")
			var ajv measurement
			if ajvDir != "" && kind == bench.KindCollector {
				if ajv, err = measureAjv(path); err != nil {
					return err
				}
				fmt.Printf("%-17s %9d %8.1f %-8s %9.3f %10.0f %8.1f %8.1f  %10.0f %8.1f  %7.2f %6s  %s\n",
					kind, n, mb, "ajv", ajv.wall.Seconds(), float64(n)/ajv.wall.Seconds(), mb/ajv.wall.Seconds(), float64(ajv.rssKiB)/1024,
					float64(n)/floor.Seconds(), mb/floor.Seconds(), floor.Seconds()/ajv.wall.Seconds(), "1.00", checkAjv(ajv.summary, defects))
			}
			for _, j := range jobs {
				for _, ids := range []bool{true, false} {
					if !ids && kind != bench.KindCollector {
						continue
					}
					name, args := "j="+strconv.Itoa(j), []string{"-j", strconv.Itoa(j)}
					if kind != bench.KindCollector && kind != bench.KindWorklog {
						args = append(args, "--now", bench.CoherentNow.Format(time.RFC3339))
					}
					if !ids {
						name, args = name+"-ids", append(args, "--config", noIDs)
					}
					m, err := measureLint(bin, kind, path, args)
					if err != nil {
						return err
					}
					if rss[name] == nil {
						rss[name] = map[int]int64{}
						runs = append(runs, name)
					}
					rss[name][n] = m.rssKiB
					xajv := ""
					if ajv.wall > 0 {
						xajv = fmt.Sprintf("%.2f", ajv.wall.Seconds()/m.wall.Seconds())
					}
					fmt.Printf("%-17s %9d %8.1f %-8s %9.3f %10.0f %8.1f %8.1f  %10.0f %8.1f  %7.2f %6s  %s\n",
						kind, n, mb, name, m.wall.Seconds(), float64(n)/m.wall.Seconds(), mb/m.wall.Seconds(), float64(m.rssKiB)/1024,
						float64(n)/floor.Seconds(), mb/floor.Seconds(), floor.Seconds()/m.wall.Seconds(), xajv, check(m.summary, defects, n))
				}
			}
			if !keep {
				os.Remove(path)
			}
		}
		if len(sizes) > 1 {
			lo, hi := sizes[0], sizes[len(sizes)-1]
			for _, r := range runs {
				fmt.Printf("%-17s peak RSS %d lines / %d lines, %s: %.2f\n", kind, hi, lo, r, float64(rss[r][hi])/float64(rss[r][lo]))
			}
		}
		fmt.Println()
	}
	fmt.Println("x floor: agentlint's throughput divided by IsValid's (1.00 = as fast as a syntax check on one goroutine)")
	fmt.Println("x ajv: ajv's wall time divided by agentlint's (ajv: node, ajv 8 + ajv-formats 3, seed 004's schema compiled once, one line at a time)")
	fmt.Println("-ids: CL100 and CL101 off (they remember every distinct event_id and span: memory grows with the ids, not the bytes)")
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

func generate(path, kind string, n int) ([]bench.Defect, int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, 0, err
	}
	defects, err := bench.Generate(f, bench.Config{Kind: kind, Lines: n, Seed: 4})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	df, err := os.Create(path + ".defects.tsv")
	if err != nil {
		return nil, 0, err
	}
	if err := bench.WriteDefects(df, defects); err != nil {
		return nil, 0, err
	}
	df.Close()
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	return defects, st.Size(), nil
}

// measureFloor times IsValidLines over the file (best of two runs, the
// first one also warms the page cache).
func measureFloor(path string) (time.Duration, error) {
	best := time.Duration(0)
	for i := 0; i < 2; i++ {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		start := time.Now()
		_, _, err = bench.IsValidLines(f)
		d := time.Since(start)
		f.Close()
		if err != nil {
			return 0, err
		}
		if best == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

type measurement struct {
	wall    time.Duration
	rssKiB  int64
	summary []byte
}

// measureLint runs agentlint twice and keeps the faster run: its wall time,
// peak RSS and summary envelope.
//
// The peak RSS is the child's VmHWM (/proc/PID/status), read every 2 ms
// until it exits: getrusage's ru_maxrss is not usable here, because Go
// starts children with vfork semantics and Linux then carries the parent's
// own peak RSS (this harness's, after generating the log) into the child's
// ru_maxrss at exec. Where /proc is missing, ru_maxrss is used.
func measureLint(bin, kind, path string, args []string) (measurement, error) {
	return measureCmd(bin, append(append([]string{"lint", "--kind", kind}, args...), path)...)
}

// measureCmd runs a command twice and keeps the faster run: its wall time,
// peak RSS and last line of output. Exit status 0 and 1 are results, others
// errors.
func measureCmd(bin string, args ...string) (measurement, error) {
	var best measurement
	for i := 0; i < 2; i++ {
		var out lastLine
		cmd := exec.Command(bin, args...)
		cmd.Stdout = &out
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return best, err
		}
		hwm := make(chan int64, 1)
		done := make(chan struct{})
		go func() { hwm <- pollHWM(cmd.Process.Pid, done) }()
		err := cmd.Wait()
		wall := time.Since(start)
		close(done)
		peak := <-hwm
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
			return best, fmt.Errorf("%s: %v", cmd, err)
		}
		if peak == 0 {
			peak = maxRSS(cmd.ProcessState)
		}
		m := measurement{wall: wall, rssKiB: peak, summary: out.line()}
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

// check compares the summary envelope with the generated defects: exact
// when the records, denied records and warnings match.
func check(summary []byte, defects []bench.Defect, n int) string {
	var e struct {
		Details struct {
			Records  int            `json:"records"`
			Denied   int            `json:"denied"`
			Warnings int            `json:"warnings"`
			ByRule   map[string]int `json:"by_rule"`
		} `json:"details"`
	}
	if err := json.Unmarshal(summary, &e); err != nil {
		return "no summary: " + err.Error()
	}
	if e.Details.ByRule["AL010"] > 0 {
		return "no validator for this kind in this build (AL010)"
	}
	denied, warned := 0, 0
	for _, d := range defects {
		if d.Severity == envelope.SeverityError {
			denied++
		} else {
			warned++
		}
	}
	if e.Details.Records == n && e.Details.Denied == denied && e.Details.Warnings == warned {
		return fmt.Sprintf("exact (%d denied, %d warned)", denied, warned)
	}
	return fmt.Sprintf("MISMATCH: records %d denied %d warnings %d, want %d, %d, %d",
		e.Details.Records, e.Details.Denied, e.Details.Warnings, n, denied, warned)
}
