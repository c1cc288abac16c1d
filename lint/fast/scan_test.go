package fast

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var scanSeeds = []string{
	`{"version":"1.0.0","event_type":"activity.progress","timestamp":"2026-02-14T00:00:00Z","agent_id":"@a","event_id":"6f1c2a3e-0b4d-4c8e-9a71-000000000001","session_id":"s","progress":0.4,"message":"m","correlation":{"trace_id":"t","span_id":"s1","x_n":[1,2.5e3,-0,true,false,null,{}]}}`,
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude00 \u00e9\n\"\\\/"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}",
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `01`, `-`, `1.`, `1e`, `1e+`, `.5`, `tru`, `nul`, `[1]]`, `{}}`, `{"a":[}`, ` [ ] `,
	`"x" "y"`, "\"a\tb\"", `{"":0}`, `[[[[[[]]]]]]`, `{"a":{"b":{"c":{}}}}`, `[{"a":1},{"a":1}]`, `{"event_type":"lifecycle.start","version":"1"}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`,
}

// scanAll reads data as one JSON text with the scanner, token by token,
// and returns each token with the offset after it, or ok=false when the
// scanner does not accept data.
func scanAll(data []byte) (toks []string, offs []int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, bailed := r.(scanBail); !bailed {
				panic(r)
			}
			ok = false
		}
	}()
	var s scanner
	s.reset(data)
	for s.next() >= 0 {
		toks = append(toks, string(s.token()))
		offs = append(offs, s.p)
	}
	return toks, offs, true
}

// FuzzScanner holds the scanner to jsontext: whatever it accepts, jsontext
// accepts as the same tokens ending at the same offsets; and every
// validator reports the same violations whether it reads with the scanner
// (falling back to jsontext when the scanner bails) or with jsontext alone.
func FuzzScanner(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	kinds := []string{"collector/event", "vermas/event", "idle/event", "operator/assignment", "operator/result", "ledger/entry"}
	fast, slow := NewDec(), NewDec()
	f.Fuzz(func(t *testing.T, data []byte) {
		toks, offs, ok := scanAll(data)
		if ok {
			if !jsontext.Value(data).IsValid() {
				t.Fatalf("scanner accepts %q, jsontext does not", data)
			}
			dec := jsontext.NewDecoder(bytes.NewReader(data))
			for i, want := range toks {
				tok, err := dec.ReadToken()
				if err != nil {
					t.Fatalf("%q: token %d: jsontext: %v", data, i, err)
				}
				got := want
				if k := tok.Kind(); k == '"' || k == '0' || k == 't' || k == 'f' || k == 'n' {
					got = string(data[dec.InputOffset()-int64(len(want)) : dec.InputOffset()])
				}
				if got != want || int(dec.InputOffset()) != offs[i] {
					t.Fatalf("%q: token %d: scanner %q ending at %d, jsontext %q ending at %d", data, i, want, offs[i], got, dec.InputOffset())
				}
			}
			if _, err := dec.ReadToken(); err != io.EOF {
				t.Fatalf("%q: jsontext has more after the scanner's last token: %v", data, err)
			}
		}
		for _, kind := range kinds {
			fn := Validators[kind]
			fast.Reset(data, 1)
			fast.Validate(fn)
			slow.Reset(data, 1)
			slow.slow = true
			slow.rd.Reset(data)
			slow.d.Reset(&slow.rd)
			slow.Validate(fn)
			if !reflect.DeepEqual(slow.Out, fast.Out) {
				t.Fatalf("%s %q: jsontext reports\n%+v\nthe scanner\n%+v", kind, data, slow.Out, fast.Out)
			}
		}
	})
}

// TestScannerAllocs: a valid record is read without allocation.
func TestScannerAllocs(t *testing.T) {
	d := NewDec()
	rec := []byte(scanSeeds[0])
	fn := Validators["collector/event"]
	d.Reset(rec, 1)
	d.Validate(fn)
	if len(d.Out) != 0 {
		t.Fatalf("seed record has violations: %+v", d.Out)
	}
	if n := testing.AllocsPerRun(100, func() { d.Reset(rec, 1); d.Validate(fn) }); n != 0 {
		t.Errorf("%v allocations per record, want 0", n)
	}
}
