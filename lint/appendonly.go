package lint

import (
	"slices"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/record"
	"github.com/agentlint/agentlint/rules"
)

// Append-only checks against a git revision (`agentlint lint --base REV`;
// README, Codes and precedence; Usage; rule AL020, lint/gitbase).

// bindRun replaces, in every stream plan, each check that depends on the
// run (rules.RunBinder: AL020 and --base, the correlation groups of the
// summary) with the check it binds to run, or drops it when it binds to
// nothing. A check is bound once per run, whatever the number of kinds it
// serves, so that the tree state of a bound tree check stays one per run.
func (p *pipeline) bindRun(run *rules.LintRun) {
	bound := map[rules.StreamRule]rules.StreamRule{}
	for k, plan := range p.plans {
		runs := plan.rules[:0]
		for _, r := range plan.rules {
			if b, ok := r.rule.(rules.RunBinder); ok {
				nr, seen := bound[r.rule]
				if !seen {
					nr = b.BindRun(run)
					bound[r.rule] = nr
				}
				if nr == nil {
					continue
				}
				r.rule = nr
			}
			runs = append(runs, r)
		}
		plan.rules = runs
		if len(runs) == 0 {
			delete(p.plans, k)
		}
	}
}

// reportDeleted reports, after the last file, each append-only log under
// cfg.BaseRoots that existed at the base revision and no longer exists
// (AL020: removing a log removes every line it had). A path counts as a log
// when its name gives an append-only kind (built-in globs or the config's
// [kinds]); paths the config excludes are skipped. The envelopes are written
// like every other and counted in st.
func reportDeleted(cfg *LintConfig, st *Stats) error {
	if cfg.Base.Base == nil || cfg.Options.Severity["AL020"] == "off" {
		return nil
	}
	det := cfg.Detector
	if det == nil {
		det = &kind.Detector{}
	}
	v := record.NewValidator(cfg.Options, noEngine{})
	var out []byte
	for _, root := range cfg.BaseRoots {
		gone, err := cfg.Base.Base.Missing(root)
		if err != nil {
			gone = nil
			x := envelope.Violation{Rule: "AL020", Reason: "cannot list the files of " + root + " at --base " + cfg.Base.Rev + ": " + err.Error()}
			if err := writeDeleted(cfg, st, v, x, map[string]any{"file": root}, &out); err != nil {
				return err
			}
		}
		for _, path := range gone {
			k := det.ByName(path)
			if k == nil || !slices.Contains(rules.AppendOnlyKinds, k.Name) || excluded(det, path) {
				continue
			}
			x := envelope.Violation{Rule: "AL020", Reason: "append-only log was deleted since " + cfg.Base.Rev +
				" (it existed there; removing a log removes every line it had)"}
			if err := writeDeleted(cfg, st, v, x, map[string]any{"file": path, "kind": k.Name}, &out); err != nil {
				return err
			}
		}
	}
	return nil
}

// excluded reports whether the detector's configuration excludes path.
func excluded(det *kind.Detector, path string) bool {
	c, ok := det.Config.(*Config)
	return ok && c.Excluded(path)
}

// writeDeleted fills, counts and writes the envelope (with details d) of
// the violation x.
func writeDeleted(cfg *LintConfig, st *Stats, v *record.Validator, x envelope.Violation, d map[string]any, out *[]byte) error {
	vs := v.Fill([]envelope.Violation{x})
	if len(vs) == 0 {
		return nil
	}
	st.Add(vs)
	if cfg.Quiet {
		return nil
	}
	env := envelope.Verdict(vs, "", d)
	if cfg.Render == nil {
		return cfg.Emit(env)
	}
	*out = cfg.Render((*out)[:0], env)
	_, err := cfg.Out.Write(*out)
	return err
}
