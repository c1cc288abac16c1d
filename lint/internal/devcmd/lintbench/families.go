//go:build devtools

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentlint/agentlint/lint/bench"
)

var (
	rounds   int
	rssLines int
)

// row is one measured series of a kind: its runs' wall times (one per
// round) and the peak RSS and summary of its last run.
type row struct {
	name    string
	walls   []time.Duration
	rssKiB  int64
	summary []byte
}

func (r *row) median() time.Duration {
	ds := slices.Clone(r.walls)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// result is what the summary table shows of one kind.
type result struct {
	kind           string
	lines          int
	xAjv, xFloor   float64 // at the largest -j: ajv's wall / agentlint's; agentlint's wall / the floor's
	rss, rssBig    int64   // peak RSS KiB at lines and at rssLines
	verdicts, ajvV string
}

// families measures every kind on realistic logs (bench.GenerateMix): for
// each size, rounds interleaved rounds of the floor (IsValid on one
// goroutine, in this process), ajv with the schema `agentlint schema export`
// gives the kind, and agentlint at each -j; medians of the rounds. Then the
// peak RSS of agentlint at the largest -j on a log of rssLines lines. Last, a
// table of the ratios the bars name.
func families(bin string, kinds []string, sizes, jobs []int, dir string, keep bool) error {
	if len(kinds) == 0 {
		return nil
	}
	jmax := slices.Max(jobs)
	fmt.Printf("lintbench: %s; realistic logs (bench.GenerateMix: 1 %% defects; collector: %d %% unknown event types, %d %% parents in other logs); medians of %d interleaved rounds\n",
		time.Now().UTC().Format(time.RFC3339), bench.MixUnknownType, bench.MixParentElsewhere, rounds)
	fmt.Printf("%-17s %9s %8s %-8s %9s %10s %8s %8s  %7s %6s  %s\n",
		"kind", "lines", "MB", "run", "seconds", "lines/s", "MB/s", "RSS MiB", "x floor", "x ajv", "verdicts")
	var results []result
	for _, kind := range kinds {
		schema := ""
		if ajvDir != "" {
			schema = filepath.Join(dir, strings.ReplaceAll(kind, "/", ".")+".schema.json")
			out, err := exec.Command(bin, "schema", "export", "--kind", kind).Output()
			if err != nil {
				return fmt.Errorf("schema export --kind %s: %v", kind, err)
			}
			if err := os.WriteFile(schema, out, 0o644); err != nil {
				return err
			}
		}
		res := result{kind: kind}
		for _, n := range sizes {
			path, mix, size, err := generateMix(dir, kind, n)
			if err != nil {
				return err
			}
			mb := float64(size) / 1e6
			floor := &row{name: "IsValid"}
			ajv := &row{name: "ajv"}
			lints := make([]*row, len(jobs))
			for i, j := range jobs {
				lints[i] = &row{name: "j=" + strconv.Itoa(j)}
			}
			for r := 0; r < rounds; r++ {
				d, err := floorOnce(path)
				if err != nil {
					return err
				}
				floor.walls = append(floor.walls, d)
				if schema != "" {
					m, err := measureOnce("node", "lint/bench/ajv.js", ajvDir, schema, path)
					if err != nil {
						return err
					}
					ajv.add(m)
				}
				for i, j := range jobs {
					m, err := measureOnce(bin, lintArgs(kind, j, path)...)
					if err != nil {
						return err
					}
					lints[i].add(m)
				}
			}
			fl := floor.median()
			print := func(r *row, xajv string, verdicts string) {
				w := r.median()
				rss := "-"
				if r.rssKiB > 0 {
					rss = fmt.Sprintf("%.1f", float64(r.rssKiB)/1024)
				}
				fmt.Printf("%-17s %9d %8.1f %-8s %9.3f %10.0f %8.1f %8s  %7.2f %6s  %s\n",
					kind, n, mb, r.name, w.Seconds(), float64(n)/w.Seconds(), mb/w.Seconds(), rss, w.Seconds()/fl.Seconds(), xajv, verdicts)
			}
			print(floor, "", "")
			ajvV := ""
			if schema != "" {
				ajvV = checkAjv(ajv.summary, mix.Defects)
				print(ajv, "1.00", ajvV)
			}
			res.lines, res.ajvV = n, ajvV
			for i, r := range lints {
				xajv := ""
				if schema != "" {
					xajv = fmt.Sprintf("%.2f", ajv.median().Seconds()/r.median().Seconds())
				}
				v := checkMix(r.summary, mix, n)
				print(r, xajv, v)
				if jobs[i] == jmax {
					res.xFloor = r.median().Seconds() / fl.Seconds()
					if schema != "" {
						res.xAjv = ajv.median().Seconds() / r.median().Seconds()
					}
					res.rss, res.verdicts = r.rssKiB, v
				}
			}
			if !keep {
				os.Remove(path)
			}
		}
		if rssLines > 0 {
			path, mix, size, err := generateMix(dir, kind, rssLines)
			if err != nil {
				return err
			}
			m, err := measureOnce(bin, lintArgs(kind, jmax, path)...)
			if err != nil {
				return err
			}
			r := &row{name: "j=" + strconv.Itoa(jmax)}
			r.add(m)
			mb := float64(size) / 1e6
			fmt.Printf("%-17s %9d %8.1f %-8s %9.3f %10.0f %8.1f %8.1f  %7s %6s  %s\n",
				kind, rssLines, mb, r.name, m.wall.Seconds(), float64(rssLines)/m.wall.Seconds(), mb/m.wall.Seconds(), float64(m.rssKiB)/1024, "", "", checkMix(m.summary, mix, rssLines))
			res.rssBig = m.rssKiB
			if !keep {
				os.Remove(path)
			}
		}
		results = append(results, res)
		fmt.Println()
	}
	fmt.Println("x floor: agentlint's wall time divided by IsValid's (jsontext.Value.IsValid on every line, one goroutine)")
	fmt.Println("x ajv: ajv's wall time divided by agentlint's (node, ajv 8 + ajv-formats 3, the kind's schema from `agentlint schema export` compiled once, one line at a time; per-record checks only)")
	fmt.Println()
	fmt.Printf("bars at -j %d, every rule on: >= 4x ajv's throughput, <= 1.5x the floor's wall time, peak RSS <= 64 MiB, RSS %d lines / %d lines <= 1.3\n\n", jmax, rssLines, sizes[len(sizes)-1])
	ratioHead := "RSS ratio"
	if rssLines > 0 {
		ratioHead = "RSS " + short(rssLines) + "/" + short(sizes[len(sizes)-1])
	}
	fmt.Printf("| family | lines | agentlint vs ajv (throughput) | x single-core `Valid` floor (wall) | peak RSS | %s | verdicts |\n", ratioHead)
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range results {
		xajv, ratio := "-", "-"
		if r.xAjv > 0 {
			xajv = fmt.Sprintf("%.2fx%s", r.xAjv, bar(r.xAjv >= 4))
		}
		if r.rssBig > 0 && r.rss > 0 {
			x := float64(r.rssBig) / float64(r.rss)
			ratio = fmt.Sprintf("%.2f%s (%.1f MiB)", x, bar(x <= 1.3), float64(r.rssBig)/1024)
		}
		fmt.Printf("| %s | %s | %s | %.2fx%s | %.1f MiB%s | %s | %s |\n", r.kind, short(r.lines), xajv, r.xFloor, bar(r.xFloor <= 1.5),
			float64(r.rss)/1024, bar(float64(r.rss)/1024 <= 64), ratio, r.verdicts)
	}
	return nil
}

// bar marks a figure that misses its bar.
func bar(met bool) string {
	if met {
		return ""
	}
	return " **(bar missed)**"
}

// short writes a line count as 100k, 1M, 3M.
func short(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return strconv.Itoa(n/1e6) + "M"
	case n >= 1e3 && n%1e3 == 0:
		return strconv.Itoa(n/1e3) + "k"
	}
	return strconv.Itoa(n)
}

func (r *row) add(m measurement) {
	r.walls = append(r.walls, m.wall)
	r.rssKiB = max(r.rssKiB, m.rssKiB)
	r.summary = m.summary
}

// lintArgs is `agentlint lint` of a generated log of kind at -j j.
func lintArgs(kind string, j int, path string) []string {
	args := []string{"lint", "--kind", kind, "-j", strconv.Itoa(j)}
	if kind != bench.KindCollector && kind != bench.KindWorklog {
		args = append(args, "--now", bench.CoherentNow.Format(time.RFC3339))
	}
	return append(args, path)
}

// generateMix writes a realistic log of n lines of kind into dir.
func generateMix(dir, kind string, n int) (string, bench.Mix, int64, error) {
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", strings.ReplaceAll(kind, "/", "-"), n))
	f, err := os.Create(path)
	if err != nil {
		return "", bench.Mix{}, 0, err
	}
	mix, err := bench.GenerateMix(f, bench.Config{Kind: kind, Lines: n, Seed: 4})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", mix, 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", mix, 0, err
	}
	return path, mix, st.Size(), nil
}

// floorOnce times IsValidLines over the file once.
func floorOnce(path string) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := time.Now()
	_, _, err = bench.IsValidLines(f)
	return time.Since(start), err
}

// checkMix compares the summary envelope with what the generator wrote:
// exact when the records, denied records and warnings match.
func checkMix(summary []byte, mix bench.Mix, n int) string {
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
	if e.Details.Records == n && e.Details.Denied == mix.Denied && e.Details.Warnings == mix.Warnings {
		return fmt.Sprintf("exact (%d denied, %d warnings)", mix.Denied, mix.Warnings)
	}
	return fmt.Sprintf("MISMATCH: records %d denied %d warnings %d, want %d, %d, %d (by rule %v)",
		e.Details.Records, e.Details.Denied, e.Details.Warnings, n, mix.Denied, mix.Warnings, e.Details.ByRule)
}

// measureOnce runs a command once: its wall time, peak RSS and last line of
// output. Exit status 0 and 1 are results, others errors. The command's
// standard output goes to a file (on tmpfs when /dev/shm is there), as
// `agentlint lint . > report.jsonl` would, not to a pipe this harness
// reads: the collector's 473 MB of findings read through a pipe cost this
// process CPU on the cores the measured command runs on. Only the file's
// last line (the summary) is read, after the command has ended.
func measureOnce(bin string, args ...string) (measurement, error) {
	out, err := os.CreateTemp(outDir(), "lintbench-out-*")
	if err != nil {
		return measurement{}, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout = out
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measurement{}, err
	}
	hwm := make(chan int64, 1)
	done := make(chan struct{})
	go func() { hwm <- pollHWM(cmd.Process.Pid, done) }()
	err = cmd.Wait()
	wall := time.Since(start)
	close(done)
	peak := <-hwm
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		return measurement{}, fmt.Errorf("%s: %v", cmd, err)
	}
	if peak == 0 {
		peak = maxRSS(cmd.ProcessState)
	}
	last, err := fileLastLine(out)
	if err != nil {
		return measurement{}, err
	}
	return measurement{wall: wall, rssKiB: peak, summary: last}, nil
}

// outDir is where measureOnce writes a command's output: /dev/shm when it
// is a writable directory (memory, no disk writes behind the run), else
// the system's temporary directory.
var outDir = sync.OnceValue(func() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "lintbench-probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
})

// fileLastLine returns the last non-empty line of f, read from its end
// (at most the last 1 MiB: a summary envelope is far shorter).
func fileLastLine(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-1<<20, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	var l lastLine
	l.Write(buf)
	return l.line(), nil
}
