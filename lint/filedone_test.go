package lint

import (
	"slices"
	"strings"
	"testing"
)

// TestFileDone: LintConfig.FileDone hears of every file once, in input
// order, with its record count and the lines that are not records (blank,
// too long), whatever the chunk size and the number of workers, so that a
// format can number the records without keeping them.
func TestFileDone(t *testing.T) {
	var a strings.Builder
	var wantSkip []int
	n := 0
	for i := 1; i <= 40; i++ {
		switch {
		case i%7 == 0:
			a.WriteString("  \n")
			wantSkip = append(wantSkip, i)
		case i == 12:
			a.WriteString(worklogLine(i, 3000) + "\n") // longer than record.MaxLine
			wantSkip = append(wantSkip, i)
		default:
			a.WriteString(worklogLine(i, i%5) + "\n")
			n++
		}
	}
	files := []namedData{{"a.jsonl", a.String()}, {"empty.jsonl", ""}, {"b.jsonl", worklogLine(1, 0)}}
	for _, jobs := range []int{1, 3} {
		for _, chunk := range []int{300, 4096} {
			var got []FileResult
			lintData(t, LintConfig{Jobs: jobs, ChunkSize: chunk, MaxLine: 2000, FileDone: func(f FileResult) { got = append(got, f) }}, files...)
			if len(got) != 3 || got[0].Path != "a.jsonl" || got[1].Path != "empty.jsonl" || got[2].Path != "b.jsonl" {
				t.Fatalf("jobs %d chunk %d: files %+v", jobs, chunk, got)
			}
			if got[0].Records != n || !slices.Equal(got[0].SkipLines, wantSkip) || got[0].Document || got[0].Kind != "operator/worklog" {
				t.Fatalf("jobs %d chunk %d: a.jsonl %+v, want %d records, skip %v", jobs, chunk, got[0], n, wantSkip)
			}
			if got[1].Records != 0 || len(got[1].SkipLines) != 0 || got[2].Records != 1 || len(got[2].SkipLines) != 0 {
				t.Fatalf("jobs %d chunk %d: %+v", jobs, chunk, got[1:])
			}
		}
	}
}
