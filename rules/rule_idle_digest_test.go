package rules

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// idleStackCases are stacks for the digest's agreement tests: plain ones,
// and what the digest must decline or read as decoding does (escapes,
// repeats, elements that are not objects, numbers of every form).
var idleStackCases = []string{
	`[]`, ` [ ] `, `[{}]`, `[1,"x",null,{"id":"a","iter":2}]`, ``, `null`, `{"id":"a"}`, `"[1]"`,
	`[{"id":"grind-1","mode":"grind","iter":3,"max":100},{"id":"issue-a-1","iter":-1.5e2,"x":{"iter":9,"id":"no"},"y":[1,{"a":"]"}]}]`,
	`[ {"iter" : 4 , "id" : "a b"} , {"id":"b"} , {"iter":1} ]`,
	`[{"id":"a\"b","iter":1}]`, `[{"\u0069d":"a","iter":1}]`, `[{"id":"é\u00e9","iter":0}]`, `[{"id":"é","iter":0,"mode":"lo\u006fp"}]`,
	`[{"id":7,"iter":"3"}]`, `[{"id":"a","iter":1,"id":"b"}]`, `[{"id":"a","m":1,"m":2,"iter":1}]`, `[{"id":"a","iter":1}`, `[{"id":"a","iter":1}] x`,
	`[{"id":"a","iter":1e400}]`, `[{"id":"","iter":0}]`, `[{"id":"a","iter":1e2,"max":99}]`, `[{"id":"a","iter":100,"max":1e2}]`,
	`[{"mode":"issue","id":"x","iter":12345678901234567890,"max":3}]`, `[{"id":"a","iter":2,"max":1},{"mode":"loop"}]`,
	`[[],{"mode":"grind","id":"g","iter":1,"max":1}]`, `[{"mode":7}]`, `[{"mode":"grind","mode":"issue"}]`,
	`[{"":1,"id":"a","iter":1}]`, `[{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22,"w":23,"x":24,"y":25,"z":26,"A":27,"B":28,"C":29,"D":30,"E":31,"F":32,"G":33}]`,
}

// checkIdleDigest checks, for one stack text, that its digest reads what
// decoding reads: the frames IL101 reads (decodeFrames) and what IL009,
// IL012 and IL015 read (the number of elements, the first frame's mode,
// some iter above its max), or that it declines. It returns whether the
// digest was made. Text that is not well formed is not checked: the
// engine passes the values of records that are (as it did to scanFrames).
func checkIdleDigest(t *testing.T, raw []byte) bool {
	t.Helper()
	if len(raw) > 0 && !jsontext.Value(raw).IsValid() {
		return false
	}
	prefix := []byte("xyz")
	dg, ok := makeIdleStackDigest(prefix, raw)
	if string(dg[:3]) != "xyz" {
		t.Fatalf("%q: the digest overwrote what it was appended to", raw)
	}
	if !ok {
		if len(dg) != 3 {
			t.Fatalf("%q: a declined digest left %d bytes", raw, len(dg)-3)
		}
		return false
	}
	dg = dg[3:]
	var sr stackReader
	got, gok := appendDigestFrames(nil, dg)
	want, wok := sr.decodeFrames(nil, raw)
	for i := range want {
		if !want[i].ok {
			want[i] = idleFrame{} // IL101 reads only frames with an id and an iter
		}
	}
	if g, w := fmt.Sprintf("%v %q", gok, frameStrings(got)), fmt.Sprintf("%v %q", wok, frameStrings(want)); g != w {
		t.Errorf("%q: the digest reads %s, the decoder %s", raw, g, w)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true // not a JSON text the rules decode: only IL101's reading counts
	}
	frames, flags, m0 := idleDigestFrames(dg)
	arr, isArr := v.([]any)
	wantFrames, wantOver, wantMode := -1, false, "<none>"
	if isArr {
		wantFrames = len(arr)
		for i, e := range arr {
			fr, _ := e.(map[string]any)
			it, ok1 := fr["iter"].(float64)
			mx, ok2 := fr["max"].(float64)
			wantOver = wantOver || ok1 && ok2 && it > mx
			if m, ok := fr["mode"]; ok && i == 0 {
				wantMode = fmt.Sprint(m)
			}
		}
	}
	gotMode := "<none>"
	if flags&idleMode0 != 0 {
		var m any
		if err := json.Unmarshal(raw[m0[0]:m0[1]], &m); err != nil {
			t.Fatalf("%q: the first frame's mode %q is not a JSON value", raw, raw[m0[0]:m0[1]])
		}
		gotMode = fmt.Sprint(m)
	}
	if frames != wantFrames || flags&idleOver != 0 != wantOver || gotMode != wantMode {
		t.Errorf("%q: digest reads %d frames, over %v, first mode %s; decoded %d, %v, %s",
			raw, frames, flags&idleOver != 0, gotMode, wantFrames, wantOver, wantMode)
	}
	return true
}

// TestIdleStackDigest: the digest of a stack reads what decoding reads of
// it (IL101's frames; the elements, first mode and iter above max of IL009,
// IL012 and IL015), or declines: the cases, and random stacks.
func TestIdleStackDigest(t *testing.T) {
	made := 0
	for _, s := range idleStackCases {
		if checkIdleDigest(t, []byte(s)) {
			made++
		}
	}
	if made < len(idleStackCases)/2 {
		t.Errorf("the digest was made of %d of %d stacks: the cases exercise little", made, len(idleStackCases))
	}
	for _, s := range []string{`[{"id":"a\"b","iter":1}]`, `[{"\u0069d":"a","iter":1}]`, `[{"id":"a","iter":1,"id":"b"}]`, `[{"id":"a","iter":1}] x`} {
		if _, ok := makeIdleStackDigest(nil, []byte(s)); ok {
			t.Errorf("%s: the digest was made, want declined", s)
		}
	}
	// Names of one signature are compared: told apart, or a repeat.
	var x, y string
	for a := 'a'; a <= 'z' && y == ""; a++ {
		for b := 'a'; b <= 'z'; b++ {
			if n := string([]rune{a, b, 'c'}); n != "abc" && nameSig([]byte(n)) == nameSig([]byte("abc")) {
				x, y = "abc", n
				break
			}
		}
	}
	if y == "" {
		t.Fatal("no two names of one signature")
	}
	for _, c := range []struct {
		s    string
		made bool
	}{
		{`[{"id":"a","` + x + `":1,"iter":1,"` + y + `":2}]`, true},
		{`[{"id":"a","` + x + `":1,"iter":1,"` + x + `":2}]`, false},
		{`[{"` + x + `":[1,{"` + x + `":2}],"id":"a","iter":1}]`, true},
	} {
		checkIdleDigest(t, []byte(c.s))
		if _, ok := makeIdleStackDigest(nil, []byte(c.s)); ok != c.made {
			t.Errorf("%s: made %v, want %v", c.s, ok, c.made)
		}
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	made = 0
	for range 20000 {
		if checkIdleDigest(t, []byte(randomIdleStack(rnd))) {
			made++
		}
	}
	if made < 10000 {
		t.Errorf("the digest was made of %d of 20000 random stacks", made)
	}
}

// FuzzIdleStackDigest: for any text, the digest reads what decoding
// reads, or declines.
func FuzzIdleStackDigest(f *testing.F) {
	for _, s := range idleStackCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkIdleDigest(t, raw) })
}

// randomIdleStack returns the JSON text of a stack of up to four
// elements: mostly frames with an id, a mode, an iter and a max in any
// order and form, sometimes with escapes, repeats or other values.
func randomIdleStack(rnd *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rnd.IntN(len(xs))] }
	var b strings.Builder
	b.WriteString(pick("[", " [ ", "[\n"))
	n := rnd.IntN(5)
	for i := range n {
		if i > 0 {
			b.WriteString(pick(",", " , ", ",\n"))
		}
		if rnd.IntN(12) == 0 {
			b.WriteString(pick(`1`, `"x"`, `null`, `[]`, `[{"id":"a","iter":1}]`, `{}`))
			continue
		}
		members := []string{
			`"id":` + pick(`"grind-1-2"`, `"issue-a-1"`, `"a\"b"`, `"\u00e9"`, `""`, `7`, `"issue-a-1"`),
			`"iter":` + pick(`1`, `2`, `3`, `10`, `1e2`, `100`, `-1`, `2.5`, `"3"`, `1e400`, `12345678901234567890`),
			`"max":` + pick(`3`, `10`, `100`, `1e1`, `"x"`),
			`"mode":` + pick(`"grind"`, `"issue"`, `"loop"`, `"gr\u0069nd"`, `7`),
			pick(`"prompt_file":"/tmp/p"`, `"x":{"iter":9,"id":"no"}`, `"y":[1,{"a":"]"}]`, `"\u0069d":"z"`, `"id":"dup"`, `"filter":"label:api"`),
		}
		rnd.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		members = members[:1+rnd.IntN(len(members))]
		b.WriteString("{" + strings.Join(members, pick(",", " , ")) + "}")
	}
	b.WriteString(pick("]", " ] "))
	return b.String()
}

// TestIdleIterDigestAgrees: IL101 reports the same findings whether it
// reads the stacks' digests or their JSON text (random logs of runs whose
// frames' iters go back, with DONE and ABORT, escapes and other values).
func TestIdleIterDigestAgrees(t *testing.T) {
	run := func(digest bool) []StreamFinding {
		iters := idleIter{}.NewFile("idle.jsonl", nil).(*idleIterState)
		var got []StreamFinding
		r := &StreamReporter{on: true, sink: &streamSink{emit: func(f StreamFinding) { got = append(got, f) }}}
		rnd := rand.New(rand.NewPCG(3, 4))
		var buf []byte
		for line := 1; line <= 20000; line++ {
			rec := &StreamRecord{Line: line, Valid: rnd.IntN(20) != 0, Values: make([]Value, 3)}
			rec.Values[0] = Value{Type: ValueString, Str: []byte("STATE")}
			if rnd.IntN(15) == 0 {
				rec.Values[0].Str = []byte("DONE")
			}
			rec.Values[1] = Value{Type: ValueString, Str: []byte(fmt.Sprintf("grind-%d-1", rnd.IntN(4))), Column: 30}
			stack := []byte(randomIdleStack(rnd))
			rec.Values[2] = Value{Type: ValueRaw, Str: stack, Column: 60}
			if digest {
				var ok bool
				if buf, ok = makeIdleStackDigest(buf[:0], stack); ok {
					rec.Values[2] = Value{Type: ValueDigest, Str: buf, Column: 60}
				}
			}
			iters.Observe(rec, r)
		}
		iters.Finish(r)
		return got
	}
	text, digest := run(false), run(true)
	if len(text) < 1000 {
		t.Fatalf("only %d findings: the test does not exercise IL101", len(text))
	}
	if !reflect.DeepEqual(text, digest) {
		for i := range min(len(text), len(digest)) {
			if !reflect.DeepEqual(text[i], digest[i]) {
				t.Fatalf("finding %d: from the text %+v, from the digest %+v", i, text[i], digest[i])
			}
		}
		t.Fatalf("%d findings from the text, %d from the digest", len(text), len(digest))
	}
}

// TestDigestMemo: a memo makes a digest once per value of a record and
// tells apart values of equal text at other places; Reset forgets them.
func TestDigestMemo(t *testing.T) {
	calls := 0
	dg := &Digest{Name: "count", Make: func(dst, raw []byte) ([]byte, bool) {
		calls++
		return append(dst, byte(len(raw))), len(raw) != 2
	}}
	line := []byte(`[1] [1] []`)
	a, b, c := line[0:3], line[4:7], line[8:10]
	var m DigestMemo
	if _, _, found := m.Lookup(dg, a); found {
		t.Fatal("found before made")
	}
	if d, ok := m.Of(dg, a); !ok || string(d) != "\x03" {
		t.Fatalf("Of = %q, %v", d, ok)
	}
	m.Of(dg, a)
	if calls != 1 {
		t.Fatalf("made %d times, want once", calls)
	}
	if d, ok, found := m.Lookup(dg, a); !found || !ok || string(d) != "\x03" {
		t.Fatalf("Lookup = %q, %v, %v", d, ok, found)
	}
	if _, _, found := m.Lookup(dg, b); found {
		t.Fatal("equal text at another place found")
	}
	if _, ok := m.Of(dg, c); ok {
		t.Fatal("a declined digest reads as made")
	}
	if _, ok, found := m.Lookup(dg, c); !found || ok {
		t.Fatalf("a declined digest: ok %v, found %v", ok, found)
	}
	m.Reset()
	if _, _, found := m.Lookup(dg, a); found {
		t.Fatal("found after Reset")
	}
	var nilMemo *DigestMemo
	if _, _, found := nilMemo.Lookup(dg, a); found {
		t.Fatal("a nil memo found a digest")
	}
	if f := DigestField(dg); f != DigestField(dg) || f.Digest() != dg || FieldRaw.Digest() != nil {
		t.Fatal("DigestField does not name its digest")
	}
}

// BenchmarkIdleStackDigest: the digest of the stack of a STATE of the
// bench's idle log (lint/bench IdleLine: a grind frame and an issue frame).
func BenchmarkIdleStackDigest(b *testing.B) {
	raw := []byte(`[{"id":"grind-1771059600-0","mode":"grind","iter":1,"max":100,"prompt_file":"/tmp/idle-grind-4242/prompt.txt","filter":"label:api"},` +
		`{"id":"issue-auth-7-0","mode":"issue","iter":1,"max":100,"prompt_file":"/tmp/idle-issue-4242/prompt.txt","issue_id":"auth-7",` +
		`"worktree_path":"/srv/project-a/.worktrees/idle/auth-7","branch":"idle/issue/auth-7","base_ref":"main"}]`)
	var dst []byte
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		dst, _ = makeIdleStackDigest(dst[:0], raw)
	}
}

// TestIdleStreamAgreesWithModel: IL100 and IL101 (paged tables, the
// digest, the pair numbers remembered from one STATE to the next, the
// STATEs of a run that needs no lookup) report what a model of the rules
// over plain maps reports: random logs of a few runs whose frames keep,
// swap or repeat their ids and whose iters go back, with DONE, ABORT,
// ANCHOR and invalid records.
func TestIdleStreamAgreesWithModel(t *testing.T) {
	for seed := range uint64(4) {
		rnd := rand.New(rand.NewPCG(seed, 99))
		ends := idleAfterEnd{}.NewFile("idle.jsonl", nil).(*idleAfterEndState)
		iters := idleIter{}.NewFile("idle.jsonl", nil).(*idleIterState)
		var got []StreamFinding
		r := &StreamReporter{on: true, sink: &streamSink{emit: func(f StreamFinding) { got = append(got, f) }}}
		// The model.
		type end struct {
			line  int
			event string
			live  bool
		}
		type last struct {
			iter float64
			line int
		}
		current, mEnds, mLast := "", map[string]*end{}, map[string]*last{}
		var want []StreamFinding
		var buf []byte
		for line := 1; line <= 20000; line++ {
			valid := rnd.IntN(30) != 0
			rec := &StreamRecord{Line: line, Valid: valid, Values: make([]Value, 3)}
			ev := "STATE"
			switch k := rnd.IntN(40); {
			case k == 0:
				ev = "DONE"
			case k == 1:
				ev = "ABORT"
			case k == 2:
				ev = ""
			}
			if ev != "" {
				rec.Values[0] = Value{Type: ValueString, Str: []byte(ev)}
			}
			if ev != "STATE" {
				if valid && ev != "" && current != "" {
					mEnds[current] = &end{line, ev, true}
				}
				ends.Observe(rec, r)
				iters.Observe(rec, r)
				continue
			}
			run := fmt.Sprintf("grind-%d-1", rnd.IntN(3))
			ids := []string{run, fmt.Sprintf("issue-%d", rnd.IntN(3))}
			switch rnd.IntN(12) {
			case 0:
				ids[0], ids[1] = ids[1], ids[0]
			case 1:
				ids[1] = ids[0]
			case 2:
				ids = ids[:1]
			case 3:
				ids = append(ids, "issue-x")
			}
			var frames []string
			type fr struct {
				id   string
				iter float64
			}
			var mFrames []fr
			for _, id := range ids {
				it := rnd.IntN(6)
				if rnd.IntN(20) == 0 {
					frames = append(frames, `"x"`)
					continue
				}
				frames = append(frames, fmt.Sprintf(`{"id":%q,"mode":"grind","iter":%d,"max":100}`, id, it))
				mFrames = append(mFrames, fr{id, float64(it)})
			}
			stack := []byte("[" + strings.Join(frames, ",") + "]")
			rec.Values[1] = Value{Type: ValueString, Str: []byte(run), Column: 30}
			rec.Values[2] = Value{Type: ValueRaw, Str: stack, Column: 60}
			var ok bool
			if buf, ok = makeIdleStackDigest(buf[:0], stack); ok && rnd.IntN(10) != 0 {
				rec.Values[2] = Value{Type: ValueDigest, Str: buf, Column: 60}
			}
			ends.Observe(rec, r)
			iters.Observe(rec, r)
			if !valid {
				continue
			}
			if e := mEnds[run]; e != nil && e.live {
				e.live = false
				want = append(want, StreamFinding{Rule: "IL100", Line: line, Pointer: "/run_id", Reason: fmt.Sprintf("run %s after %s %d", run, e.event, e.line)})
			}
			current = run
			k := 0
			for i, x := range frames {
				if x == `"x"` {
					continue
				}
				f := mFrames[k]
				k++
				key := run + "\x00" + f.id
				p := mLast[key]
				if p == nil {
					mLast[key] = &last{f.iter, line}
					continue
				}
				if f.iter < p.iter {
					want = append(want, StreamFinding{Rule: "IL101", Line: line, Pointer: fmt.Sprintf("/stack/%d/iter", i),
						Reason: fmt.Sprintf("%s %v < %v of %d", f.id, f.iter, p.iter, p.line)})
				}
				if f.iter != p.iter {
					*p = last{f.iter, line}
				}
			}
		}
		ends.Finish(r)
		iters.Finish(r)
		// The rules' findings, in the model's words.
		var gotW []StreamFinding
		for _, f := range got {
			x := StreamFinding{Rule: "IL101", Line: f.Line, Pointer: f.Pointer}
			if f.Pointer == "/run_id" {
				x.Rule = "IL100"
				x.Reason = fmt.Sprintf("run %s after %s %d", strings.Fields(f.Reason)[1], f.Extra["end_event"], f.Extra["end_line"])
			} else {
				x.Reason = fmt.Sprintf("%s %v < %v of %d", f.Extra["frame"], strings.Fields(f.Reason)[1], f.Extra["previous_iter"], f.Extra["previous_line"])
			}
			gotW = append(gotW, x)
		}
		sortFindings := func(fs []StreamFinding) {
			slices.SortStableFunc(fs, func(a, b StreamFinding) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule)) })
		}
		sortFindings(gotW)
		sortFindings(want)
		if len(want) < 500 {
			t.Fatalf("seed %d: the model found only %d: the test exercises little", seed, len(want))
		}
		if !reflect.DeepEqual(gotW, want) {
			for i := range min(len(gotW), len(want)) {
				if !reflect.DeepEqual(gotW[i], want[i]) {
					t.Fatalf("seed %d: finding %d: rules %+v, model %+v", seed, i, gotW[i], want[i])
				}
			}
			t.Fatalf("seed %d: %d findings, the model %d", seed, len(gotW), len(want))
		}
	}
}
