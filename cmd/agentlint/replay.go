package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/output"
	"github.com/agentlint/agentlint/lint/replay"
)

func (a *app) replayCmd() *cobra.Command {
	var base, emit string
	cmd := &cobra.Command{
		Use:   "replay --ledger BASE [--now T] [--max-skew D] [--emit-ledger OUT] [STREAM...]",
		Short: "Apply ledger delta streams to a ledger (D1-D5), check the state machine, reconcile",
		Long: `Replay ledger deltas against a base ledger as seed 001's "Ledger Delta
Application Semantics" require (lint/replay/README.md) and print one envelope.

BASE (--ledger) is a handoff bundle, a reconcile document (what --emit-ledger
writes) or ledger rows (a JSON array or JSON Lines). Each STREAM is an
orchestrator output (its ledger_delta) or JSON Lines of deltas; several streams
are concurrent: each is applied to BASE alone, then they are compared (D5).
Every applied delta is checked against the task state machine; the resulting
ledger is reconciled and checked by the watchdog at --now (default: the
current time).

--emit-ledger writes the resulting ledger (an operator/reconcile document)
atomically, only when the verdict allows. Input files are never written.

Exit status: 0 allow, 1 deny, 2 usage error (missing or undetectable input).`,
		Example: `  agentlint replay --ledger handoff.json out-1.json out-2.json
  agentlint replay --ledger ledger.json --now 2026-02-14T20:00:00Z deltas.jsonl
  agentlint replay --ledger ledger.json --emit-ledger next.json deltas.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.noBase("replay"); err != nil {
				return err
			}
			return a.replay(base, emit, args)
		},
	}
	a.addCommonFlags(cmd)
	cmd.Flags().StringVar(&base, "ledger", "", "the base ledger: handoff bundle, reconcile document, or ledger rows (JSON array or JSON Lines); - for stdin")
	cmd.Flags().StringVar(&emit, "emit-ledger", "", "write the resulting ledger to this file (atomically, only when the verdict allows)")
	a.addOutputFlag(cmd)
	return cmd
}

func (a *app) replay(base, emit string, streams []string) error {
	p, _, opts, eng, err := a.setupGate()
	if err != nil {
		return err
	}
	if base == "" {
		return usagef("replay needs --ledger BASE")
	}
	names := append([]string{base}, streams...)
	stdin := 0
	for _, n := range names {
		if n == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("at most one input may be standard input (-)")
	}
	if err := a.checkOutputs(names...); err != nil {
		return err
	}
	if emit != "" {
		if err := refuseInput("--emit-ledger "+emit, emit, names); err != nil {
			return err
		}
	}
	inputs := make([]replay.Input, len(names))
	for i, n := range names {
		if n == "-" {
			inputs[i] = replay.Input{Name: n, R: a.stdin}
			continue
		}
		f, err := os.Open(n)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fileUsagef(n, "%s: no such file", n)
			}
			return fileUsagef(n, "%s: cannot read: %v", n, unwrapPath(err))
		}
		defer f.Close()
		inputs[i] = replay.Input{Name: n, R: f}
	}
	res, err := replay.Run(inputs[0], inputs[1:], replay.Options{Options: opts, Engine: eng})
	var ie *replay.InputError
	if errors.As(err, &ie) {
		return fileUsagef(ie.Name, "%s", ie.Error())
	}
	if err != nil {
		return err
	}
	env := res.Envelope
	a.overWarnings(&env, countWarnings(env))
	if emit != "" && env.Allow {
		if err := res.EmitLedger(emit); err != nil {
			return usagef("--emit-ledger %s: %v", emit, unwrapPath(err))
		}
		env.Details["emitted_ledger"] = emit
	}
	for _, o := range a.outs {
		if err := printReplay(o.p, o.format, o.bw, env); err != nil {
			return err
		}
	}
	if err := printReplay(p, a.g.format, a.stdout, env); err != nil {
		return err
	}
	if err := a.finishRun(p, nil); err != nil {
		return err
	}
	if !env.Allow {
		return errDenied
	}
	return nil
}

// printReplay prints the replay's envelope: JSON as one line; text as one
// `file:line:col: CODE RULE: reason` line per violation (each in the file it
// points into), then a summary line.
func printReplay(p output.Printer, format string, w io.Writer, env envelope.Envelope) error {
	if format != "text" {
		return p.Record(env)
	}
	vs, _ := env.Details["violations"].([]envelope.Violation)
	for _, v := range vs {
		file, _ := v.Extra["file"].(string)
		one := envelope.Envelope{Allow: env.Allow, Code: env.Code, Details: map[string]any{"file": file, "violations": []envelope.Violation{v}}}
		if err := p.Record(one); err != nil {
			return err
		}
	}
	d := env.Details
	if _, ok := d["deltas"]; !ok { // an invalid input: nothing was replayed
		_, err := fmt.Fprintf(w, "replay: %s (invalid input)\n", env.Code)
		return err
	}
	line := fmt.Sprintf("replay: %s (deltas=%v applied=%v skipped_duplicates=%v rejected=%v tasks=%v)",
		env.Code, d["deltas"], d["applied"], d["skipped_duplicates"], d["rejected"], d["task_count"])
	if out, ok := d["emitted_ledger"].(string); ok {
		line += "; ledger written to " + out
	}
	_, err := fmt.Fprintln(w, output.Clean(line))
	return err
}
