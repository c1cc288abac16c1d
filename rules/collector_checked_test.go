package rules

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/secrets"
)

// TestCL101CheckedReason: CL101 marks a finding Checked exactly when its
// reason and its trace_id detail hold no secret: it scans the quoted
// parent_span_id and trace_id and its fixed texts instead of the whole
// reason, and no secret pattern can match across the quotes. Ids are
// made of fragments of every secret pattern, quotes, escapes, white space
// and separators, so that patterns straddle the values' ends.
func TestCL101CheckedReason(t *testing.T) {
	frags := []string{
		"sk-", "sk-ant-", "api03-", "AKIA", "ASIA", "ghp_", "github_pat_", "xoxb-", "-----BEGIN ", "RSA PRIVATE KEY", "-----",
		"eyJ", ".", "key", "token", "password", "API_KEY", "secret", "=", ":", ":=", " ", "\t", "\"", "'", "`", "\\", "\n",
		"abcdefghij", "ABCDEFGHIJ", "0123456789", "Tr0ub4dor-EXAMPLE", "_", "-", "<", ">", "\x00", "é", "\xff", "hunter2hunter2",
	}
	rnd := rand.New(rand.NewPCG(22, 101))
	gen := func() string {
		var b strings.Builder
		for n := rnd.IntN(8); n > 0; n-- {
			f := frags[rnd.IntN(len(frags))]
			for k := rnd.IntN(3); k >= 0; k-- {
				b.WriteString(f)
			}
		}
		return b.String()
	}
	const n = 20000
	recs := make([]spanRec, 0, n)
	for i := 0; i < n; i++ {
		r := spanRec{trace: gen(), span: "s", parent: gen()}
		if r.parent == "" || r.parent == "s" {
			r.parent = "p"
		}
		if i%7 == 0 {
			r.trace = "" // events without a trace_id
		}
		recs = append(recs, r)
	}
	run := &LintRun{}
	c := (&collectorParentSpan{}).BindRun(run).(*collectorParentSpan)
	rep := NewStreamReporter("CL101")
	str := func(s string) Value {
		if s == "" {
			return Value{}
		}
		return Value{Type: ValueString, Str: []byte(s)}
	}
	tree := c.NewTree(nil)
	st := c.NewFile("events.jsonl", nil)
	for i, r := range recs {
		st.Observe(&StreamRecord{Line: i + 1, Valid: true, Values: []Value{str(r.trace), str(r.span), str(r.parent)}}, rep)
	}
	st.Finish(rep)
	tree.AddFile("events.jsonl", st)
	tree.Finish(rep)
	fs := rep.Take()
	if len(fs) != n {
		t.Fatalf("%d findings, want %d (every parent dangles)", len(fs), n)
	}
	var checked, secret int
	for _, f := range fs {
		trace, _ := f.Extra["trace_id"].(string)
		// The reason quotes both ids as strconv.Quote does.
		r := recs[f.Line-1]
		want := "parent_span_id " + strconv.Quote(r.parent) + " names no span_id of trace_id " + strconv.Quote(r.trace) + " in the "
		if r.trace == "" {
			want = "parent_span_id " + strconv.Quote(r.parent) + " names no span_id of the events without a trace_id in the "
		}
		if !strings.HasPrefix(f.Reason, want) {
			t.Fatalf("line %d: reason %q, want it to begin with %q", f.Line, f.Reason, want)
		}
		_, inReason := secrets.Scan(f.Reason)
		_, inTrace := secrets.Scan(trace)
		if want := !inReason && !inTrace; f.Checked != want {
			t.Fatalf("line %d: Checked %v, want %v: reason %q, trace_id %q", f.Line, f.Checked, want, f.Reason, trace)
		}
		if f.Checked {
			checked++
		} else {
			secret++
		}
	}
	if checked < n/10 || secret < n/10 {
		t.Fatalf("%d checked, %d with a secret: the ids do not exercise both", checked, secret)
	}
}

// TestCL010Checked: CL010's finding for an event type is Checked exactly
// when neither its reason nor its namespace holds a secret, so that an
// event type that names a token is still redacted by the engine.
func TestCL010Checked(t *testing.T) {
	for typ, want := range map[string]bool{
		"decision.escalated": true,
		"system.metrics":     true,
		"decision.ghp_abcdefghijklmnopqrstuvwxyzabcdefghij": false, // a GitHub token's shape
	} {
		u := unknownTypeOf(typ)
		_, inReason := secrets.Scan(u.reason)
		if u.checked != want || u.checked == inReason {
			t.Errorf("%s: checked %v, want %v (the reason holds a secret: %v)", typ, u.checked, want, inReason)
		}
	}
}
