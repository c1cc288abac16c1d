//go:build cueengine || devtools

package cueeval

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

// Sibling bounds: `heartbeat_interval_seconds!: int & >=5 & <timeout_seconds`.
// CUE reports a violated reference bound at heartbeat_interval_seconds and
// nothing there when timeout_seconds is itself invalid or absent (the bound
// cannot be evaluated); the fast path checks the reference only when both
// fields are individually valid. These cases pin that both agree.

const boundAssignment = `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","packet_type":"assignment",` +
	`"global_objective":"g","task":{"task_id":"T-12","title":"t","type":"serial","dependencies":[],"lock_scope":["a"],` +
	`"forbidden_scope":[],"acceptance_criteria":["c"],"worklog_path":"w"%s},"active_locks":[],"context_package":[],` +
	`"required_output_schema":"subagent_result_v1"}`

const boundHandoff = `{"schema_version":"1.0.0","run_id":"00000000-0000-0000-0000-000000000000","objective":"o","constraints":{},` +
	`"ledger":[{"task_id":"T-1","title":"t","status":"todo","owner":"","lock_scope":[],"priority":"normal"%s}],` +
	`"active_locks":[],"dependencies":[],"open_blockers":[],"acceptance_targets":[]}`

// Values of timeout_seconds and heartbeat_interval_seconds ("" = absent).
var (
	boundTimeouts   = []string{"", "null", "100", "10", "30", "100.5", "1e2", `"100"`, "9007199254740993", "9007199254740992", "-5", "true"}
	boundHeartbeats = []string{"", "null", "20", "200", "100", "99", "2", "2.5", `"x"`, "9007199254740992", "9007199254740993", "1e1"}
)

func boundPayload(tmpl, timeout, heartbeat string) []byte {
	var extra string
	if timeout != "" {
		extra += `,"timeout_seconds":` + timeout
	}
	if heartbeat != "" {
		extra += `,"heartbeat_interval_seconds":` + heartbeat
	}
	return []byte(fmt.Sprintf(tmpl, extra))
}

// boundCases is the matrix of timeout and heartbeat values in an assignment's
// task and a handoff's ledger row, strict and not.
func boundCases() []payloadCase {
	var out []payloadCase
	for _, k := range []struct{ kind, tmpl string }{
		{"operator/assignment", boundAssignment},
		{"operator/handoff", boundHandoff},
	} {
		for _, to := range boundTimeouts {
			for _, hb := range boundHeartbeats {
				for _, strict := range []bool{false, true} {
					out = append(out, payloadCase{
						id:   fmt.Sprintf("bound %s timeout=%s heartbeat=%s strict=%v", k.kind, orAbsent(to), orAbsent(hb), strict),
						kind: k.kind, raw: boundPayload(k.tmpl, to, hb), strict: strict,
					})
				}
			}
		}
	}
	return out
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// TestSiblingBound pins the verdicts of both engines on the reference bound
// and checks that they agree on the whole matrix (boundCases).
func TestSiblingBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: both engines on the whole sibling-bound matrix (~1.5 s) runs in `make test`")
	}
	e := testEngine(t)
	const hb, to = "/task/heartbeat_interval_seconds", "/task/timeout_seconds"
	for _, c := range []struct {
		timeout, heartbeat string
		want               []string // rule@pointer, sorted
	}{
		{"100", "20", nil},
		{"100", "200", []string{"OP014@" + hb}},
		{"100", "100", []string{"OP014@" + hb}},
		{"100", "2", []string{"OP014@" + hb}},
		{"100", "2.5", []string{"OP014@" + hb}},
		// An invalid or absent timeout: the bound is not evaluated.
		{"10", "200", []string{"OP013@" + to}},
		{"10", "20", []string{"OP013@" + to}},
		{"100.5", "200", []string{"OP013@" + to}},
		{`"100"`, "200", []string{"OP013@" + to}},
		{"null", "200", []string{"AL002@" + to}},
		{"", "200", []string{"AL002@" + to}},
		// Both invalid: each is reported at itself.
		{"10", "2", []string{"OP013@" + to, "OP014@" + hb}},
		{"", "", []string{"AL002@" + hb, "AL002@" + to}},
		// Above 2^53 the integers are compared exactly, not as float64.
		{"9007199254740993", "9007199254740992", nil},
		{"9007199254740992", "9007199254740993", []string{"OP014@" + hb}},
		{"9007199254740993", "9007199254740993", []string{"OP014@" + hb}},
	} {
		raw := boundPayload(boundAssignment, c.timeout, c.heartbeat)
		for name, vs := range map[string][]string{
			"fast": rulePointers(runFast("operator/assignment", raw, true)),
			"cue":  rulePointers(e.Validate("operator/assignment", raw, true)),
		} {
			if strings.Join(vs, " ") != strings.Join(c.want, " ") {
				t.Errorf("%s: timeout=%s heartbeat=%s: got %q, want %q", name, orAbsent(c.timeout), orAbsent(c.heartbeat), vs, c.want)
			}
		}
	}
	compareAll(t, e, boundCases())
}

func rulePointers(vs []envelope.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule+"@"+v.Pointer)
	}
	sort.Strings(out)
	return out
}
