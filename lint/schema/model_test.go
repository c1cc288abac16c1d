//go:build cueengine || devtools

package schema

import (
	"strings"
	"testing"

	cuedefs "github.com/agentlint/agentlint/cue"
)

func TestCompileEmbedded(t *testing.T) {
	m, err := Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind("operator/assignment") == nil {
		t.Fatalf("operator/assignment missing; kinds: %v", m.Kinds)
	}
	a := m.Kind("operator/assignment").Type
	var task *Field
	for _, f := range a.Obj.Fields {
		if f.Name == "task" {
			task = f
		}
	}
	if task == nil || !task.Required {
		t.Fatal("task must be a required field")
	}
	var hb *Field
	for _, f := range task.Type.Obj.Fields {
		if f.Name == "heartbeat_interval_seconds" {
			hb = f
		}
	}
	if hb == nil || hb.Rule != "OP014" || len(hb.Type.Bounds) != 2 || hb.Type.Bounds[1].Ref != "timeout_seconds" {
		t.Fatalf("heartbeat_interval_seconds compiled wrong: %+v", hb)
	}
}

// TestConditionalModel: conditional declarations unify with the
// unconditional one (a later @rule wins, required if either is, struct
// literals keep the fields of both) and Variants enumerates one variant per
// discriminator value that declares the member, "none holds" last.
func TestConditionalModel(t *testing.T) {
	src := `package agentlint
#A: {
	@kind(x/a)
	t!: "p" | "q" | "r"
	u?: string
	d?: {a?: int, ...} @rule(R1)
	if t == "p" {
		d!: {b!: string} @rule(R2)
	}
	if u != _|_ if u == "z" {
		d?: {c?: bool}
	}
	if u == _|_ {
		e?: int
	}
}
`
	m, err := Compile(mapFS{"a.cue": src})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Kind("x/a").Type.Obj
	if got := strings.Join(o.Names(), " "); got != "t u d e" {
		t.Fatalf("Names() = %q", got)
	}
	c := o.Conds
	if len(c) != 3 || c[0].Guarded || !c[1].Guarded || !c[2].Absent || c[2].String() != "u is absent" {
		t.Fatalf("conditions compiled wrong: %+v %+v %+v", c[0], c[1], c[2])
	}
	f, err := o.FieldFor("d", []bool{true, true, false})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range f.Type.Obj.Fields {
		names = append(names, x.Name)
	}
	if !f.Required || f.Rule != "R2" || !f.Type.Obj.Open || strings.Join(names, " ") != "a b c" {
		t.Fatalf("d when t is p and u is z: %+v %v", f, names)
	}
	if f, _ := o.FieldFor("d", nil); f.Required || f.Rule != "R1" {
		t.Fatalf("d unconditionally: %+v", f)
	}
	if f, _ := o.FieldFor("e", []bool{false, false, false}); f != nil {
		t.Fatalf("e without its condition: %+v", f)
	}
	vs, err := o.Variants("d")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || len(vs[3].On) != 0 || len(vs[3].Off) != 2 || vs[3].Field.Required {
		t.Fatalf("Variants(d) = %+v", vs)
	}
}

// TestPatternDesc: a definition's @desc names its regular expression, so
// reasons say what a value should be instead of printing the regex.
func TestPatternDesc(t *testing.T) {
	m, err := Compile(cuedefs.Files)
	if err != nil {
		t.Fatal(err)
	}
	var task *Field
	for _, f := range m.Kind("operator/worklog").Type.Obj.Fields {
		if f.Name == "task_id" {
			task = f
		}
	}
	if task == nil || len(task.Type.Patterns) != 1 {
		t.Fatalf("operator/worklog task_id: %+v", task)
	}
	if got := m.PatternDesc[task.Type.Patterns[0]]; !strings.Contains(got, "task id") {
		t.Fatalf("PatternDesc of #TaskID's regex = %q, want the @desc of cue/operator.cue", got)
	}
}
