package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/output"
	lintrecord "github.com/agentlint/agentlint/lint/record"
)

// mixLines is the length of the logs of BenchmarkMix.
const mixLines = 50000

// BenchmarkMix measures `agentlint lint` of a realistic log (GenerateMix)
// of each JSON Lines family, from a file as the command reads it, on one
// worker and on all, with the findings rendered as JSON Lines ("json") and
// only counted ("quiet"): the difference is what rendering the findings
// costs. Profile one with -cpuprofile to see where the time goes.
func BenchmarkMix(b *testing.B) {
	dir := b.TempDir()
	for _, kindName := range []string{KindCollector, KindWorklog, KindLedger, KindIdle, KindVermas} {
		var (
			mix  Mix
			size int64
			path = filepath.Join(dir, filepath.Base(kindName)+".jsonl")
		)
		for _, jobs := range []int{1, runtime.NumCPU()} {
			for _, mode := range []string{"json", "quiet"} {
				b.Run(fmt.Sprintf("%s/j%d/%s", kindName, jobs, mode), func(b *testing.B) {
					if size == 0 { // generated when first needed: not in other runs' profiles
						var buf bytes.Buffer
						var err error
						if mix, err = GenerateMix(&buf, Config{Kind: kindName, Lines: mixLines, Seed: 4}); err != nil {
							b.Fatal(err)
						}
						if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
							b.Fatal(err)
						}
						size = int64(buf.Len())
					}
					js := &output.JSON{} // rendered as `agentlint lint --format json` renders
					cfg := lint.LintConfig{Jobs: jobs, Out: io.Discard, Render: js.AppendRecord, RenderRecord: js.AppendRecordVerdict,
						Quiet: mode == "quiet", Options: lintrecord.Options{Now: CoherentNow}}
					b.SetBytes(size)
					for b.Loop() {
						st, err := lint.Lint(func(yield func(lint.Input) bool) {
							yield(lint.Input{Path: path, Kind: kind.Lookup(kindName)})
						}, cfg)
						if err != nil {
							b.Fatal(err)
						}
						if st.Denied != mix.Denied || st.Warnings != mix.Warnings {
							b.Fatalf("denied %d warnings %d, want %d and %d", st.Denied, st.Warnings, mix.Denied, mix.Warnings)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/mixLines, "ns/line")
				})
			}
		}
	}
}
