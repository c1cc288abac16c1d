package lint_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
)

// Validating one payload: the envelope `agentlint validate` prints.
func ExampleValidatePayload() {
	packet := []byte(`{"schema_version": "2.0.0"}`)
	e := lint.ValidatePayload(kind.Lookup("operator/assignment"), "packet.json", packet, record.Options{}, nil)
	fmt.Println(e.Allow, e.Code, e.Details["pointer"])
	// Output: false UNKNOWN_SCHEMA_VERSION /schema_version
}

// A stream validated line by line, as `agentlint validate --stream` and
// the sessions of `agentlint serve` do: each line's envelope is decided
// at once, with the cross-record rules; Close gives the run-wide findings.
func ExampleSession() {
	s, err := lint.NewSession("collector/event", lint.SessionConfig{File: "events.jsonl"})
	if err != nil {
		panic(err)
	}
	event := `{"version":"1.0.0","event_id":"0b0e4f5e-9a57-4c3b-8d8e-1c2f3a4b5c6d","event_type":"lifecycle.started",` +
		`"timestamp":"2025-12-13T00:01:00.000Z","agent_id":"@pm-agent","correlation":{"trace_id":"t-1","span_id":"s-2","parent_span_id":"s-1"}}`
	for _, line := range []string{event, event} {
		e := s.Record([]byte(line + "\n"))
		fmt.Println(e.Details["line"], e.Code, e.Details["rule"])
	}
	sum := s.Close()
	vs := sum.Details["violations"].([]envelope.Violation)
	fmt.Println(sum.Code, sum.Details["records"], vs[0].Rule, vs[0].Severity)
	// Output:
	// 1 OK <nil>
	// 2 LEDGER_INCONSISTENT CL100
	// LEDGER_INCONSISTENT 2 CL101 warning
}

// lint.Lint on a reader: the envelopes of denied or warned records, in
// order, then the run's counts (Stats.Summary is the summary envelope).
func ExampleLint() {
	log := `{"ts":"2026-02-14T16:00:00+07:00","agent":"cls","session_id":"2026-02-14_cls_001","event":"task_start","task_id":"wo-1","source":"cls_agent","summary":"Start","data":{}}
{"ts":"2026-02-14T16:10:00+07:00","agent":"cls","session_id":"2026-02-14_cls_001","event":"crash","task_id":"wo-1","source":"cls_agent","summary":"Oops","data":{}}
`
	st, err := lint.Lint(func(yield func(lint.Input) bool) {
		yield(lint.Input{Path: "ledger.jsonl", Reader: strings.NewReader(log), Kind: kind.Lookup("ledger/entry")})
	}, lint.LintConfig{Options: record.Options{Now: time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)}, Jobs: 1,
		Emit: func(e envelope.Envelope) error {
			_, err := fmt.Fprintln(os.Stdout, e.Details["line"], e.Code, e.Details["rule"])
			return err
		}})
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Records, st.Denied, st.Summary().Code)
	// Output:
	// 2 SCHEMA_INVALID LG004
	// 2 1 SCHEMA_INVALID
}
