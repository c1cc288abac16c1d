//go:build devtools

package rules

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	cuedefs "github.com/agentlint/agentlint/cue"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/schema"
)

// vmRun runs the document rules of kind on js and returns the findings of
// the vermas rules, each "ID pointer".
func vmRun(t *testing.T, kind, js string, strict bool) []string {
	t.Helper()
	d := &Doc{Kind: kind, File: "test", Raw: []byte(js), Value: opDecode(t, js), Options: &Options{Now: opNow, Strict: strict}}
	var out []string
	for _, f := range Run(d, nil) {
		if strings.HasPrefix(f.Rule, "VM") {
			out = append(out, f.Rule+" "+f.Pointer)
		}
	}
	return out
}

type vmCase struct {
	name, kind, js string
	strict         bool
	want           []string
}

func vmRunCases(t *testing.T, cases []vmCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errs := opSchemaErrors(c.kind, c.js); c.kind != "vermas/template" && len(errs) > 0 {
				t.Fatalf("test document is not schema-valid: %+v", errs)
			}
			if got := vmRun(t, c.kind, c.js, c.strict); !reflect.DeepEqual(got, c.want) {
				t.Errorf("findings = %q, want %q", got, c.want)
			}
		})
	}
}

func TestVermasEventRules(t *testing.T) {
	ev, wo, msg := "vermas/event", "vermas/work-order", "vermas/message"
	idle := vermasEventOf("agent.idle", `{"idle_since":"2026-01-06T12:10:00Z","last_activity":"tool_use"}`)
	assigned := vermasEventOf("work_order.assigned", `{"work_order_id":"wo-1","agent":"a/b","assignment_path":"C:\\x\\.work\\.assignment-a-b"}`)
	vmRunCases(t, []vmCase{
		{name: "VM002 near miss: 12 characters", kind: ev, js: vermasEvent},
		{name: "VM002 11 characters", kind: ev, js: vermasRepl(vermasEvent, "evt-abc123def456", "evt-abc123def45"), want: []string{"VM002 /event_id"}},
		{name: "VM002 13 characters", kind: ev, js: vermasRepl(vermasEvent, "evt-abc123def456", "evt-abc123def4567"), want: []string{"VM002 /event_id"}},
		{name: "VM003 unknown type", kind: ev, js: vermasEventOf("mail.bounced", `{}`), want: []string{"VM003 /event_type"}},
		{name: "VM004 unknown type, strict", kind: ev, js: vermasEventOf("mail.bounced", `{}`), strict: true, want: []string{"VM004 /event_type"}},
		{name: "VM003 near miss: every seed type is known", kind: ev, js: vermasEvent, strict: true},
		{name: "VM006 event and typed data", kind: ev, js: idle, want: []string{"VM006 /data/idle_since"}},
		{name: "VM006 data field of another type is not a timestamp field", kind: ev,
			js: vermasEventOf("agent.working", `{"work_order_id":"wo-1","idle_since":"2026-01-06T12:10:00Z"}`)},
		{name: "VM006 any fraction counts", kind: ev, js: vermasRepl(vermasEvent, "12:00:00.000Z", "12:00:00.5+02:00")},
		{name: "VM006 work order and its dependencies", kind: wo,
			js:   strings.ReplaceAll(vermasWorkOrder, "10:05:00.000Z", "10:05:00Z"),
			want: []string{"VM006 /dependencies/0/created_at"}},
		{name: "VM006 near miss: unread message", kind: msg, js: vermasMessage},
		{name: "VM006 read message", kind: msg, js: vermasRepl(vermasMessage, `"read_at":null`, `"read_at":"2026-01-06T12:05:00+00:00"`),
			want: []string{"VM006 /read_at"}},
		{name: "VM016 Windows path of the right file", kind: ev, js: assigned},
		{name: "VM016 wrong agent", kind: ev, js: vermasRepl(assigned, "a-b", "a"), want: []string{"VM016 /data/assignment_path"}},
		{name: "VM016 near miss: another event type", kind: ev,
			js: vermasEventOf("agent.working", `{"work_order_id":"wo-1","agent":"a/b","assignment_path":"x"}`)},
	})
}

// TestVermasEventTypeReason: the reason names the known types of the
// namespace, or the namespaces.
func TestVermasEventTypeReason(t *testing.T) {
	for typ, want := range map[string]string{
		"mail.bounced":   `unknown event type "mail.bounced": the mail events of seed 000 are sent, delivered, read` + ExtendHint(FamilyVermas),
		"deploy.started": `unknown event type "deploy.started": seed 000 has the namespaces work_order, mail, agent, process, verify` + ExtendHint(FamilyVermas),
	} {
		d := &Doc{Kind: "vermas/event", Value: opDecode(t, vermasEventOf(typ, "{}")), Options: &Options{}}
		fs := Run(d, nil)
		if len(fs) != 1 || fs[0].Reason != want {
			t.Errorf("%s: %+v", typ, fs)
		}
		// Declared in .agentlint.toml ([vermas] event_types, or its
		// namespace): known.
		ns, _, _ := strings.Cut(typ, ".")
		for _, e := range []Extension{{EventTypes: []string{typ}}, {Namespaces: []string{ns}}} {
			d.Options = &Options{Extend: map[string]Extension{FamilyVermas: e}}
			if fs := Run(d, nil); len(fs) != 0 {
				t.Errorf("%s declared as %+v: %+v", typ, e, fs)
			}
		}
	}
}

func TestVermasTemplateRules(t *testing.T) {
	tmpl := func(steps ...string) string {
		var b strings.Builder
		b.WriteString(`{"template":"t","description":"d","version":1,"steps":[`)
		for i, s := range steps {
			if i > 0 {
				b.WriteString(",")
			}
			id, needs, _ := strings.Cut(s, ":")
			b.WriteString(`{"id":"` + id + `","title":"T","description":"D"`)
			if needs != "" {
				b.WriteString(`,"needs":["` + strings.Join(strings.Split(needs, ","), `","`) + `"]`)
			}
			b.WriteString("}")
		}
		b.WriteString("]}")
		return b.String()
	}
	k := "vermas/template"
	vmRunCases(t, []vmCase{
		{name: "diamond", kind: k, js: tmpl("a", "b:a", "c:a", "d:b,c")},
		{name: "VM033 duplicate id", kind: k, js: tmpl("a", "b:a", "a"), want: []string{"VM033 /steps/2/id"}},
		{name: "VM034 unknown step", kind: k, js: tmpl("a", "b:a,x"), want: []string{"VM034 /steps/1/needs/1"}},
		{name: "VM035 self", kind: k, js: tmpl("a:a"), want: []string{"VM035 /steps/0/needs/0"}},
		{name: "VM035 three steps, reported once at the first", kind: k, js: tmpl("x", "a:c", "b:x,a", "c:b"),
			want: []string{"VM035 /steps/1/needs/0"}},
		{name: "VM035 two cycles", kind: k, js: tmpl("a:b", "b:a", "c:d", "d:c"),
			want: []string{"VM035 /steps/0/needs/0", "VM035 /steps/2/needs/0"}},
		{name: "VM035 two cycles through one step", kind: k, js: tmpl("a:b,c", "b:a", "c:a"),
			want: []string{"VM035 /steps/0/needs/0", "VM035 /steps/0/needs/1"}},
	})
	d := &Doc{Kind: k, Value: opDecode(t, tmpl("x", "a:c", "b:x,a", "c:b")), Options: &Options{}}
	fs := Run(d, nil)
	if len(fs) != 1 || fs[0].Reason != "steps form a cycle: a → c → b → a" {
		t.Errorf("cycle reason: %+v", fs)
	}
}

func TestVermasOrderRules(t *testing.T) {
	wo, proc := "vermas/work-order", "vermas/process"
	vmRunCases(t, []vmCase{
		{name: "VM040 near miss: same instant, other offset", kind: wo,
			js: vermasRepl(vermasWorkOrder, `"updated_at":"2026-01-06T12:00:00.000Z"`, `"updated_at":"2026-01-06T11:00:00.000+01:00"`)},
		{name: "VM040 work order", kind: wo,
			js:   vermasRepl(vermasWorkOrder, `"updated_at":"2026-01-06T12:00:00.000Z"`, `"updated_at":"2026-01-06T10:00:00.000+01:00"`),
			want: []string{"VM040 /updated_at"}},
		{name: "VM040 process step", kind: proc,
			js:   vermasRepl(vermasProcess, `"completed_at": "2026-01-06T10:05:00.000Z"`, `"completed_at": "2026-01-06T09:59:59.999Z"`),
			want: []string{"VM040 /steps/0/completed_at"}},
		{name: "VM041 duplicate step", kind: proc, js: vermasRepl(vermasProcess, `"id": "implement"`, `"id": "understand"`),
			want: []string{"VM041 /steps/1/id"}},
	})
}

// TestVermasListsMatchCUE: the Go lists of event types and timestamp fields
// are the conditions and #DateTime fields of cue/vermas.cue.
func TestVermasListsMatchCUE(t *testing.T) {
	m, err := schema.Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	ev := m.Kind("vermas/event").Type.Obj
	var types []string
	for _, cd := range ev.Conds {
		if cd.Field == "event_type" {
			types = append(types, cd.Equals)
		}
	}
	if !reflect.DeepEqual(types, VermasEventTypes) {
		t.Errorf("event types of cue/vermas.cue %q, VermasEventTypes %q", types, VermasEventTypes)
	}
	dt := ev.Field("timestamp").Type.Patterns
	if len(dt) != 1 {
		t.Fatalf("timestamp patterns %q", dt)
	}
	var walk func(t *schema.Type, ptr, cond string, out *[]string)
	walk = func(t *schema.Type, ptr, cond string, out *[]string) {
		if t == nil {
			return
		}
		for _, p := range t.Patterns {
			if p == dt[0] {
				*out = append(*out, cond+ptr)
			}
		}
		walk(t.Elem, ptr+"/*", cond, out)
		if t.Obj == nil {
			return
		}
		for _, f := range t.Obj.Fields {
			walk(f.Type, ptr+"/"+f.Name, cond, out)
		}
		for _, cd := range t.Obj.Conds {
			for _, f := range cd.Fields {
				walk(f.Type, ptr+"/"+f.Name, cd.Equals+":", out)
			}
		}
	}
	for _, k := range m.Kinds {
		if !strings.HasPrefix(k.Name, "vermas/") {
			continue
		}
		var got []string
		walk(k.Type, "", "", &got)
		sort.Strings(got)
		want := append([]string(nil), VermasTimestamps[k.Name]...)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: #DateTime fields %q, VermasTimestamps %q", k.Name, got, want)
		}
	}
}

// TestVermasRuleMetadata checks the registry entries of the vermas rules.
func TestVermasRuleMetadata(t *testing.T) {
	n := 0
	for _, r := range All() {
		if !strings.HasPrefix(r.ID, "VM") {
			continue
		}
		n++
		if !opKebab.MatchString(r.Name) || r.Summary == "" || !strings.Contains(r.Source, "seed 000") {
			t.Errorf("%s: name %q, summary %q, source %q", r.ID, r.Name, r.Summary, r.Source)
		}
		if (r.Example == "" || r.Fixed == "" || r.ExampleKind == "") && r.ExampleTree == "" {
			t.Errorf("%s: no example", r.ID)
		}
		for _, k := range r.Kinds {
			if !strings.HasPrefix(k, "vermas/") {
				t.Errorf("%s: kind %s", r.ID, k)
			}
		}
		if r.Severity == envelope.SeverityWarning && r.Check == nil && Stream(r.ID) == nil {
			t.Errorf("%s: a warning needs a document or stream rule", r.ID)
		}
	}
	if n != 26+21 {
		t.Errorf("%d vermas rules, want 26 per record and 21 across records", n)
	}
}

// TestVermasEventIDLengthAndKnownTypes: the fast paths of VM002's length
// (twelve ASCII characters) and VM003's known types agree with counting
// runes and with the list of seed 000 "Event Types".
func TestVermasEventIDLengthAndKnownTypes(t *testing.T) {
	for _, c := range []struct {
		id string
		n  int
	}{
		{"evt-0DaBOThvysi5", 12}, {"evt-0DaBOThvysi", 11}, {"evt-0DaBOThvysi5x", 13}, {"evt-0DaBOThvysé", 11}, {"evt-0DaBOThvysié", 12},
		{"evt-éééééééééééé", 12}, {"evt-ééééé12", 7}, {"evt-0DaBOThvy\xffi5", 12}, {"xyz", 12}, {"evt-", 0},
		{"evt-0DaéThvys5i", 11}, {"evt-\x80DaBOThvysi5", 12}, {"evt-0DaBOThvysi\x80", 12},
	} {
		if got := vermasEventIDLength(c.id); got != c.n {
			t.Errorf("vermasEventIDLength(%q) = %d, want %d", c.id, got, c.n)
		}
	}
	for _, k := range VermasEventTypes {
		if !vermasKnownEventType(k) {
			t.Errorf("%s is not known", k)
		}
	}
	for _, k := range []string{"", "mail", "mail.sen", "mail.sent.x", "work_order.Created", "foo.bar", "mail.send", "mail.reads", "agent.workinG",
		"work_order.status_changed.and.more.than.31"} {
		if vermasKnownEventType(k) {
			t.Errorf("%q is known", k)
		}
	}
}
