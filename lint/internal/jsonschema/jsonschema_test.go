package jsonschema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/internal/jsonschema"
)

const event = `{"version":"1.0.0","event_type":"lifecycle.started","timestamp":"2025-12-13T20:45:00.123Z","agent_id":"@backend-engineer"}`

func engine(t testing.TB) *jsonschema.Engine {
	t.Helper()
	e, err := jsonschema.New()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ids(vs []envelope.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule+"@"+v.Pointer)
	}
	return out
}

func TestEngine(t *testing.T) {
	e := engine(t)
	if got := e.Kinds(); !reflect.DeepEqual(got, []string{"collector/event"}) || !e.Has("collector/event") || e.Has("ledger/entry") {
		t.Fatalf("Kinds() = %q", got)
	}
	for _, c := range []struct {
		name, raw string
		want      []string
	}{
		{"valid", event, nil},
		{"missing", `{"event_type":"lifecycle.started","agent_id":"a"}`, []string{"AL002@/timestamp", "AL002@/version"}},
		{"null is a wrong type", strings.Replace(event, `"@backend-engineer"`, `null`, 1), []string{"AL003@/agent_id"}},
		{"pattern", strings.Replace(event, `"1.0.0"`, `"1.0"`, 1), []string{"AL003@/version"}},
		{"major 2 passes the schema", strings.Replace(event, `"1.0.0"`, `"2.0.0"`, 1), nil},
		{"format date-time", strings.Replace(event, `2025-12-13T20:45:00.123Z`, `2025-12-13 20:45:00Z`, 1), []string{"AL003@/timestamp"}},
		{"format date-time leap year", strings.Replace(event, `2025-12-13`, `2025-02-29`, 1), []string{"AL003@/timestamp"}},
		{"format uuid", strings.Replace(event, `}`, `,"event_id":"550e8400e29b41d4a716446655440000"}`, 1), []string{"AL003@/event_id"}},
		{"nested type", strings.Replace(event, `}`, `,"tool":{"duration_ms":"5"}}`, 1), []string{"AL003@/tool/duration_ms"}},
		{"integer 1.0 passes the schema", strings.Replace(event, `}`, `,"tool":{"duration_ms":1.0}}`, 1), nil},
		{"exact maximum", strings.Replace(event, `}`, `,"progress":1.0000000000000001}`, 1), []string{"AL003@/progress"}},
		// big.Rat refuses exponents this large; the engine clamps them.
		{"huge exponent", strings.Replace(event, `}`, `,"progress":1e99999999,"tool":{"duration_ms":1e-99999999}}`, 1),
			[]string{"AL003@/progress", "AL003@/tool/duration_ms"}},
		{"syntax", `{"version":"1.0.0",}`, []string{"AL001@"}},
		{"duplicate key", `{"version":"1.0.0","version":"1.0.0"}`, []string{"AL001@"}},
		{"trailing data", event + ` {}`, []string{"AL001@"}},
		{"too deep", strings.Replace(event, `}`, `,"metadata":`+strings.Repeat("[", 12000)+strings.Repeat("]", 12000)+`}`, 1), []string{"AL001@"}},
		{"root not an object", `[]`, []string{"AL003@"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := e.Validate("collector/event", []byte(c.raw))
			if got := ids(vs); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q\n%+v", got, c.want, vs)
			}
			for _, v := range vs {
				if v.Line < 1 || v.Column < 1 || v.Reason == "" || v.Parse != (v.Rule == "AL001") {
					t.Errorf("violation without position or reason: %+v", v)
				}
			}
		})
	}
	if vs := e.Validate("ledger/entry", []byte(`{}`)); len(vs) != 1 || vs[0].Rule != "AL010" {
		t.Errorf("unknown kind: got %+v, want one AL010", vs)
	}
}

// Positions: line1 offsets the line of a JSON Lines record; the column is
// the value's.
func TestPosition(t *testing.T) {
	raw := strings.Replace(event, `"lifecycle.started"`, `"Lifecycle"`, 1)
	vs := engine(t).Schema("collector/event", []byte(raw), 7, false)
	if len(vs) != 1 || vs[0].Line != 7 || vs[0].Column != strings.Index(raw, `"Lifecycle"`)+1 {
		t.Fatalf("got %+v", vs)
	}
}
