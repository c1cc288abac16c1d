package fast_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlint/agentlint/lint/fast"
)

// decodeEdges are texts where a hand-written decoder and json.Unmarshal
// could part: numbers at and beyond float64's range, escapes, surrogates,
// invalid UTF-8, duplicates, white space, nesting, truncation.
var decodeEdges = []string{
	`0`, `-0`, `1e308`, `1e309`, `-1e999`, `1E400`, `4.9e-324`, `1e-400`, `0.1`, `123456789012345678901234567890`,
	`01`, `1.`, `.5`, `+1`, `-`, `1e`, `1e+`, `NaN`, `Infinity`,
	`""`, `"\u0000"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\x"`, `"\/"`, `"a\"b"`, "\"\xff\"", "\"\xc3\xa9\"", "\"a\tb\"",
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":1}}`, `[{"a":1},{"a":1}]`,
	` {"a" : [ 1 , 2 ] } `, "\t[]\n", `{}`, `[]`, `[[]]`, `{"":{}}`, `[1,]`, `{"a":1,}`, `[1 2]`, `{"a" 1}`, `{1:2}`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `[true,false,null]`, `{"a":nullx}`, `1 2`, `{} {}`, ``, ` `,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200),
}

// checkDecode reports how fast.Decode and json.Unmarshal into any part on
// raw: Decode must decode exactly what Unmarshal decodes, with the same
// value, and decline exactly what Unmarshal rejects.
func checkDecode(raw []byte) string {
	x, ok := fast.Decode(raw)
	var y any
	err := json.Unmarshal(raw, &y)
	switch {
	case ok && err != nil:
		return "Decode decoded text json.Unmarshal rejects: " + err.Error()
	case !ok && err == nil:
		return "Decode declined text json.Unmarshal decodes"
	case ok && !reflect.DeepEqual(x, y):
		return "values differ"
	}
	return ""
}

// TestDecodeAgreesWithUnmarshal: on every record of the acceptors' corpus
// (testdata, ../shared, mutations, generated logs of every JSON Lines
// family) and on the edge cases, fast.Decode and json.Unmarshal agree.
func TestDecodeAgreesWithUnmarshal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: Decode against encoding/json on every file and mutation (~3 s) runs in `make test`")
	}
	payloads := acceptPayloads(t)
	for _, e := range decodeEdges {
		payloads = append(payloads, []byte(e))
	}
	decoded := 0
	for _, raw := range payloads {
		if p := checkDecode(raw); p != "" {
			t.Errorf("%.200q: %s", raw, p)
		}
		if _, ok := fast.Decode(raw); ok {
			decoded++
		}
	}
	if decoded < len(payloads)/2 {
		t.Errorf("decoded %d of %d texts: the corpus exercises little", decoded, len(payloads))
	}
}

func FuzzDecode(f *testing.F) {
	for _, e := range decodeEdges {
		f.Add([]byte(e))
	}
	for _, line := range bytes.Split([]byte(acceptEdges[0]+"\n"+acceptEdges[1]), []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if p := checkDecode(raw); p != "" {
			t.Fatalf("%q: %s", raw, p)
		}
	})
}

// BenchmarkDecode decodes the stack of an idle STATE (seed 002 "State
// Snapshot": two frames) and a VerMAS event's data, as the document rules
// of those kinds have them decoded.
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"idle-stack", `[{"id":"grind-1771059600-7","mode":"grind","iter":2,"max":100,"prompt_file":"/tmp/idle-grind-4242/prompt.txt","filter":"label:api"},` +
			`{"id":"issue-auth-7-7","mode":"issue","iter":9,"max":100,"prompt_file":"/tmp/idle-issue-4242/prompt.txt","issue_id":"auth-7",` +
			`"worktree_path":"/srv/project-a/.worktrees/idle/auth-7","branch":"idle/issue/auth-7","base_ref":"main"}]`},
		{"vermas-data", `{"work_order_id":"wo-1a2b3c4d","from":"open","to":"in_progress","reason":"assigned to project-a/workers/slot1","priority":2,"labels":["api","auth"]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := []byte(c.text)
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := fast.Decode(raw); !ok {
					b.Fatal("not decoded")
				}
			}
		})
	}
}
