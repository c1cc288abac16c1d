package record

import (
	"reflect"
	"testing"

	"github.com/agentlint/agentlint/rules"
)

// TestOverAgreesWithValues: Extractor.Over writing the values of record
// after record into the same memory, told which entries the previous
// record left set (what Over returned), gives each record exactly the
// values Values gives it in zeroed memory, from the acceptor's spans and
// from a scan, and returns every entry it left not zero.
func TestOverAgreesWithValues(t *testing.T) {
	kind := "vermas/event"
	var fields []rules.Field
	for _, id := range rules.StreamsForKind(kind) {
		if kr, ok := rules.Stream(id).(rules.KindRule); ok {
			fields = kr.KindFields(kind) // the VM1nn rules share one check
			break
		}
	}
	if len(fields) < 20 || len(fields) > 64 {
		t.Fatalf("%d fields", len(fields))
	}
	lines := []string{
		inPlaceAssigned, inPlaceRead, inPlaceIdle,
		`{"event_id":"evt-0ANN0knXaxjo","event_type":"work_order.updated","timestamp":"2026-02-14T09:00:00.534Z","actor":"ceo","data":{"work_order_id":"wo-daa66d2c","changes":{"priority":3,"title":"Improve \"rate\" parser"}}}`,
		`{"event_id":"evt-03XM0oBgCodE","event_type":"mail.sent","timestamp":"2026-02-14T09:00:27.278Z","actor":"a","data":{"message_id":"msg-9ccc71e37f","from":"x","to":"y","subject":"HELP","message_type":"HELP"}}`,
		`{"event_id":"evt-0FZ3W8CJORbi","event_type":"work_order.status_changed","timestamp":"2026-02-14T09:00:00.831Z","actor":"a","data":{"work_order_id":"wo-9e3779b9","from_status":"open","to_status":"in_progress"}}`,
		// Invalid records, scanned: repeated members, other types, escapes.
		`{"event_id":"a","event_id":7,"data":{"title":"x","title":null,"priority":1e999}}`,
		`{"event_id":"e\u0041","timestamp":"2026-02-14T09:00:00Z","data":{"read_at":"nope","changes":{"assignee":null}}}`,
		`{"data":{"message_id":"m"}}`,
		`[1,2]`,
		`{"event_type":"x","caused_by":`,
		inPlaceRead,
	}
	v := NewValidator(Options{}, nil)
	for _, spans := range []bool{true, false} {
		x, ref := NewExtractor(kind, fields), NewExtractor(kind, fields)
		reused := make([]rules.Value, len(fields))
		var dirty uint64
		for _, line := range lines {
			v.RecordLine(kind, "f.jsonl", []byte(line), 1)
			acc := v.Captured()
			if !spans {
				acc = nil
			}
			want := make([]rules.Value, len(fields))
			ref.Values([]byte(line), acc, want)
			dirty = x.Over([]byte(line), acc, reused, dirty)
			for i := range fields {
				if !reflect.DeepEqual(reused[i], want[i]) {
					t.Errorf("spans %v, %s in %s:\n over   %+v\n values %+v", spans, fields[i].Pointer, line, reused[i], want[i])
				}
				if dirty&(1<<uint(i)) == 0 && !reflect.DeepEqual(reused[i], rules.Value{}) {
					t.Errorf("spans %v, %s in %s: set but not returned", spans, fields[i].Pointer, line)
				}
			}
		}
	}
}
