package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/kind"
	"github.com/agentlint/agentlint/lint/schemaexport"
)

func (a *app) schemaCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Schemas of the kinds: JSON Schema for editors and other validators, or the CUE definitions",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.schemaExportCmd())
	return cmd
}

func (a *app) schemaExportCmd() *cobra.Command {
	var kindName, format, out string
	cmd := &cobra.Command{
		Use:   "export [--kind K] [--format jsonschema|cue] [--out DIR]",
		Short: "Print or write the JSON Schema (or the CUE definitions) of one kind or of every kind",
		Long: `Export the schemas agentlint validates with.

--format jsonschema (the default) is JSON Schema draft 2020-12, generated from
the same CUE definitions as agentlint's validators: types, enums, patterns
(with format date-time or uuid), code-point lengths, bounds, required fields,
x_ extension fields, conditional fields (if/then on the discriminator), and
each field's description names its rule. With --strict, objects are closed
as agentlint --strict closes them. What JSON Schema cannot express (a field
compared with another, rules across records, secrets, lock overlaps) is
listed in the schema's description and in agentlint explain.

--format cue prints the CUE definitions embedded in agentlint (with --kind:
common.cue and the kind's family file).

Without --out the output goes to stdout: with --kind one schema; without
--kind one JSON object whose members are the kinds, each holding its schema
(agentlint schema export | jq '."operator/result"'). With --out DIR one file
per kind is written atomically: DIR/operator.assignment.schema.json
(.strict.schema.json with --strict); with --format cue the .cue files.
An unknown kind is MISSING_VALIDATOR (exit 2).`,
		Example: `  agentlint schema export --kind operator/assignment > assignment.schema.json
  agentlint schema export --kind operator/assignment --strict
  agentlint schema export --out schemas/                # every kind, one file each
  agentlint schema export --format cue --kind collector/event`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kindName != "" && kind.Lookup(kindName) == nil {
				return &usageError{Code: envelope.MissingValidator, Reason: fmt.Sprintf("unknown kind %q; `agentlint kinds` lists them: %s", kindName, strings.Join(kind.Names(), ", "))}
			}
			switch format {
			case "jsonschema":
				return a.exportJSONSchema(kindName, out)
			case "cue":
				return a.exportCUE(kindName, out)
			}
			return usagef("--format must be jsonschema or cue, not %q", format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&kindName, "kind", "", "the kind to export (default: every kind; see agentlint kinds)")
	f.StringVar(&format, "format", "jsonschema", "jsonschema (JSON Schema draft 2020-12) or cue (the embedded CUE definitions)")
	f.StringVar(&out, "out", "", "write one file per kind into this directory (created if missing) instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("kind", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return kind.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"jsonschema", "cue"}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

func (a *app) exportJSONSchema(kind, out string) error {
	kinds := schemaexport.Kinds()
	if kind != "" {
		kinds = []string{kind}
	}
	files := make([][]byte, len(kinds))
	for i, k := range kinds {
		b, err := schemaexport.JSONSchema(k, a.g.strict)
		if err != nil {
			return &usageError{Code: envelope.MissingValidator, Reason: err.Error()}
		}
		files[i] = b
	}
	if out != "" {
		for i, k := range kinds {
			if err := writeFileAtomic(out, schemaexport.FileName(k, a.g.strict), files[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if kind != "" {
		_, err := a.stdout.Write(files[0])
		return err
	}
	// Every kind: one object keyed by kind, each schema indented one level.
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range kinds {
		fmt.Fprintf(&b, "  %q: ", k)
		b.Write(bytes.ReplaceAll(bytes.TrimRight(files[i], "\n"), []byte("\n"), []byte("\n  ")))
		if i < len(kinds)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	_, err := a.stdout.Write(b.Bytes())
	return err
}

func (a *app) exportCUE(kind, out string) error {
	names, err := schemaexport.CUEFiles(kind)
	if err != nil {
		return &usageError{Code: envelope.MissingValidator, Reason: err.Error()}
	}
	for i, n := range names {
		src, err := schemaexport.CUE(n)
		if err != nil {
			return err
		}
		if out != "" {
			if err := writeFileAtomic(out, n, src); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "// cue/%s\n", n)
		if _, err := a.stdout.Write(src); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes dir/name through a temporary file in dir, fsync
// and rename (renameio), creating dir if needed.
func writeFileAtomic(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: %v", dir, err)
	}
	if err := renameio.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		return usagef("--out %s: %v", dir, err)
	}
	return nil
}
