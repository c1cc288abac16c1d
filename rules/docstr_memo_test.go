package rules

import (
	"strings"
	"testing"
)

// vmFlatDoc is a VerMAS event read in place (Doc.Flat) with the given
// event_id and event_type JSON texts.
func vmFlatDoc(id, typ string) *Doc {
	raw := `{"event_id":` + id + `,"event_type":` + typ + `,"timestamp":"2026-02-14T09:00:00.191Z","data":{}}`
	return &Doc{Kind: "vermas/event", File: "f.jsonl", Raw: []byte(raw), Options: &Options{}, InLog: true, Flat: []Flat{
		{Pointer: "/event_id", Raw: []byte(id)},
		{Pointer: "/event_type", Raw: []byte(typ)},
		{Pointer: "/timestamp", Raw: []byte(`"2026-02-14T09:00:00.191Z"`)},
		{Pointer: "/data", Raw: []byte(`{}`)},
	}}
}

// TestDocStrPerRecord: the strings a record's document rules read
// (several read its event_type) are that record's, also when one Runner
// runs the rules of record after record, and whichever pointer was read
// last.
func TestDocStrPerRecord(t *testing.T) {
	x := new(Runner)
	// VM003 alone, which reads only event_type, and all the rules.
	var only []*Rule
	for _, r := range ForKind("vermas/event") {
		if r.ID == "VM003" {
			only = append(only, r)
		}
	}
	for _, rs := range [][]*Rule{only, ForKind("vermas/event")} {
		for _, c := range []struct{ id, typ, want string }{
			{`"evt-0DaBOThvysi5"`, `"work_order.created"`, ""},
			{`"evt-0DaBOThvysi5"`, `"work_order.archived"`, "VM003 /event_type"},
			{`"evt-0DaBOThvysi5"`, `"work_order.created"`, ""},
			{`"evt-0DaBOThv"`, `"work_order.created"`, "VM002 /event_id"},
			{`"evt-0DaBOThvysi5"`, `"work_order.\u0061rchived"`, "VM003 /event_type"},
			{`"evt-0DaBOThvysi5"`, `7`, ""},
			{`"evt-0DaBOThvysi5"`, `"mail.sent"`, ""},
		} {
			var got []string
			for _, f := range x.RunRules(vmFlatDoc(c.id, c.typ), rs, nil) {
				if strings.HasPrefix(f.Rule, "VM") {
					got = append(got, f.Rule+" "+f.Pointer)
				}
			}
			want := c.want
			if len(rs) == 1 && !strings.HasPrefix(want, "VM003") {
				want = ""
			}
			if s := strings.Join(got, ", "); s != want {
				t.Errorf("%d rules, event_id %s, event_type %s: %q, want %q", len(rs), c.id, c.typ, s, want)
			}
		}
	}
	d := vmFlatDoc(`"evt-0DaBOThvysi5"`, `"mail.sent"`)
	d.ip = &inPlaceState{}
	for _, c := range []struct {
		ptr, want string
		ok        bool
	}{
		{"/event_type", "mail.sent", true}, {"/event_type", "mail.sent", true}, {"/event_id", "evt-0DaBOThvysi5", true},
		{"/event_type", "mail.sent", true}, {"/data", "", false}, {"/nothing", "", false}, {"/event_id", "evt-0DaBOThvysi5", true},
	} {
		if s, ok := d.DocStr(c.ptr); s != c.want || ok != c.ok {
			t.Errorf("DocStr(%s) = %q, %v; want %q, %v", c.ptr, s, ok, c.want, c.ok)
		}
	}
}
