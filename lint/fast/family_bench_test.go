package fast

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// Benchmarks of the ledger, collector and idle validators, each with
// jsontext.Value.IsValid over the same bytes as the baseline of the same
// run (syntax only: the cost floor of reading the record). Compare with
//
//	go test ./lint/fast -run '^$' -bench 'Family' -benchmem

var familyRecords = []struct{ kind, raw string }{
	// seed 003 "Entry Structure"
	{"ledger/entry", `{"ts":"2025-11-16T02:12:34+07:00","agent":"cls","session_id":"2025-11-16_cls_001","event":"task_result","task_id":"wo-251116-agents-layout","source":"gg_orchestrator","summary":"Completed /agents layout SPEC + PLAN","data":{"status":"success","duration_sec":132,"files_touched":["path1","path2"]}}`},
	// seed 003 "Status Structure"
	{"ledger/status", `{"agent":"cls","state":"idle","last_heartbeat":"2025-11-16T02:10:00+07:00","last_task_id":"wo-251116-agents-layout","session_id":"2025-11-16_cls_001","last_error":null}`},
	// every field of seed 004's schema (testdata/agreement/collector)
	{"collector/event", `{"version":"1.2.3","event_type":"hook.post_tool_use","timestamp":"2025-12-13T20:10:02.500+01:00","agent_id":"@backend-engineer","event_id":"550e8400-e29b-41d4-a716-446655440000","session_id":"sess-abc123","source":"hook","status":"progress","message":"Grep completed","progress":0.75,"tool":{"tool_name":"Grep","tool_input":{"pattern":"async def"},"tool_result":"success","duration_ms":2500},"hook":{"hook_type":"PostToolUse","raw_payload":{"session":"abc"}},"correlation":{"trace_id":"trace-abc","span_id":"span-002","parent_span_id":"span-001","root_agent_id":"@orchestrator"},"metadata":{"custom_key":"value","x":[1,2]}}`},
	// seed 002 "Nested Grind/Issue STATE"
	{"idle/event", `{"schema":0,"event":"STATE","run_id":"grind-1703123456-12345","updated_at":"2024-12-21T10:30:00Z","stack":[{"id":"grind-1703123456-12345","mode":"grind","iter":3,"max":100,"prompt_file":"/tmp/idle-grind-xxx/prompt.txt","filter":"priority:1"},{"id":"issue-auth-123-1703123456","mode":"issue","iter":2,"max":10,"prompt_file":"/tmp/idle-issue-xxx/prompt.txt","issue_id":"auth-123","worktree_path":"/path/to/.worktrees/idle/auth-123","branch":"idle/issue/auth-123","base_ref":"main"}]}`},
	// seed 002 "ANCHOR Event"
	{"idle/event#anchor", `{"schema":0,"goal":"Working on issue: auth-123","mode":"issue","iteration":"3/10","progress":"Recent commits: abc1234; def5678; ghi9012","modified_files":"src/auth.py, tests/test_auth.py, README.md","next_step":"Continue working on the task. Check git status and loop state.","timestamp":"2024-12-21T10:30:00Z"}`},
}

func kindOfBench(name string) string {
	for i := range name {
		if name[i] == '#' {
			return name[:i]
		}
	}
	return name
}

func BenchmarkFamily(b *testing.B) {
	for _, r := range familyRecords {
		buf := []byte(r.raw)
		fn := Validators[kindOfBench(r.kind)]
		b.Run(r.kind+"/fast", func(b *testing.B) {
			d := NewDec()
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d.Reset(buf, 1)
				d.Validate(fn)
				if len(d.Out) != 0 {
					b.Fatal(d.Out)
				}
			}
		})
		if acc := Acceptors[kindOfBench(r.kind)]; acc != nil {
			b.Run(r.kind+"/accept", func(b *testing.B) {
				a := &Acc{}
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if !a.Accept(acc, buf) {
						b.Fatal("declined")
					}
				}
			})
		}
		b.Run(r.kind+"/jsontext-IsValid", func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if !jsontext.Value(buf).IsValid() {
					b.Fatal("invalid")
				}
			}
		})
	}
}
