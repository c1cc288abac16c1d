package summarize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/summarize"
)

// FuzzSummarize: any ledger bytes are read without a panic; every line is
// either denied (one envelope, allow false, naming its line), blank, or a
// valid entry in exactly one session's timeline; every summary keeps seed
// 003's layout: the sections in order, one timeline item per entry, each
// item on its own line.
func FuzzSummarize(f *testing.F) {
	f.Add([]byte(`{"ts":"2025-11-16T02:12:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"task_result","task_id":"wo-123","source":"gg_orchestrator","summary":"Code review completed","data":{"status":"success","duration_sec":120}}` + "\n" +
		`{"ts":"2025-11-16T02:15:00+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"error","task_id":"wo-123","source":"cls_agent","summary":"Task\nfailed","data":{"error":"x` + "`" + `"}}`))
	f.Add([]byte("\ufeff\n\r\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var denied []envelope.Envelope
		s := summarize.New(summarize.Options{Denied: func(e envelope.Envelope) error { denied = append(denied, e); return nil }})
		if err := s.Read("l.jsonl", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(data, []byte{'\n'})
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if s.Denied() != len(denied) || s.Denied()+s.Entries() > lines {
			t.Fatalf("%d denied, %d entries, %d lines", s.Denied(), s.Entries(), lines)
		}
		for _, e := range denied {
			if l, _ := e.Details["line"].(int); e.Allow || l < 1 || l > lines {
				t.Fatalf("denied envelope %+v", e)
			}
		}
		n := 0
		for _, ss := range s.Sessions() {
			n += len(ss.Timeline)
			md := string(ss.Markdown())
			at := 0
			for _, h := range []string{"# ", "\n\n**Date:** ", "\n**Total Events:** ", "\n\n## Timeline\n\n", "\n\n## Tasks Completed\n\n", "\n\n## Errors\n\n", "\n\n## Notes\n\n" + summarize.Notes + "\n"} {
				i := strings.Index(md[at:], h)
				if i < 0 {
					t.Fatalf("summary lacks %q after byte %d:\n%s", h, at, md)
				}
				at += i + len(h)
			}
			items := strings.Count(md[:strings.Index(md, "\n## Tasks Completed")], "\n- **")
			if items != len(ss.Timeline) {
				t.Fatalf("%d timeline items for %d entries:\n%s", items, len(ss.Timeline), md)
			}
		}
		if n != s.Entries() {
			t.Fatalf("%d entries in timelines, %d read", n, s.Entries())
		}
	})
}
