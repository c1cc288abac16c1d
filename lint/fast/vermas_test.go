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
