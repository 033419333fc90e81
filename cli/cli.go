// Package cli is coplay's command line: every subcommand (one cmd_*.go file each), their
// flags, profile resolution, and setup (opening the notebook, the game and the brain, then
// starting the screen or the headless protocol). main calls Run; nothing else imports cli.
//
// The commands are cobra commands, built afresh for each Run (their flags bind to that
// run's variables); fang draws their help. Completion is cobra's (complete.go).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"

	// Each game driver registers itself; adding a game is one import here.
	_ "github.com/coplayhq/coplay/game/arena"
	_ "github.com/coplayhq/coplay/game/mcp"
	_ "github.com/coplayhq/coplay/game/openapi"
	_ "github.com/coplayhq/coplay/game/spacetraders"
)

// commands build the subcommands of coplay, one function each, added by each cmd_*.go
// file in its init: a command's file can be read (and written) on its own.
var commands []func() *cobra.Command

// addCommand adds a subcommand's builder to commands.
func addCommand(build func() *cobra.Command) { commands = append(commands, build) }

// rootLong is what `coplay --help` says above the list of commands.
const rootLong = "coplay: a terminal companion for playing games with an LLM agent.\n\n" +
	"With no command, coplay plays in the companion screen: `coplay play --help` lists its " +
	"flags (--game, --preset, --model, --brain, --resume, --data, ...).\n\n" +
	"`coplay COMMAND --help` (or `coplay help COMMAND`) lists a command's flags; " +
	"`coplay completion bash|zsh|fish` completes commands, flags, session and profile names in your shell.\n\n" +
	"exit status: 0 done, 1 could not start or failed (notebook, environment, game, model), " +
	"2 a mistake in the command line (an unknown flag or command, a bad value); the reason " +
	"is one line on stderr."

// Run runs coplay with the command-line arguments args (without the program name) and
// returns the process exit code.
func Run(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }

// run runs a subcommand, or the companion when the first argument is a flag or absent,
// and returns the process exit code.
//
// Every failure is one line on stderr: "coplay CMD: what is wrong and what to do". The
// exit status is 2 for a mistake in the command line (see usageError) and 1 for
// everything else (environment, notebook, game, model).
func run(args []string, stdout, stderr io.Writer) int {
	return exitStatus(execute(args, stdout, stderr))
}

// execute runs the command args name, as run does, and returns its error once written
// to stderr.
func execute(args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		// `coplay --version`, as every tool answers it; the same line as `coplay version`.
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	root := newRoot()
	args, prefix := route(root, args)
	if isCompletion(args) {
		addCompletions(root)
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx := context.WithValue(context.Background(), argsKey{}, args)
	return fang.Execute(ctx, root,
		fang.WithoutVersion(), fang.WithoutManpage(), fang.WithoutCompletions(),
		fang.WithErrorHandler(func(w io.Writer, st fang.Styles, err error) { writeError(w, st, prefix, err) }))
}

// newRoot is `coplay` and every subcommand under it.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "coplay",
		Short: "a terminal companion for playing games with an LLM agent",
		Long:  rootLong,
		// A word that is not a command: `coplay` with no command plays (route), so
		// the root runs only to say so.
		Args: unknownCommand,
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	root.SetFlagErrorFunc(flagError)
	for _, build := range commands {
		cmd := build()
		cmd.SetHelpFunc(plainHelp)
		root.AddCommand(cmd)
	}
	// `coplay help COMMAND` works as before; `coplay --help` lists the commands, and
	// help is not one of them.
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Hidden = true
		}
	}
	return root
}

// argsKey is the context key of the command line as the commands see it (commandLine).
type argsKey struct{}

// commandLine is the command line cmd runs from (after route): `coplay --resume` says
// how to go on with a session in the words the person used.
func commandLine(cmd *cobra.Command) []string {
	args, _ := cmd.Context().Value(argsKey{}).([]string)
	return args
}

// route says which command args run: the first word when it is not a flag, else the
// companion (play). Single-dash long flags (-game, as Go's flag package took them) are
// made double (normalizeFlags). It returns the arguments for cobra and the prefix of an
// error line: "coplay" or "coplay CMD".
func route(root *cobra.Command, args []string) ([]string, string) {
	complete := isCompletion(args)
	words := args
	if complete {
		words = args[1:]
	}
	prefix := "coplay"
	switch {
	case len(words) == 0 && complete:
	case len(words) == 1 && isHelpFlag(words[0]):
		// `coplay --help` is the map of commands: the screen's flags are one command's
		// (`coplay play --help`), and would bury the others.
		words = []string{"--help"}
	case len(words) == 0 || strings.HasPrefix(words[0], "-"):
		words = append([]string{"play"}, words...)
	case isCommand(root, words[0]):
		prefix += " " + words[0]
	}
	if cmd, _, err := root.Find(words); err == nil && cmd != root {
		words = normalizeFlags(cmd, words)
	}
	if complete {
		return append([]string{args[0]}, words...), prefix
	}
	return words, prefix
}

// isCompletion reports whether args are a shell's completion request (`coplay
// __complete WORDS...`, which cobra's scripts send).
func isCompletion(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// isCommand reports whether name is one of root's commands.
func isCommand(root *cobra.Command, name string) bool {
	return slices.ContainsFunc(root.Commands(), func(c *cobra.Command) bool { return c.Name() == name })
}

// commandNames lists root's commands that a person may type, by name.
func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return names
}

// unknownCommand refuses a word after coplay that is no command: the root runs only
// for one, since no command at all is the companion.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usagef("unknown command %q%s (`coplay --help` lists the commands)", args[0], didYouMean(args[0], commandNames(cmd.Root())...))
}

// isHelpFlag reports whether arg asks for help the way Go's flag package accepted it.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "--h"
}

// plainHelp is fang's help for cmd with each flag's usage as it reads: a placeholder
// written `file` for the flag's value (how an error names it) loses its backquotes.
func plainHelp(cmd *cobra.Command, args []string) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) { _, f.Usage = pflag.UnquoteUsage(f) })
	cmd.Root().HelpFunc()(cmd, args)
}

// writeError writes err as coplay's one line on stderr, "coplay CMD: what", the prefix
// styled as an error on a terminal (w drops the style elsewhere). A config file's
// problems are one a line, as `coplay config check` prints them.
func writeError(w io.Writer, st fang.Styles, prefix string, err error) {
	var problems config.Errors
	if errors.As(err, &problems) && len(problems) > 0 {
		writeConfigProblems(w, prefix, problems)
		return
	}
	label := st.ErrorHeader.UnsetString().Margin(0).Padding(0).Render(prefix + ":")
	// One line: a joined or wrapped error may carry newlines of its own.
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintln(w, label, msg)
}

// exitStatus is the process exit code for what a command returned: 2 for a mistake in
// the command line, 1 for any other failure.
func exitStatus(err error) int {
	var ue *usageError
	var fe *game.FlagError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue) || errors.As(err, &fe):
		return 2
	}
	return 1
}

// writeConfigProblems says what is wrong with the config file one problem a line, as
// `coplay config check` does, and how to check it again once it is fixed: joined on one
// line they were hard to read and to act on.
func writeConfigProblems(w io.Writer, prefix string, problems config.Errors) {
	file := problems[0].File
	fmt.Fprintf(w, "%s: the config file %s has %s:\n", prefix, file, plural(len(problems), "problem"))
	for _, p := range problems {
		fmt.Fprintf(w, "  %s\n", strings.Join(strings.Fields(p.Error()), " "))
	}
	fmt.Fprintf(w, "fix them, then `coplay config check %s` says whether it is right (`coplay config init` writes a commented example)\n", file)
}
