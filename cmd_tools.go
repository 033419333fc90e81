package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

func init() {
	commands["tools"] = command{summary: "print a game's tool catalogue (--game NAME and its flags; --json for machines)", run: runTools}
}

// catalogEntry is one tool as `coplay tools --json` prints it.
type catalogEntry struct {
	Name        string             `json:"name"`
	Kind        game.Kind          `json:"kind"`
	Description string             `json:"description"`
	DryRun      bool               `json:"dryRun,omitempty"`
	Schema      *jsonschema.Schema `json:"schema"`
}

// runTools prints the catalogue of the game --game names, opened with its flags only to
// list its tools: SpaceTraders' needs no connection; an MCP server is started (or
// connected to) and stopped again.
func runTools(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("coplay tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("game", "universe", "`game` whose tools to list: "+strings.Join(driverNames(), ", "))
	asJSON := fs.Bool("json", false, "print a JSON array of {name, kind, description, dryRun, schema}")
	drivers := game.NewFlagSet(fs)
	openers := drivers.AddDrivers()
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q (`%s -h` lists the flags)", pos, fs.Name())
	}
	if _, err := game.LookupDriver(*name); err != nil {
		return usagef("--game must be one of %s, not %q%s", strings.Join(driverNames(), ", "), *name, didYouMean(*name, driverNames()...))
	}
	if err := drivers.CheckSet(*name); err != nil {
		return usagef("%v", err)
	}
	open := openers[*name]
	if open == nil {
		return fmt.Errorf("--game %s cannot be opened", *name)
	}
	dir, err := os.MkdirTemp("", "coplay-tools-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opened, err := open(context.Background(), game.Env{ToolsOnly: true, Dir: dir, Getenv: os.Getenv})
	if err != nil {
		return err
	}
	if opened.Close != nil {
		defer opened.Close()
	}
	tools := opened.Game.Tools()
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
