package rules

import (
	"fmt"
	"testing"
)

// TestScanFramesAgreesWithDecoder: IL101's byte scan of a stack reads the
// same frames (id, iter and its offset) as the JSON decoder, or declines
// and leaves the stack to it.
func TestScanFramesAgreesWithDecoder(t *testing.T) {
	stacks := []string{
		`[]`, ` [ ] `, `[{}]`, `[1,"x",null,{"id":"a","iter":2}]`,
		`[{"id":"grind-1","mode":"grind","iter":3,"max":100},{"id":"issue-a-1","iter":-1.5e2,"x":{"iter":9,"id":"no"},"y":[1,{"a":"]"}]}]`,
		`[ {"iter" : 4 , "id" : "a b"} , {"id":"b"} , {"iter":1} ]`,
		`[{"id":"a\"b","iter":1}]`, `[{"\u0069d":"a","iter":1}]`, `[{"id":"é\u00e9","iter":0}]`,
		`[{"id":7,"iter":"3"}]`, `[{"id":"a","iter":1,"id":"b"}]`, `[{"id":"a","m":1,"m":2,"iter":1}]`, `{"id":"a"}`, `[{"id":"a","iter":1}`, `[{"id":"a","iter":1}] x`,
		`[{"id":"a","iter":1e400}]`, `[{"id":"","iter":0}]`,
	}
	var sr stackReader
	scanned := 0
	for _, s := range stacks {
		raw := []byte(s)
		got, ok := scanFrames(nil, raw)
		if !ok {
			continue
		}
		scanned++
		want, wok := sr.decodeFrames(nil, raw)
		if g, w := fmt.Sprintf("%v %q", wok, frameStrings(want)), fmt.Sprintf("%v %q", ok, frameStrings(got)); g != w {
			t.Errorf("%s: scan reads %s, the decoder %s", s, w, g)
		}
	}
	if scanned < len(stacks)/2 {
		t.Errorf("the scan read %d of %d stacks: the cases exercise little", scanned, len(stacks))
	}
}

func frameStrings(fs []idleFrame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s/%v/%d/%v", f.id, f.iter, f.iterOff, f.ok))
	}
	return out
}
