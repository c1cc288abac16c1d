package fast

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// vermasBench are one valid record of each vermas kind (seed 000 examples;
// the assignment and the template as the JSON that record.Validator makes of
// them), relative to the repository root.
var vermasBench = []struct{ kind, file string }{
	{"vermas/event", "testdata/agreement/vermas/event-created.json"},
	{"vermas/event", "testdata/agreement/vermas/event-updated.json"}, // data before event_type
	{"vermas/work-order", "testdata/seeds/vermas/.work/work_orders.jsonl"},
	{"vermas/message", "testdata/seeds/vermas/.work/messages.jsonl"},
	{"vermas/route", "testdata/seeds/vermas/.work/routes.jsonl"},
	{"vermas/assignment", "testdata/agreement/vermas/assignment.json"},
	{"vermas/template", "testdata/agreement/vermas/template.json"},
	{"vermas/process", "testdata/seeds/vermas/.work/processes/proc-abc123.json"},
}

func vermasRecord(b *testing.B, file string) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		b.Fatal(err)
	}
	if i := indexByte(raw, '\n'); i >= 0 && filepath.Ext(file) == ".jsonl" {
		raw = raw[:i]
	}
	return raw
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// BenchmarkVermas validates one record of each vermas kind with the
// generated validator ("fast") and, as the baseline of the same run,
// checks the same bytes with jsontext.Value.IsValid ("isvalid"), the floor
// of any validator that reads the whole record:
//
//	go test ./lint/fast -run '^$' -bench Vermas -benchmem
func BenchmarkVermas(b *testing.B) {
	for _, c := range vermasBench {
		raw := vermasRecord(b, c.file)
		name := c.kind[len("vermas/"):] + "/" + filepath.Base(c.file)
		b.Run(name+"/fast", func(b *testing.B) {
			d := NewDec()
			fn := Validators[c.kind]
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d.Reset(raw, 1)
				d.Validate(fn)
				if len(d.Out) != 0 {
					b.Fatal(d.Out)
				}
			}
		})
		b.Run(name+"/isvalid", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if !jsontext.Value(raw).IsValid() {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// TestCondSlots: a VerMAS event's acceptor records the members of data
// that the declaration of its event type declares (Acceptor.Cond), notes
// that declaration in Acc.Decl, and sets Acc.Loose when data has a member
// the declaration does not declare (where another type's declaration
// records a member of that name, which is then present but not recorded).
func TestCondSlots(t *testing.T) {
	acc := Acceptors["vermas/event"]
	slot := func(p string) int {
		for s, f := range acc.Fields {
			if f == p {
				return s
			}
		}
		t.Fatalf("no slot for %s", p)
		return -1
	}
	data, title, changed, agent := slot("/data"), slot("/data/title"), slot("/data/changes/title"), slot("/data/agent")
	if acc.Cond&(1<<uint(data)) != 0 || acc.Cond&(1<<uint(title)) == 0 || acc.Cond&(1<<uint(changed)) == 0 {
		t.Fatalf("Cond %#x: /data %d must not be conditional, /data/title %d and /data/changes/title %d must", acc.Cond, data, title, changed)
	}
	const head = `{"event_id":"evt-0DaBOThvysi5","timestamp":"2026-02-14T09:00:00.191Z","actor":"ceo",`
	for _, c := range []struct {
		rec         string
		decl, loose bool
		got, absent []int
	}{
		{head + `"event_type":"work_order.created","data":{"work_order_id":"wo-1","title":"T","issue_type":"bug","priority":0,"created_by":"ceo"}}`,
			true, false, []int{title}, []int{changed, agent}},
		{head + `"data":{"work_order_id":"wo-1","changes":{"title":"U"}},"event_type":"work_order.updated"}`,
			true, false, []int{changed}, []int{title}},
		{head + `"event_type":"work_order.assigned","data":{"work_order_id":"wo-1","agent":"a","assignment_path":"p","title":"T"}}`,
			true, true, []int{agent}, []int{title}},
		// No type's declaration holds: data's unconditional one ({...})
		// reads it, as any value.
		{head + `"event_type":"foo.bar","data":{"title":"T"}}`, true, true, nil, []int{title}},
	} {
		var a Acc
		if !a.Accept(acc, []byte(c.rec)) {
			t.Errorf("declined: %s", c.rec)
			continue
		}
		if got := a.Decl&(1<<uint(data)) != 0; got != c.decl {
			t.Errorf("Decl of /data %v, want %v: %s", got, c.decl, c.rec)
		}
		if a.Loose != c.loose {
			t.Errorf("Loose %v, want %v: %s", a.Loose, c.loose, c.rec)
		}
		for _, s := range c.got {
			if a.Got&(1<<uint(s)) == 0 {
				t.Errorf("%s not recorded: %s", acc.Fields[s], c.rec)
			}
		}
		for _, s := range c.absent {
			if a.Got&(1<<uint(s)) != 0 {
				t.Errorf("%s recorded: %s", acc.Fields[s], c.rec)
			}
		}
	}
}
