package lint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// TestIDRulesAgreeWithModel: CL100 and CL101 decide each batch of records
// at once (rules.Flusher); whatever the batch (chunk) size, whether the log
// can be read again (CL100 keeps offsets) or not (standard input: whole
// keys), and whatever the number of workers, they report exactly what a
// plain model with Go maps says: an event_id seen before in the log (UUIDs
// without case), a parent_span_id that names no span_id of its trace
// anywhere in the log, and a span that is its own parent.
func TestIDRulesAgreeWithModel(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 34))
	var b strings.Builder
	var want []string
	seenID := map[string]int{}
	type rec struct{ trace, span, parent string }
	var recs []rec
	spans := map[string]bool{}
	n := 3000
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("6f1c2a3e-0b4d-4c8e-9a71-%012x", r.IntN(n*3/2))
		if r.IntN(4) == 0 {
			id = strings.ToUpper(id)
		}
		key := strings.ToLower(id)
		if _, dup := seenID[key]; dup {
			want = append(want, fmt.Sprintf("%d:CL100", i))
		} else {
			seenID[key] = i
		}
		trace := fmt.Sprintf("trace-%d", r.IntN(40))
		sp := fmt.Sprintf("span-%d", r.IntN(60))
		if r.IntN(50) == 0 {
			sp = strings.Repeat("long-span-", 3) + sp // a key of its own set
		}
		parent := ""
		switch r.IntN(5) {
		case 0:
		case 1:
			parent = sp // its own parent
		default:
			parent = fmt.Sprintf("span-%d", r.IntN(60))
		}
		recs = append(recs, rec{trace, sp, parent})
		spans[trace+"\x00"+sp] = true
		fmt.Fprintf(&b, `{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T09:00:00.000Z","event_id":%q,"correlation":{"trace_id":%q,"span_id":%q`, id, trace, sp)
		if parent != "" {
			fmt.Fprintf(&b, `,"parent_span_id":%q`, parent)
		}
		b.WriteString("},\"agent_id\":\"@a\"}\n")
	}
	for i, c := range recs {
		switch {
		case c.parent == "":
		case c.parent == c.span:
			want = append(want, fmt.Sprintf("%d:CL101", i+1))
		case !spans[c.trace+"\x00"+c.parent]:
			want = append(want, fmt.Sprintf("%d:CL101", i+1))
		}
	}
	slices.Sort(want)
	data := b.String()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{600, 64 << 10, 1 << 20} {
		for _, jobs := range []int{1, 2} {
			for _, file := range []bool{false, true} {
				in := Input{Path: "-", Reader: strings.NewReader(data), Kind: kind.Lookup("collector/event")}
				if file {
					in = Input{Path: path, Kind: kind.Lookup("collector/event")}
				}
				var got []string
				_, err := lintWithTimeout(t, func(yield func(Input) bool) { yield(in) },
					LintConfig{Jobs: jobs, ChunkSize: chunk, Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)},
						Emit: func(e envelope.Envelope) error {
							all, _ := e.Details["violations"].([]envelope.Violation)
							for _, v := range all {
								if v.Rule == "CL100" || v.Rule == "CL101" {
									got = append(got, fmt.Sprintf("%d:%s", v.Line, v.Rule))
								}
							}
							return nil
						}})
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("chunk %d, -j %d, file %v: %d findings, want %d\n got %.300v\nwant %.300v", chunk, jobs, file, len(got), len(want), got, want)
				}
			}
		}
	}
	if len(want) < 100 {
		t.Fatalf("the model expects only %d findings: not a test of the id rules", len(want))
	}
}
