package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game"
)

func init() { addCommand(newToolsCmd) }

// catalogEntry is one tool as `coplay tools --json` prints it.
type catalogEntry struct {
	Name        string             `json:"name"`
	Kind        game.Kind          `json:"kind"`
	Description string             `json:"description"`
	DryRun      bool               `json:"dryRun,omitempty"`
	Group       string             `json:"group,omitempty"`
	Schema      *jsonschema.Schema `json:"schema"`
}

// toolsOutput is what `coplay tools --json` prints: the catalogue, and what the game
// could not make a tool of with why (always present, [] when nothing).
type toolsOutput struct {
	Tools   []catalogEntry `json:"tools"`
	Skipped []game.Skipped `json:"skipped"`
}

// skippedOf returns what g leaves out of its catalogue (game.Skipper), or nil.
func skippedOf(g game.Game) []game.Skipped {
	if s, ok := g.(game.Skipper); ok {
		return s.Skipped()
	}
	return nil
}

// toolsFlags are the flags of `coplay tools`.
type toolsFlags struct {
	name, modelName, presetName string
	asJSON, asModel             bool
	budget, window              int
	pins                        stringList
	drivers                     *gameFlags // the drivers' own, to open the game with
}

// newToolsCmd is `coplay tools`.
func newToolsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "print a game's tool catalogue (--game NAME and its flags; --json for machines)", Args: noArgs}
	fs := cmd.Flags()
	var f toolsFlags
	fs.StringVar(&f.name, "game", "universe", "`game` whose tools to list: "+strings.Join(driverNames(), ", "))
	fs.BoolVar(&f.asJSON, "json", false, "print a JSON object {tools: [{name, kind, description, dryRun, group, schema}], skipped: [{name, reason}]}")
	fs.BoolVar(&f.asModel, "as-model", false, "print exactly the tools and the index of tools not sent that a model's first request carries, with their sizes")
	fs.IntVar(&f.budget, "tool-budget", 0, "with --as-model: characters of tool definitions per request (`n`; default 12000)")
	fs.IntVar(&f.window, "window", 0, "with --as-model: the model's context window in `tokens` (a small one sends fewer tools whole; default: the catalogue's for --model)")
	fs.StringVar(&f.modelName, "model", "", "with --as-model: the `model` whose window (from the catalogue) sizes the request")
	fs.StringVar(&f.presetName, "preset", "", "with --as-model and --model: the `preset` the model is looked up in")
	fs.Var(&f.pins, "pin", "with --as-model: a `tool` always sent whole (repeat for more)")
	f.drivers = addGameFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runTools(f, cmd.OutOrStdout()) }
	return cmd
}

// runTools prints the catalogue of the game --game names, opened with its flags only to
// list its tools: SpaceTraders' needs no connection; an MCP server is started (or
// connected to) and stopped again.
func runTools(f toolsFlags, stdout io.Writer) error {
	if _, err := game.LookupDriver(f.name); err != nil {
		return usagef("--game must be one of %s, not %q%s", strings.Join(driverNames(), ", "), f.name, didYouMean(f.name, driverNames()...))
	}
	if err := f.drivers.CheckSet(f.name); err != nil {
		return usagef("%v", err)
	}
	open := f.drivers.openers()[f.name]
	if open == nil {
		return fmt.Errorf("--game %s cannot be opened", f.name)
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
	if f.asModel {
		if f.window < 0 {
			return usagef("--window must be a positive number of tokens, or 0 for the model's, not %d", f.window)
		}
		w := f.window
		if w == 0 && f.modelName != "" {
			w = modelWindow(f.presetName, f.modelName)
		}
		return printAsModel(stdout, opened.Game, agent.Config{ToolBudget: f.budget, Pinned: f.pins, ContextWindow: w}, f.asJSON)
	}
	tools := opened.Game.Tools()
	skipped := skippedOf(opened.Game)
	if f.asJSON {
		out := toolsOutput{Tools: make([]catalogEntry, len(tools)), Skipped: []game.Skipped{}}
		for i, t := range tools {
			out.Tools[i] = catalogEntry{t.Name, t.Kind, t.Description, t.DryRun, t.Group, t.Schema}
		}
		out.Skipped = append(out.Skipped, skipped...)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
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
		group := ""
		if t.Group != "" {
			group = ", " + t.Group
		}
		fmt.Fprintf(stdout, "%s (%s%s%s)\n  %s\n  args: %s\n\n", t.Name, t.Kind, dry, group, t.Description, schema)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "%s skipped:\n", plural(len(skipped), "operation"))
		for _, s := range skipped {
			fmt.Fprintf(stdout, "  %s: %s\n", s.Name, s.Reason)
		}
	}
	return nil
}

// printAsModel prints what a model's first request carries of the catalogue: the tools
// array as sent (one tool a line here; the request has them on one) and the index of
// the tools not sent, which goes in the system prompt.
func printAsModel(w io.Writer, g game.Game, cfg agent.Config, asJSON bool) error {
	if cfg.ToolBudget < 0 {
		return usagef("--tool-budget must be a positive number of characters, or 0 for the default, not %d", cfg.ToolBudget)
	}
	sent, index, total, err := agent.ModelCatalog(g, cfg)
	if err != nil {
		if pe := pinMistake(err); pe != err {
			return pe
		}
		return usagef("%v", err)
	}
	wire, err := openai.WireTools(sent)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"tools": json.RawMessage(wire), "tools_chars": len(wire), "loaded": len(sent), "total": total,
			"index": index, "index_chars": len(index),
		})
	}
	fmt.Fprintf(w, "# Tools sent with each request from the first: %d of %d, %d characters\n\n", len(sent), total, len(wire))
	var elems []json.RawMessage
	if err := json.Unmarshal(wire, &elems); err != nil {
		return err
	}
	fmt.Fprintln(w, "[")
	for i, e := range elems {
		sep := ","
		if i == len(elems)-1 {
			sep = ""
		}
		fmt.Fprintf(w, "%s%s\n", e, sep)
	}
	fmt.Fprintln(w, "]")
	if index == "" {
		fmt.Fprintln(w, "\nEvery tool is sent: there is no index.")
		return nil
	}
	fmt.Fprintf(w, "\n# Index of the tools not sent, in the system prompt: %d characters (load_tools loads them)\n\n%s\n", len(index), index)
	return nil
}
