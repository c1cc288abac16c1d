package replay_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentlint/agentlint/lint/replay"
)

// Replaying a stream of ledger deltas onto a ledger, as an orchestrator
// does before it reconciles state (seed "001 operator contracts", "Ledger
// Delta Application Semantics"): the first delta starts T-1 (its
// dependency T-9 is done), the second repeats it with the same content
// and is skipped (D2), the third would start T-2 before its dependency
// T-1 is done and is rejected (RP006). The verdict denies, so there is
// no merged ledger; without the third delta WriteLedger would write it.
func ExampleRun() {
	base := `{"task_id": "T-9", "status": "done", "owner": "agent-9"}
{"task_id": "T-1", "status": "todo", "owner": "agent-1", "dependencies": ["T-9"]}
{"task_id": "T-2", "status": "todo", "owner": "agent-2", "dependencies": ["T-1"]}
`
	deltas := `{"task_id": "T-1", "status": "in_progress", "owner": "agent-1", "reason": "assigned", "delta_id": "d-1"}
{"task_id": "T-1", "status": "in_progress", "owner": "agent-1", "reason": "assigned", "delta_id": "d-1"}
{"task_id": "T-2", "status": "in_progress", "owner": "agent-2", "reason": "assigned", "delta_id": "d-2"}
`
	res, err := replay.Run(
		replay.Input{Name: "ledger.jsonl", R: strings.NewReader(base)},
		[]replay.Input{{Name: "deltas.jsonl", R: strings.NewReader(deltas)}},
		replay.Options{})
	if err != nil {
		panic(err)
	}
	e := res.Envelope
	fmt.Println(e.Allow, e.Code)
	fmt.Println(e.Details["applied"], e.Details["skipped_duplicates"], e.Details["rejected"])
	fmt.Println(res.WriteLedger(os.Stdout) == replay.ErrNoLedger)
	// Output:
	// false DEPENDENCY_NOT_MET
	// 1 1 1
	// true
}
