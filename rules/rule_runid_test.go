package rules

import "testing"

func TestRunIDLayout(t *testing.T) {
	const canonical = `"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"`
	opRunCases(t, []opCase{
		{name: "OP004 assignment", kind: "operator/assignment", js: opRepl(t, minimalAssignment, canonical, `"3f56dc4d35cf4f97925c0b04a6fe8bf4----"`), want: []string{"OP004 /run_id"}},
		{name: "OP004 worklog", kind: "operator/worklog", js: opRepl(t, opWorklog(`"a"`, `"b"`), canonical, `"------------------------------------"`), want: []string{"OP004 /run_id"}},
		{name: "OP004 near miss: canonical upper case", kind: "operator/result", js: opRepl(t, minimalResult, canonical, `"3F56DC4D-35CF-4F97-925C-0B04A6FE8BF4"`)},
		{name: "OP004 near miss: locks have no run_id", kind: "operator/locks", js: `{"locks": []}`},
	})
}
