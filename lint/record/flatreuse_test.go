package record

import (
	"strings"
	"testing"
	"time"
)

// TestReusedValidatorAgrees: a validator that reads one record after
// another (the engine's hot path, which keeps the values it read in place
// from one record to the next when the next has the same members) reports
// for each record what a validator that reads it alone reports: records
// of the same members with other values, of other members, with a number
// the acceptor notes as wide, and ones it declines, in two orders.
func TestReusedValidatorAgrees(t *testing.T) {
	r := strings.Replace
	lines := []string{
		inPlaceAssigned,
		r(inPlaceAssigned, `"evt-05BgVNOlnTru"`, `"evt-05BgVNOlnT"`, 1),
		r(inPlaceAssigned, `workers-slot3"`, `workers-slot4"`, 1),
		inPlaceRead,
		r(inPlaceRead, `"read_at":"2026-02-14T09:00:32.291Z"`, `"read_at":"2026-02-14T09:00:32Z"`, 1),
		r(inPlaceRead, `"timestamp":"2026-02-14T09:00:32.471Z"`, `"timestamp":"2026-02-14T09:00:32+01:00"`, 1),
		inPlaceIdle,
		r(inPlaceIdle, `.599Z"`, `Z"`, 1),
		r(inPlaceIdle, `"last_activity":"bash"`, `"last_activity":"bash","n":1e300`, 1),
		r(inPlaceIdle, `"last_activity":"bash"`, `"last_activity":"bash","n":[1,{"m":-2e999}]`, 1),
		r(inPlaceAssigned, `"work_order.assigned"`, `"work_order.archived"`, 1),
		r(inPlaceAssigned, `"event_id":"evt-05BgVNOlnTru",`, ``, 1),
		r(inPlaceAssigned, `"evt-05BgVNOlnTru"`, `"evt-05BgVNOl\u006eTru"`, 1),
		r(inPlaceAssigned, `"evt-05BgVNOlnTru"`, `7`, 1),
		r(inPlaceRead, `"timestamp":"2026-02-14T09:00:32.471Z"`, `"timestamp":"2026-02-14T09:00:33Z"`, 1),
	}
	now := time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC)
	want := make([]string, len(lines))
	for i, l := range lines {
		want[i] = violationsText(NewValidator(Options{Now: now}, nil).RecordLine("vermas/event", "f.jsonl", []byte(l), 7))
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, {14, 0, 3, 0, 8, 6, 7, 6, 9, 1, 11, 2, 12, 5, 13, 4, 10, 0}} {
		v := NewValidator(Options{Now: now}, nil)
		for _, i := range order {
			if got := violationsText(v.RecordLine("vermas/event", "f.jsonl", []byte(lines[i]), 7)); got != want[i] {
				t.Errorf("record %d after others:\n got  %s\n want %s\n %s", i, got, want[i], lines[i])
			}
		}
	}
}
