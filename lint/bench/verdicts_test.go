package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlint/agentlint/lint"
	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/internal/jsonschema"
	"github.com/agentlint/agentlint/lint/kind"
	lintrecord "github.com/agentlint/agentlint/lint/record"
)

// TestGeneratedVerdicts: linting a generated log flags exactly the lines
// the generator lists, with the code README gives each defect, so the
// benchmark measures exact verdicts. A kind without a validator yet (AL010)
// is skipped.
func TestGeneratedVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the verdicts of generated logs (~3 s) runs in `make test`")
	}
	for _, kindName := range []string{KindWorklog, KindCollector, KindLedger, KindIdle, KindVermas} {
		t.Run(strings.ReplaceAll(kindName, "/", "_"), func(t *testing.T) {
			coherent := kindName != KindWorklog && kindName != KindCollector
			var opts lintrecord.Options
			if coherent {
				opts.Now = CoherentNow
			}
			var buf bytes.Buffer
			n := Every * 13 // every defect of both kinds at least once
			defects, err := Generate(&buf, Config{Kind: kindName, Lines: n, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			if c := bytes.Count(buf.Bytes(), []byte{'\n'}); c != n {
				t.Fatalf("%d lines, want %d", c, n)
			}
			if avg := buf.Len() / n; !coherent && (avg < 500 || avg > 620) {
				t.Errorf("average line length %d bytes, want about 550", avg)
			}
			got := map[int]envelope.Envelope{}
			st, err := lint.Lint(func(yield func(lint.Input) bool) {
				yield(lint.Input{Path: "log.jsonl", Reader: bytes.NewReader(buf.Bytes()), Kind: kind.Lookup(kindName)})
			}, lint.LintConfig{Jobs: 2, Options: opts, Emit: func(e envelope.Envelope) error {
				got[e.Details["line"].(int)] = e
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if st.ByRule["AL010"] > 0 {
				t.Skipf("%s has no validator in this build", kindName)
			}
			denied := 0
			for _, d := range defects {
				e, ok := got[d.Line]
				if !ok {
					t.Errorf("line %d (%s): no envelope", d.Line, d.Name)
					continue
				}
				delete(got, d.Line)
				vs := e.Details["violations"].([]envelope.Violation)
				switch {
				case d.Severity == envelope.SeverityError && (e.Allow || e.Code != d.Code):
					t.Errorf("line %d (%s): allow %v code %s, want denied with %s: %v", d.Line, d.Name, e.Allow, e.Code, d.Code, vs)
				case d.Severity == envelope.SeverityWarning && (!e.Allow || vs[0].Code != d.Code):
					t.Errorf("line %d (%s): allow %v, first violation %s, want a %s warning", d.Line, d.Name, e.Allow, vs[0].Code, d.Code)
				}
				if d.Severity == envelope.SeverityError {
					denied++
				}
			}
			for line, e := range got {
				t.Errorf("line %d: unexpected envelope %s %s", line, e.Code, e.Reason)
			}
			if st.Records != n || st.Denied != denied {
				t.Errorf("records %d denied %d, want %d and %d", st.Records, st.Denied, n, denied)
			}
		})
	}
}

// TestCoherentAtScale: however long the ledger and idle logs of Generate,
// the ledger's session counter stays three digits (LG003) and every record
// lies within the two hours before CoherentNow (IL013: not stale), in order.
func TestCoherentAtScale(t *testing.T) {
	for _, n := range []int{1, 1000, 1000000, 5000000} {
		first, last := LedgerLine(nil, 0, n), LedgerLine(nil, n-1, n)
		var a, b struct {
			TS        time.Time `json:"ts"`
			SessionID string    `json:"session_id"`
		}
		if err := json.Unmarshal(first, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(last, &b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.SessionID, "2026-02-14_cls_") || len(b.SessionID) != len("2026-02-14_cls_001") {
			t.Errorf("n=%d: last session_id %q, want 2026-02-14_cls_NNN", n, b.SessionID)
		}
		if a.TS.Before(CoherentNow.Add(-2*time.Hour)) || b.TS.Before(a.TS) || b.TS.After(CoherentNow) {
			t.Errorf("n=%d: ts from %v to %v, want within the two hours before %v, in order", n, a.TS, b.TS, CoherentNow)
		}
		var s struct {
			UpdatedAt time.Time `json:"updated_at"`
		}
		i := n - 1 // the last STATE (a DONE ends every 21st line)
		if i%21 == 20 {
			i--
		}
		if err := json.Unmarshal(IdleLine(nil, i, n), &s); err != nil {
			t.Fatal(err)
		}
		if s.UpdatedAt.Before(CoherentNow.Add(-2*time.Hour)) || s.UpdatedAt.After(CoherentNow) {
			t.Errorf("n=%d: a late STATE's updated_at %v, want within the two hours before %v", n, s.UpdatedAt, CoherentNow)
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	cfg := Config{Kind: KindCollector, Lines: 3000, Seed: 9}
	da, _ := Generate(&a, cfg)
	db, _ := Generate(&b, cfg)
	if !bytes.Equal(a.Bytes(), b.Bytes()) || len(da) != len(db) || len(da) != 3 {
		t.Fatalf("not deterministic (%d and %d defects)", len(da), len(db))
	}
	cfg.Seed = 10
	var c bytes.Buffer
	if _, err := Generate(&c, cfg); err != nil || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("the seed does not change the output")
	}
}

// TestGeneratedAgainstJSONSchema: on a generated collector log, the lines
// agentlint denies are exactly the lines seed 004's JSON Schema rejects
// (lint/jsonschema, formats asserted), plus the defects README makes us
// stricter about, each named: a version whose major is not 1 (cue/README.md,
// Codes, UNKNOWN_SCHEMA_VERSION). No valid line is denied; no line the schema
// rejects is allowed.
func TestGeneratedAgainstJSONSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generated records against the exported JSON Schemas (~1.5 s) runs in `make test`")
	}
	js, err := jsonschema.New()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n := Every * 13
	defects, err := Generate(&buf, Config{Kind: KindCollector, Lines: n, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	stricter := map[int]string{}
	for _, d := range defects {
		if d.Code == envelope.UnknownSchemaVersion {
			stricter[d.Line] = "README, Codes and precedence: a version major other than 1 is UNKNOWN_SCHEMA_VERSION"
		}
	}
	denied := map[int]bool{}
	if _, err := lint.Lint(func(yield func(lint.Input) bool) {
		yield(lint.Input{Path: "log.jsonl", Reader: bytes.NewReader(buf.Bytes()), Kind: kind.Lookup(KindCollector)})
	}, lint.LintConfig{Jobs: 2, Emit: func(e envelope.Envelope) error {
		if !e.Allow {
			denied[e.Details["line"].(int)] = true
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), []byte{'\n'}) {
		ln := i + 1
		schemaRejects := len(js.Validate(KindCollector, line)) > 0
		if schemaRejects {
			rejected++
		}
		switch {
		case schemaRejects && !denied[ln]:
			t.Errorf("line %d: the JSON Schema rejects it, agentlint allows it", ln)
		case !schemaRejects && denied[ln] && stricter[ln] == "":
			t.Errorf("line %d: agentlint denies a line the JSON Schema accepts, and no named stricter clause says so", ln)
		}
	}
	if rejected == 0 || len(stricter) == 0 {
		t.Fatalf("the log exercises nothing: %d lines rejected by the schema, %d stricter", rejected, len(stricter))
	}
}

// TestMixVerdicts: linting a realistic log of GenerateMix (from files, which
// the id rules read again, and from a stream, which they cannot) denies
// exactly its defective lines of severity error and reports exactly the
// warnings it counts, for every JSON Lines family; a collector log's mix is
// near the shares it promises (unknown event types, parents in other logs).
func TestMixVerdicts(t *testing.T) {
	const n = MixEvery * 40
	for _, kindName := range []string{KindCollector, KindWorklog, KindLedger, KindIdle, KindVermas} {
		t.Run(strings.ReplaceAll(kindName, "/", "_"), func(t *testing.T) {
			var buf bytes.Buffer
			mix, err := GenerateMix(&buf, Config{Kind: kindName, Lines: n, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			if c := bytes.Count(buf.Bytes(), []byte{'\n'}); c != n || len(mix.Defects) != n/MixEvery {
				t.Fatalf("%d lines and %d defects, want %d and %d", c, len(mix.Defects), n, n/MixEvery)
			}
			if kindName == KindCollector {
				for _, c := range []struct {
					name       string
					got, share int
				}{{"unknown event types", mix.UnknownType, MixUnknownType}, {"parents in other logs", mix.ParentElsewhere, MixParentElsewhere}} {
					if pc := 100 * c.got / n; pc < c.share-4 || pc > c.share+4 {
						t.Errorf("%s: %d %% of the records, want about %d %%", c.name, pc, c.share)
					}
				}
			}
			path := filepath.Join(t.TempDir(), "log.jsonl")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, stream := range []bool{false, true} {
				in := lint.Input{Path: path, Kind: kind.Lookup(kindName)}
				if stream {
					in.Reader = bytes.NewReader(buf.Bytes())
				}
				st, err := lint.Lint(func(yield func(lint.Input) bool) { yield(in) },
					lint.LintConfig{Jobs: 2, Quiet: true, Options: lintrecord.Options{Now: CoherentNow}, Emit: func(envelope.Envelope) error { return nil }})
				if err != nil {
					t.Fatal(err)
				}
				if st.Records != n || st.Denied != mix.Denied || st.Warnings != mix.Warnings {
					t.Errorf("stream %v: records %d denied %d warnings %d (%v), want %d, %d, %d", stream, st.Records, st.Denied, st.Warnings, st.ByRule, n, mix.Denied, mix.Warnings)
				}
			}
		})
	}
}
