//go:build cueengine || devtools

package cueeval

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
)

const validResult = `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","task_id":"T-12",` +
	`"status":"done","changes":[],"acceptance_check":[{"criterion":"c","status":"pass","evidence":"e"}],` +
	`"worklog_path":"w","notes_for_orchestrator":[]}`

func sub(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("test payload lacks " + old)
	}
	return strings.Replace(s, old, new, 1)
}

func TestValidate(t *testing.T) {
	e := testEngine(t)
	for _, c := range []struct {
		name   string
		kind   string
		raw    string
		strict bool
		want   []string // rule@pointer, sorted
	}{
		{name: "valid", kind: "operator/result", raw: validResult},
		{name: "x_ extension strict", kind: "operator/result", raw: sub(validResult, `"task_id"`, `"x_a":{"b":1},"task_id"`), strict: true},
		{name: "unknown non-strict", kind: "operator/result", raw: sub(validResult, `"task_id"`, `"zz":1,"task_id"`)},
		{name: "unknown strict", kind: "operator/result", raw: sub(validResult, `"task_id"`, `"zz":[1],"task_id"`), strict: true,
			want: []string{"AL004@/zz"}},
		{name: "open struct strict", kind: "operator/orchestrator-output", strict: true,
			raw: `{"schema_version":"1.0.0","run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4","ledger_delta":[],` +
				`"assignments":[{"anything":1}],"active_locks":[],"blockers":[],"next_actions":[]}`},
		{name: "missing", kind: "operator/result", raw: sub(validResult, `"worklog_path":"w",`, ``),
			want: []string{"AL002@/worklog_path"}},
		{name: "null required", kind: "operator/result", raw: sub(validResult, `"worklog_path":"w"`, `"worklog_path":null`),
			want: []string{"AL002@/worklog_path"}},
		{name: "empty rule", kind: "operator/result", raw: sub(validResult, `"worklog_path":"w"`, `"worklog_path":""`),
			want: []string{"OP002@/worklog_path"}},
		{name: "field rule", kind: "operator/result", raw: sub(validResult, `"1.0.0"`, `"2.0.0"`),
			want: []string{"OP001@/schema_version"}},
		{name: "element rule", kind: "operator/result", raw: sub(validResult, `"notes_for_orchestrator":[]`, `"notes_for_orchestrator":["a",1,""]`),
			want: []string{"OP021@/notes_for_orchestrator/1", "OP021@/notes_for_orchestrator/2"}},
		{name: "check at its sibling", kind: "operator/result", raw: sub(validResult, `"status":"pass"`, `"status":"fail"`),
			want: []string{"OP020@/acceptance_check/0/status"}},
		{name: "check off", kind: "operator/result", raw: sub(sub(validResult, `"status":"pass"`, `"status":"fail"`), `"done"`, `"blocked"`)},
		{name: "check empty", kind: "operator/result", raw: sub(validResult, `[{"criterion":"c","status":"pass","evidence":"e"}]`, `[]`),
			want: []string{"OP020@/acceptance_check"}},
		// CUE hides the other errors of a struct whose check condition is
		// absent, or that has a conflict: the engine unmasks them.
		{name: "condition absent", kind: "operator/result", strict: true,
			raw:  sub(sub(validResult, `"status":"done",`, `"zz":1,`), `"worklog_path":"w"`, `"worklog_path":5`),
			want: []string{"AL002@/status", "AL004@/zz", "OP008@/worklog_path"}},
		{name: "conflict hides required", kind: "operator/result", strict: true,
			raw:  sub(sub(validResult, `"run_id":"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",`, `"zz":1,`), `"task_id":"T-12"`, `"task_id":5`),
			want: []string{"AL002@/run_id", "AL004@/zz", "OP005@/task_id"}},
		{name: "root null", kind: "operator/locks", raw: `null`, want: []string{"AL002@"}},
		{name: "root array", kind: "operator/locks", raw: `[]`, want: []string{"AL003@"}},
		{name: "escaped pointer", kind: "operator/locks", raw: `{"locks":[],"a/b~c":1}`, strict: true,
			want: []string{"AL004@/a~1b~0c"}},
		{name: "syntax", kind: "operator/locks", raw: `{"locks":[],}`, want: []string{"AL001@"}},
		{name: "duplicate key", kind: "operator/locks", raw: `{"locks":[],"locks":[]}`, want: []string{"AL001@"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := e.Validate(c.kind, []byte(c.raw), c.strict)
			var got []string
			for _, v := range vs {
				got = append(got, v.Rule+"@"+v.Pointer)
				if v.Code != "" || v.Severity != "" {
					t.Errorf("%s: code and severity must be left to the caller", v.Rule)
				}
				if v.Parse != (v.Rule == "AL001") {
					t.Errorf("%s: Parse = %v", v.Rule, v.Parse)
				}
				if strings.HasPrefix(v.Reason, "#") || v.Reason == "" {
					t.Errorf("%s %s: reason %q", v.Rule, v.Pointer, v.Reason)
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestReasonAndPosition(t *testing.T) {
	e := testEngine(t)
	raw := "{\"locks\": [\n  {\"task_id\": \"T-1\", \"resource\": \"r\", \"active\": \"yes\"}\n]}"
	vs := e.Schema("operator/locks", []byte(raw), 10, false)
	if len(vs) != 1 {
		t.Fatalf("got %v", vs)
	}
	v := vs[0]
	want := envelope.Violation{Rule: "AL003", Pointer: "/locks/0/active", Line: 11, Column: 49,
		Reason: `locks.0.active: conflicting values "yes" and bool (mismatched types string and bool)`}
	if v.Rule != want.Rule || v.Pointer != want.Pointer || v.Line != want.Line || v.Column != want.Column || v.Reason != want.Reason {
		t.Errorf("got %+v\nwant %+v", v, want)
	}
	// The fast path reports the same position.
	f := runFast("operator/locks", []byte(raw), false)
	if len(f) != 1 || f[0].Line != 2 || f[0].Column != 49 {
		t.Errorf("fast path: %+v", f)
	}
}

func TestKinds(t *testing.T) {
	e := testEngine(t)
	ks := e.Kinds()
	if len(ks) == 0 || !sort.StringsAreSorted(ks) {
		t.Fatalf("Kinds() = %q", ks)
	}
	for _, k := range ks {
		if !e.Has(k) {
			t.Errorf("Has(%s) = false", k)
		}
	}
	if e.Has("operator/nope") {
		t.Error(`Has("operator/nope") = true`)
	}
}

// TestConcurrent runs the engine from several goroutines (go test -race).
func TestConcurrent(t *testing.T) {
	e := testEngine(t)
	raw := []byte(sub(validResult, `"status":"pass"`, `"status":"fail"`))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				vs := e.Validate("operator/result", raw, true)
				if len(vs) != 1 || vs[0].Pointer != "/acceptance_check/0/status" {
					t.Errorf("got %+v", vs)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestNotAnObject: a payload that is not a JSON object gets one finding at
// the root, the fast path's, for every kind and with --strict
// (CUE's own error named a field of the definition, printed an array as
// "%!v(PANIC=...)" and, with --strict, added "field not allowed" for the
// elements: FuzzAgreement crasher 18c7cb24).
func TestNotAnObject(t *testing.T) {
	e := testEngine(t)
	for _, kind := range e.Kinds() {
		for _, payload := range []string{`[{"":""}]`, `[]`, `"x"`, `7`, `null`} {
			for _, strict := range []bool{false, true} {
				vs := e.Validate(kind, []byte(payload), strict)
				if len(vs) != 1 || vs[0].Pointer != "" || strings.Contains(vs[0].Reason, "PANIC") {
					t.Errorf("%s %s strict=%v: %+v, want one finding at the root", kind, payload, strict, vs)
					continue
				}
				// null at the root is the fast path's "required field is
				// null"; anything else is not an object.
				if want := "must be object, not "; payload != "null" && !strings.HasPrefix(vs[0].Reason, want) {
					t.Errorf("%s %s strict=%v: reason %q, want %q...", kind, payload, strict, vs[0].Reason, want)
				}
			}
		}
	}
}
