package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
)

func init() { addCommand(newConfigCmd) }

const configUsage = `usage:
  coplay config init [--force] [FILE]   write a commented example (default: the config file)
  coplay config check [FILE]            check a file: every problem, with its line and key
  coplay config profiles [FILE]         list the profiles with their versions
  coplay config path                    print where the config file is read from
`

// configSubs are config's subcommands, with their lines for `coplay config --help`.
var configSubs = [][2]string{
	{"init [FILE]", "write a commented example config file"},
	{"check [FILE]", "check a config file: every problem, with its line and key"},
	{"profiles [FILE]", "list the profiles with their versions"},
	{"path", "print where the config file is read from"},
}

// newConfigCmd is `coplay config` and its subcommands.
func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "config", Short: "write, check or list the config file (defaults, prices, profiles)", Long: configUsage,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("config needs a subcommand: init, check, profiles or path")
			}
			return usagef("unknown subcommand %q%s (want init, check, profiles or path)", args[0], didYouMean(args[0], "init", "check", "profiles", "path"))
		},
	}
	for _, sub := range configSubs {
		var force bool
		name, _, _ := strings.Cut(sub[0], " ")
		c := &cobra.Command{
			Use: sub[0], Short: sub[1], Long: configUsage,
			RunE: func(c *cobra.Command, pos []string) error {
				return runConfig(name, pos, force, c.OutOrStdout(), c.ErrOrStderr())
			},
		}
		if name == "init" {
			c.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
		}
		cmd.AddCommand(c)
	}
	return cmd
}

// runConfig writes, checks or lists the configuration file (sub), named by pos or the
// default.
func runConfig(sub string, pos []string, force bool, stdout, stderr io.Writer) error {
	var err error
	if len(pos) > 1 || (sub == "path" && len(pos) > 0) {
		return fmt.Errorf("unexpected arguments %q", pos)
	}
	path, explicit := "", len(pos) == 1
	if explicit {
		path = pos[0]
	} else if path, err = config.DefaultPath(); err != nil {
		return err
	}
	switch sub {
	case "path":
		fmt.Fprintln(stdout, path)
		return nil
	case "init":
		return configInit(path, force, stdout)
	}
	f, err := config.Load(path, true)
	var problems config.Errors
	if errors.As(err, &problems) {
		// One problem per line, each with its file, line and key, like a compiler.
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		return fmt.Errorf("%s: %s", path, plural(len(problems), "problem"))
	}
	builtinOnly := false
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			if sub != "profiles" {
				return fmt.Errorf("no config file at %s (`coplay config init` writes one)", path)
			}
			// No file still has the built-in profiles, and they are what a newcomer
			// can play and compare with no key.
			f, builtinOnly = config.Empty(), true
		} else {
			return err
		}
	}
	if sub == "check" {
		if err := checkConfigRules(f, path, stdout, stderr); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: ok (%s, %s)\n", path, plural(len(f.Profiles), "profile"), plural(len(f.Prices), "price"))
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tVERSION\tDEFAULT\tBRAIN\tMODEL")
	for _, name := range f.ProfileNames() {
		p := f.Profiles[name]
		def := ""
		if p.Default {
			def = "yes"
		}
		brain := p.BrainKind()
		if p.Temperament != "" {
			brain += " (" + p.Temperament + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.Version(), def, brain, p.Model)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if builtinOnly {
		fmt.Fprintf(stdout, "(the built-in profiles: no config file at %s; `coplay config init` writes one)\n", path)
	}
	return nil
}

// configInit writes the example file at path, refusing to overwrite unless force.
func configInit(path string, force bool, stdout io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s already exists: not overwritten (use --force to replace it)", path)
	}
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, config.Example); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// plural writes "1 profile", "2 profiles".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// checkConfigRules checks the approval rules of [defaults], [league] and every profile against
// the catalogue of the game [defaults] names (universe when none): a tool the game does
// not have, an argument a tool does not take, a condition on a number its dry run never
// predicts. A game that cannot be opened without its flags (an MCP server, an OpenAPI
// spec) is said so on stdout: its rules are checked at start.
func checkConfigRules(f *config.File, path string, stdout, stderr io.Writer) error {
	type ruleOf struct{ where, line string }
	var all []ruleOf
	for _, l := range f.Defaults.Rules {
		all = append(all, ruleOf{"[defaults] rules", l})
	}
	for _, l := range f.League.Rules {
		all = append(all, ruleOf{"[league] rules", l})
	}
	for _, name := range f.ProfileNames() {
		for _, l := range f.Profiles[name].Rules {
			all = append(all, ruleOf{fmt.Sprintf("profile %s rules", name), l})
		}
	}
	if len(all) == 0 {
		return nil
	}
	name := f.Defaults.Game
	if name == "" {
		name = "universe"
	}
	tools, err := gameTools(name)
	if err != nil {
		fmt.Fprintf(stdout, "%s: the rules' tools are not checked here (%s: %v); they are checked when a run starts\n", path, name, err)
		return nil
	}
	problems := 0
	for _, r := range all {
		if _, err := rules.ParseChecked(r.line, tools); err != nil {
			fmt.Fprintf(stderr, "%s: %s: %v\n", path, r.where, err)
			problems++
		}
	}
	if problems > 0 {
		return fmt.Errorf("%s: %s (checked against the tools of game %s)", path, plural(problems, "problem"), name)
	}
	return nil
}

// gameTools opens a game only to list its tools, with no flags (the built-in games),
// and adds the notebook's and the runner's.
func gameTools(name string) ([]game.Tool, error) {
	if _, err := game.LookupDriver(name); err != nil {
		return nil, fmt.Errorf("no game %q", name)
	}
	dir, err := os.MkdirTemp("", "coplay-tools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	opened, err := game.Open(context.Background(), name, game.Env{ToolsOnly: true, Dir: dir, Getenv: os.Getenv})
	if err != nil {
		return nil, err
	}
	if opened.Close != nil {
		defer opened.Close()
	}
	return agent.Catalogue(opened.Game), nil
}
