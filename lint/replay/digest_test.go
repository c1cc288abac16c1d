package replay

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"pgregory.net/rapid"
)

// genJSONString draws a JSON string literal, with escapes, non-ASCII and
// supplementary characters.
func genJSONString(t *rapid.T, label string) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{
		"a", "Z", "-", " ", `\"`, `\\`, `\/`, `\n`, `\u0041`, `\u00e9`, "é", "€", "😀", `\ud83d\ude00`, "\u2028", "<", "&", `\u001f`, "ｱ",
	}), 0, 6).Draw(t, label)
	return `"` + strings.Join(parts, "") + `"`
}

// genJSONValue draws a JSON value of bounded depth.
func genJSONValue(t *rapid.T, depth int) string {
	kinds := []string{"string", "number", "literal"}
	if depth > 0 {
		kinds = append(kinds, "object", "array")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "number":
		return rapid.SampledFrom([]string{"0", "-0", "1", "1.0", "1e3", "1E+3", "0.5", "123456789012", "-2.50", "1e-7"}).Draw(t, "number")
	case "literal":
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal")
	case "object":
		n := rapid.IntRange(0, 3).Draw(t, "members")
		var ms []string
		seen := map[string]bool{}
		for range n {
			name := genJSONString(t, "name")
			var s string
			if jsontext.Value(name).IsValid() && !seen[unquote([]byte(name))] {
				seen[unquote([]byte(name))] = true
				ms = append(ms, name+" : "+genJSONValue(t, depth-1))
			}
			_ = s
		}
		return "{" + strings.Join(ms, ",") + "}"
	case "array":
		n := rapid.IntRange(0, 3).Draw(t, "items")
		var items []string
		for range n {
			items = append(items, genJSONValue(t, depth-1))
		}
		return "[ " + strings.Join(items, ", ") + "]"
	}
	return genJSONString(t, "string")
}

// TestDigestIsCanonical: the digest decode computes member by member is the
// SHA-256 of jsontext's RFC 8785 canonicalization of the whole delta, for
// deltas with members in any order, escapes, non-ASCII names, numbers
// written in any form and nested x_ values.
func TestDigestIsCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		members := []string{
			`"task_id": "T-1"`, `"status": "todo"`, `"owner": ` + genJSONString(t, "owner"),
			`"reason": ` + genJSONString(t, "reason"), `"delta_id": ` + genJSONString(t, "delta_id"),
		}
		if rapid.Bool().Draw(t, "retry") {
			members = append(members, `"retry_after_ms": `+rapid.SampledFrom([]string{"1000", "1e3", "1000.0", "0"}).Draw(t, "retry_after_ms"))
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "extensions") {
			name := rapid.SampledFrom([]string{"x_a", "x_é", "x_😀", "x_ｱ", "x_Z", `x_\u00e9b`}).Draw(t, "x name")
			members = append(members, fmt.Sprintf(`"%s%d": %s`, name, i, genJSONValue(t, 2)))
		}
		perm := rapid.Permutation(members).Draw(t, "order")
		raw := []byte("{ " + strings.Join(perm, " ,\t") + " }")
		if !jsontext.Value(raw).IsValid() {
			t.Skip("generated an invalid document")
		}
		d, err := newDeltaDecoder(true, nil, nil).decode(raw)
		if err != nil {
			t.Fatalf("decode: %v\n%s", err, raw)
		}
		want := jsontext.Value(append([]byte(nil), raw...))
		if err := want.Canonicalize(); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(want)
		// Without digests, the fields the replay reads are the same.
		light, err := newDeltaDecoder(false, nil, nil).decode(raw)
		if err != nil {
			t.Fatalf("decode without digest: %v\n%s", err, raw)
		}
		if fmt.Sprintf("%q %q %q %q %q", light.taskID, light.deltaID, light.status, light.owner, light.vals) !=
			fmt.Sprintf("%q %q %q %q %q", d.taskID, d.deltaID, d.status, d.owner, d.vals) {
			t.Fatalf("fields differ without digest\nraw: %s", raw)
		}
		if string(d.digest[:]) != string(sum[:16]) {
			t.Fatalf("digest differs from the canonical form's\nraw:       %s\ncanonical: %s", raw, want)
		}
	})
}

// TestDecodeNotOneObject: decode's shallow scanner does not trust its
// input: a record holding two values is errTrailing, and every truncation
// of a delta (and the delta with bytes appended) is an error, never a panic
// or a delta.
func TestDecodeNotOneObject(t *testing.T) {
	delta := `{"task_id": "T-1", "status": "todo", "owner": "a\"b", "reason": "", "delta_id": "d-1", "x_n": {"a": [1, "]}"]}}`
	for _, digests := range []bool{true, false} {
		checkNotOneObject(t, newDeltaDecoder(digests, nil, nil), delta)
	}
}

func checkNotOneObject(t *testing.T, dd *deltaDecoder, delta string) {
	if _, err := dd.decode([]byte(delta)); err != nil {
		t.Fatalf("valid delta: %v", err)
	}
	if _, err := dd.decode([]byte(delta + `, {"task_id": "T-2"}`)); err != errTrailing {
		t.Fatalf("two values: %v, want errTrailing", err)
	}
	for n := range len(delta) {
		if _, err := dd.decode([]byte(delta[:n])); err == nil {
			t.Fatalf("truncated delta %q decoded", delta[:n])
		}
	}
	for _, tail := range []string{"x", "}", "]", ",", `"`} {
		if _, err := dd.decode([]byte(delta + tail)); err == nil {
			t.Fatalf("delta followed by %q decoded", tail)
		}
	}
}

// TestQuoteOrBackslash holds the eight-bytes-at-a-time scan to a byte loop,
// at every offset, with quotes, backslashes and bytes ≥ 0x80 anywhere.
func TestQuoteOrBackslash(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{'a', '"', '\\', 0x80, 0xff, 0x22 ^ 0x80, 0x5c ^ 0x80, 0, 0x21, 0x23, 0x5b, 0x5d, 0x01}), 0, 40).Draw(t, "b")
		for i := 0; i <= len(b); i++ {
			want := i
			for want < len(b) && b[want] != '"' && b[want] != '\\' {
				want++
			}
			if got := quoteOrBackslash(b, i); got != want {
				t.Fatalf("quoteOrBackslash(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	})
}

// TestTaskIndex: every task_id of BASE's rows is found at its first row,
// others are not, however the ids look.
func TestTaskIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfN(rapid.StringMatching(`[A-Za-z0-9é-]{0,6}`), 0, 200).Draw(t, "ids")
		var rows []*row
		first := map[string]int{}
		for i, id := range ids {
			rows = append(rows, &row{taskID: id})
			if _, ok := first[id]; !ok {
				first[id] = i
			}
		}
		ix := newTaskIndex(rows)
		for id, want := range first {
			if got := ix.lookup([]byte(id)); got != want {
				t.Fatalf("lookup(%q) = %d, want %d", id, got, want)
			}
		}
		probe := rapid.StringMatching(`[A-Za-z0-9é-]{0,7}`).Draw(t, "probe")
		if _, ok := first[probe]; !ok && ix.lookup([]byte(probe)) != -1 {
			t.Fatalf("lookup(%q) found an absent id", probe)
		}
	})
}

// genRow draws a ledger row object: the row fields (strings with escapes
// sometimes, dependencies) and extension members of any JSON value, with
// names that may be escaped, in any order and spacing.
func genRow(t *rapid.T) string {
	members := []string{
		`"task_id": ` + rapid.SampledFrom([]string{`"T-1"`, `"T-\u0032"`, `"T é"`}).Draw(t, "task_id"),
		`"status": ` + rapid.SampledFrom([]string{`"todo"`, `"in_progress"`, `"d\u006fne"`}).Draw(t, "status"),
	}
	if rapid.Bool().Draw(t, "owner") {
		members = append(members, `"owner": `+genJSONString(t, "owner"))
	}
	if rapid.Bool().Draw(t, "deps") {
		members = append(members, `"dependencies": [`+rapid.SampledFrom([]string{``, `"T-2"`, `"T-2", "T-\u0033"`}).Draw(t, "dep list")+`]`)
	}
	for i := range rapid.IntRange(0, 4).Draw(t, "extensions") {
		name := rapid.SampledFrom([]string{"x_a", "title", "timeout_seconds", "x_\\u00e9", "last_heartbeat_at", "retry_after_ms"}).Draw(t, "name")
		members = append(members, fmt.Sprintf(`"%s%d" :%s`, name, i, genJSONValue(t, 2)))
	}
	perm := rapid.Permutation(members).Draw(t, "order")
	return "{" + strings.Join(perm, rapid.SampledFrom([]string{",", " , ", ",\n\t"}).Draw(t, "comma")) + " }"
}

// TestParseRowFast: the shallow row reader gives the decoder's row (the
// same members, values formatted alike, fields and dependencies) whenever
// it takes the row; rowValue gives what json.Unmarshal gives for the row
// appendRow writes, with and without mutable values a delta set.
func TestParseRowFast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := []byte(genRow(t))
		if !jsontext.Value(text).IsValid() {
			t.Skip("generated an invalid row")
		}
		slow, err := parseRowSlow(text)
		if err != nil {
			t.Fatalf("parseRowSlow: %v\n%s", err, text)
		}
		fast, ok := parseRowFast(text)
		if ok {
			if a, b := fmt.Sprintf("%q %q %q %q", fast.taskID, fast.status, fast.owner, fast.deps), fmt.Sprintf("%q %q %q %q", slow.taskID, slow.status, slow.owner, slow.deps); a != b {
				t.Fatalf("fields differ\nfast: %s\nslow: %s\nrow: %s", a, b, text)
			}
			if len(fast.members) != len(slow.members) {
				t.Fatalf("%d members, want %d\nrow: %s", len(fast.members), len(slow.members), text)
			}
			for k := range fast.members {
				if fast.members[k].name != slow.members[k].name || string(fast.members[k].val) != string(slow.members[k].val) {
					t.Fatalf("member %d: %q %s, want %q %s", k, fast.members[k].name, fast.members[k].val, slow.members[k].name, slow.members[k].val)
				}
			}
		}
		st := &state{base: &ledger{rows: []*row{slow}}, rows: make([]rowState, 1)}
		if rapid.Bool().Draw(t, "delta values") {
			st.rows[0].vals[fReason] = []byte(genJSONString(t, "reason"))
			st.rows[0].vals[fTimedOut] = []byte(rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "timed_out"))
			st.rows[0].vals[fRetry] = []byte(rapid.SampledFrom([]string{"0", "1.5e3", "-2"}).Draw(t, "retry"))
		}
		got, err := st.rowValue(0)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(st.appendRow(nil, 0), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(any(got), want) {
			t.Fatalf("rowValue %#v\nwant %#v", got, want)
		}
	})
}
