package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/google/jsonschema-go/jsonschema"
)

func init() {
	commands["tools"] = command{summary: "print the game's tool catalogue (--json for machines)", run: runTools}
}

// catalogEntry is one tool as `coplay tools --json` prints it.
type catalogEntry struct {
	Name        string             `json:"name"`
	Kind        game.Kind          `json:"kind"`
	Description string             `json:"description"`
	DryRun      bool               `json:"dryRun,omitempty"`
	Schema      *jsonschema.Schema `json:"schema"`
}

// runTools prints the SpaceTraders catalogue. It starts nothing and needs no network:
// the catalogue is the same online and offline.
func runTools(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("coplay tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON array of {name, kind, description, dryRun, schema}")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q (`%s -h` lists the flags)", pos, fs.Name())
	}
	tools := spacetraders.Catalog()
	if *asJSON {
		entries := make([]catalogEntry, len(tools))
		for i, t := range tools {
			entries[i] = catalogEntry{t.Name, t.Kind, t.Description, t.DryRun, t.Schema}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	for _, t := range tools {
		schema, err := json.Marshal(t.Schema)
		if err != nil {
			return fmt.Errorf("tool %s: encode schema: %w", t.Name, err)
		}
		dry := ""
		if t.DryRun {
			dry = ", dry run"
		}
		fmt.Fprintf(stdout, "%s (%s%s)\n  %s\n  args: %s\n\n", t.Name, t.Kind, dry, t.Description, schema)
	}
	return nil
}
