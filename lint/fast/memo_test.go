package fast_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/fast"
)

// TestMemoElemAgrees accepts a sequence of idle records with one Acc,
// whose MemoElem remembers the stack frames of the records before, and
// each record with a fresh Acc, and expects the same answer, the same
// Elems and the same Wide: frames repeated at the same and at other
// places of the stack, changed by a byte, with a number that sets Wide,
// with an undeclared member (declined in strict mode only), in a record
// declined after them, in both modes and with and without recording.
func TestMemoElemAgrees(t *testing.T) {
	acc := fast.Acceptors["idle/event"]
	if acc == nil {
		t.Fatal("no idle/event acceptor")
	}
	top := uint64(1) << uint(slices.Index(acc.Names, "stack"))
	frames := []string{
		`{"id":"grind-1-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api"}`,
		`{"id":"grind-1-0","mode":"grind","iter":2,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api"}`,
		`{"id":"grind-1-0","mode":"grind","iter":1e0,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api"}`,
		`{"id":"grind-1-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api","x_note":1}`,
		`{"id":"grind-1-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api","note":1}`,
		`{"id":"issue-a-0","mode":"issue","iter":3,"max":100,"prompt_file":"/tmp/q.txt","issue_id":"a","worktree_path":"/w/a","branch":"b/a","base_ref":"main"}`,
		`{"id":"issue-a-0","mode":"issue","iter":3,"max":100,"prompt_file":"/tmp/q.txt","issue_id":"a","worktree_path":"/w/a","branch":"b/a","base_ref":"main","base_ref":"x"}`,
		`{"id":"issue-a-0","mode":"issue","iter":0,"max":100,"prompt_file":"/tmp/q.txt","issue_id":"a","worktree_path":"/w/a","branch":"b/a","base_ref":"main"}`,
		`{"id":"grind-1-0", "mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/p.txt","filter":"label:api"}`,
	}
	record := func(rng *rand.Rand) string {
		var fs []string
		for k := rng.IntN(6); k > 0; k-- {
			fs = append(fs, frames[rng.IntN(len(frames))])
		}
		tail := `}`
		if rng.IntN(8) == 0 {
			tail = `,"run_id":1}` // declined after the stack
		}
		return `{"schema":0,"event":"STATE","run_id":"grind-1-0","updated_at":"2026-02-14T00:00:00.000Z","stack":[` + strings.Join(fs, ",") + `]` + tail
	}
	rng := rand.New(rand.NewPCG(20, 26))
	shared := &fast.Acc{}
	hits := 0
	for n := 0; n < 20000; n++ {
		raw := []byte(record(rng))
		strict, want := rng.IntN(4) == 0, top
		if rng.IntN(4) == 0 {
			want = 0
		}
		shared.Strict, shared.WantElems = strict, want
		fresh := &fast.Acc{Strict: strict, WantElems: want}
		got, exp := shared.Accept(acc, raw), fresh.Accept(acc, raw)
		if got != exp || got && (shared.Wide != fresh.Wide || !slices.Equal(shared.Elems, fresh.Elems)) {
			t.Fatalf("record %d (strict %v, elems %v):\n%s\nshared Acc: %v wide %v %v\nfresh Acc: %v wide %v %v", n, strict, want != 0, raw,
				got, shared.Wide, shared.Elems, exp, fresh.Wide, fresh.Elems)
		}
		if got && strings.Count(string(raw), frames[0]) > 0 {
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no record accepted with a repeated frame: the test does not reach the memo")
	}
}
