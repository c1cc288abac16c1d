package record

import (
	"strings"
	"testing"
)

// TestTOMLJSON pins the JSON equivalent of a TOML template and the source
// positions of its keys: floats keep a fraction, local date-times keep
// their text, a multi-line string that looks like keys and headers is not
// indexed, and arrays of tables count their elements.
func TestTOMLJSON(t *testing.T) {
	src := `# comment
template = "t"   # trailing comment
version = 1.0
"quoted.key" = nan
when = 2026-01-06T12:00:00.5Z
day = 2026-01-06
[meta]
  owner.name = "x"
[[steps]]
id = "a"
description = """
needs = ["fake"]
[[steps]]
\"""
"""
[[steps]]
id = 'b'
needs = [
  "a", # comment ]
]
[steps.extra]
k = 1
`
	c := tomlJSON([]byte(src))
	if len(c.errs) > 0 {
		t.Fatal(c.errs)
	}
	want := `{"day":"2026-01-06","meta":{"owner":{"name":"x"}},"quoted.key":"nan","steps":[{"description":"needs = [\"fake\"]\n[[steps]]\n\"\"\"\n","id":"a"},{"extra":{"k":1},"id":"b","needs":["a"]}],"template":"t","version":1.0,"when":"2026-01-06T12:00:00.5Z"}`
	if string(c.js) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", c.js, want)
	}
	for ptr, pos := range map[string]srcPos{
		"/template":         {2, 1},
		"/version":          {3, 1},
		"/quoted.key":       {4, 1},
		"/meta":             {7, 1},
		"/meta/owner/name":  {8, 3},
		"/steps/0":          {9, 1},
		"/steps/0/id":       {10, 1},
		"/steps/1":          {16, 1},
		"/steps/1/id":       {17, 1},
		"/steps/1/needs/0":  {18, 1},
		"/steps/1/extra/k":  {22, 1},
		"/steps/1/extra":    {21, 1},
		"/steps/1/title":    {16, 1}, // absent: its table header
		"/steps/2":          {1, 1},  // no such element: the root
		"/missing/deep/key": {1, 1},
	} {
		if got := c.pos.at(ptr); got != pos {
			t.Errorf("position of %s = %v, want %v", ptr, got, pos)
		}
	}
}

func TestTOMLSyntax(t *testing.T) {
	for name, src := range map[string]string{
		"unterminated array": "a = [1,\nb = 2\n",
		"duplicate key":      "a = 1\na = 2\n",
		"bad value":          "a = \n",
	} {
		c := tomlJSON([]byte(src))
		if len(c.errs) != 1 || c.errs[0].Rule != "VM030" || !c.errs[0].Parse || c.errs[0].Line < 1 || c.js != nil {
			t.Errorf("%s: %+v", name, c.errs)
		}
	}
}

func TestAssignmentJSON(t *testing.T) {
	for _, c := range []struct {
		in, js, errRule string
		refCol          int
	}{
		{in: "work_order:wo-abc123\n", js: `{"type":"work_order","reference_id":"wo-abc123"}`, refCol: 12},
		{in: "mail:msg-xyz789", js: `{"type":"mail","reference_id":"msg-xyz789"}`, refCol: 6},
		{in: "process:proc-a:b\r\n", js: `{"type":"process","reference_id":"proc-a:b"}`, refCol: 9, errRule: "AL007"},
		{in: "wo-abc123\n", errRule: "VM020"},
		{in: "mail:msg-1\nmail:msg-2\n", errRule: "VM020"},
		{in: "mail:msg-1\n\n", errRule: "VM020"},
		{in: "mail:msg\r-1", errRule: "VM020"},
		{in: "mail:\xff\n", errRule: "VM020"},
	} {
		got := assignmentJSON([]byte(c.in))
		if string(got.js) != c.js {
			t.Errorf("%q: JSON %s, want %s", c.in, got.js, c.js)
		}
		var rules []string
		for _, v := range got.errs {
			rules = append(rules, v.Rule)
		}
		if strings.Join(rules, " ") != c.errRule {
			t.Errorf("%q: violations %v, want %s", c.in, got.errs, c.errRule)
		}
		if c.js != "" && got.pos.at("/reference_id").col != c.refCol {
			t.Errorf("%q: reference at column %d, want %d", c.in, got.pos.at("/reference_id").col, c.refCol)
		}
	}
}
