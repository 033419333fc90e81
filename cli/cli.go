// Package cli is coplay's command line: every subcommand (one cmd_*.go file each), their
// flags, profile resolution, and setup (opening the notebook, the game and the brain, then
// starting the screen or the headless protocol). main calls Run; nothing else imports cli.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
	// Each game driver registers itself; adding a game is one import here.
	_ "github.com/coplayhq/coplay/game/arena"
	_ "github.com/coplayhq/coplay/game/mcp"
	_ "github.com/coplayhq/coplay/game/openapi"
	_ "github.com/coplayhq/coplay/game/spacetraders"
)

// command is one subcommand of coplay.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands holds every subcommand by name. Each lives in its own cmd_*.go file and adds
// itself here, so the files can be read (and written) independently.
var commands = map[string]command{}

// Run runs coplay with the command-line arguments args (without the program name) and
// returns the process exit code.
func Run(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }

// run dispatches to a subcommand, or to the companion when the first argument is a flag
// or absent, and returns the process exit code.
//
// Every failure is one line on stderr: "coplay CMD: what is wrong and what to do". The
// exit status is 2 for a mistake in the command line (see usageError) and 1 for
// everything else (environment, notebook, game, model).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && isHelpFlag(args[0]) {
		// `coplay --help` is the map of commands: the screen's flags are one command's
		// (`coplay play --help`), and would bury the others.
		usage(stdout)
		return 0
	}
	name, prefix := "play", "coplay"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
		prefix = "coplay " + name
	}
	if name == "help" && len(args) == 1 {
		if _, ok := commands[args[0]]; ok {
			// `coplay help sessions` is `coplay sessions --help`.
			name, args, prefix = args[0], []string{"--help"}, "coplay "+args[0]
		}
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	if name == "play" && len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		// `coplay --version`, as every tool answers it; the same line as `coplay version`.
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		names := make([]string, 0, len(commands)+1)
		for n := range commands {
			names = append(names, n)
		}
		fmt.Fprintf(stderr, "coplay: unknown command %q%s (`coplay --help` lists the commands)\n",
			name, commandDidYouMean(name, append(names, "help")))
		return 2
	}
	if err := cmd.run(args, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var problems config.Errors
		if errors.As(err, &problems) && len(problems) > 0 {
			writeConfigProblems(stderr, prefix, problems)
			return 1
		}
		// One line: a joined or wrapped error may carry newlines of its own.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
		fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
		var ue *usageError
		var fe *game.FlagError
		if errors.As(err, &ue) || errors.As(err, &fe) {
			return 2
		}
		return 1
	}
	return 0
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

// isHelpFlag reports whether arg asks for help the way the flag package accepts it.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "--h"
}

// commandDidYouMean is " (did you mean X?)" for a mistyped command: the one command it
// begins ("ses" for sessions), else the nearest by edit distance; "" when none is close.
func commandDidYouMean(name string, names []string) string {
	var prefixed []string
	for _, n := range names {
		if len(name) >= 2 && strings.HasPrefix(n, strings.ToLower(name)) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return " (did you mean " + prefixed[0] + "?)"
	}
	return didYouMean(name, names...)
}

// usage is `coplay --help`: every command in a line, and where each one's flags are.
func usage(w io.Writer) {
	fmt.Fprintln(w, "coplay: a terminal companion for playing games with an LLM agent.")
	fmt.Fprintln(w, "\nusage: coplay [COMMAND] [flags]")
	fmt.Fprintln(w, "\nWith no command, coplay plays in the companion screen: `coplay play --help` lists its")
	fmt.Fprintln(w, "flags (--game, --preset, --model, --brain, --resume, --data, ...).")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n`coplay COMMAND --help` (or `coplay help COMMAND`) lists a command's flags;")
	fmt.Fprintln(w, "`coplay completion bash|zsh|fish` completes commands and flags in your shell.")
	fmt.Fprintln(w, "\nexit status: 0 done, 1 could not start or failed (notebook, environment, game, model),")
	fmt.Fprintln(w, "2 a mistake in the command line (an unknown flag or command, a bad value); the reason")
	fmt.Fprintln(w, "is one line on stderr.")
}
