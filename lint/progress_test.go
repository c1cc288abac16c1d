package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentlint/agentlint/lint/kind"
)

// TestProgressCounts: after a run, Progress counts every input as done
// (linted, skipped or unreadable), every byte of the files read or sniffed,
// and the records of the summary; Skipped gets each walked file whose kind
// is unknown, in input order, with the reason.
func TestProgressCounts(t *testing.T) {
	dir := t.TempDir()
	wl := worklogLine(1, 0) + "\n" + worklogLine(2, 0) + "\n" + worklogLine(3, 300) + "\n"
	paths := []string{
		writeFile(t, dir, "worklogs/T-1.jsonl", wl),
		writeFile(t, dir, "notes.txt", "not sniffed"),
		writeFile(t, dir, "data.json", `{"hello": 1}`+strings.Repeat(" ", 500)),
		writeFile(t, dir, "locks.json", `{"locks": []}`),
	}
	var wantBytes int64
	for _, p := range paths {
		if filepath.Ext(p) != ".txt" {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			wantBytes += st.Size()
		}
	}
	for _, chunk := range []int{64, DefaultChunkSize} { // data.json is sniffed from a first chunk smaller than it
		var prog Progress
		var skipped []string
		var out bytes.Buffer
		st, err := lintWithTimeout(t, func(yield func(Input) bool) {
			for _, p := range paths {
				if !yield(Input{Path: p}) {
					return
				}
			}
			yield(Input{Path: filepath.Join(dir, "gone.jsonl"), Err: syscall.ENOENT})
		}, LintConfig{Jobs: 2, Render: render, Out: &out, ChunkSize: chunk, Progress: &prog,
			Skipped: func(path, reason string) { skipped = append(skipped, filepath.Base(path)+": "+reason) }})
		if err != nil {
			t.Fatal(err)
		}
		if got := prog.Files.Load(); got != 5 {
			t.Errorf("chunk %d: Files = %d, want 5 (2 linted, 2 skipped, 1 unreadable)", chunk, got)
		}
		if got := prog.Bytes.Load(); got != wantBytes {
			t.Errorf("chunk %d: Bytes = %d, want %d (all but the unsniffed .txt)", chunk, got, wantBytes)
		}
		if got := prog.Records.Load(); got != int64(st.Records) || st.Records != 4 {
			t.Errorf("chunk %d: Records = %d, stats %d, want 4", chunk, got, st.Records)
		}
		want := "notes.txt: " + ReasonNotSniffed + "\ndata.json: " + ReasonNoKind
		if strings.Join(skipped, "\n") != want {
			t.Errorf("chunk %d: skipped:\n%s\nwant:\n%s", chunk, strings.Join(skipped, "\n"), want)
		}
	}
}

// TestWalkReportSkipped: with ReportSkipped the walk also yields what it
// leaves out, in place, with the reason; .git is never reported.
func TestWalkReportSkipped(t *testing.T) {
	root := tree(t, ".gitignore=*.tmp\n", "a.tmp=", "b.jsonl=", ".git/config=", "vendor/v.jsonl=", "z.jsonl=")
	cfg := &Config{Dir: root, Exclude: []string{"vendor/**"}}
	var got []string
	(&Walker{Config: cfg, ReportSkipped: true}).Walk(root, func(in Input) bool {
		rel, _ := filepath.Rel(root, in.Path)
		if in.Skipped != "" {
			rel += " (" + in.Skipped + ")"
		}
		got = append(got, filepath.ToSlash(rel))
		return true
	})
	want := ".gitignore,a.tmp (" + ReasonIgnored + "),b.jsonl,vendor (" + ReasonExcluded + "),z.jsonl"
	if strings.Join(got, ",") != want {
		t.Errorf("walk:\n%s\nwant:\n%s", strings.Join(got, ","), want)
	}
	// Without it, nothing skipped is yielded.
	got = walk(t, &Walker{Config: cfg}, root, root)
	if strings.Join(got, ",") != ".gitignore,b.jsonl,z.jsonl" {
		t.Errorf("walk without ReportSkipped: %v", got)
	}
}

// BenchmarkLintProgress compares a run with and without the progress
// counters (LintConfig.Progress): they are advanced per chunk and per file,
// so the two must not differ beyond noise.
//
//	go test ./lint -run '^$' -bench LintProgress -benchtime 20x
func BenchmarkLintProgress(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		sb.WriteString(worklogLine(i%60, 40))
		sb.WriteByte('\n')
	}
	data := sb.String()
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				cfg := LintConfig{Jobs: 2, Render: render, Out: &bytes.Buffer{}}
				if on {
					cfg.Progress = &Progress{}
				}
				if _, err := Lint(func(yield func(Input) bool) {
					yield(Input{Path: "w.jsonl", Reader: strings.NewReader(data), Kind: kind.Lookup("operator/worklog")})
				}, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
