package schema

import (
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
