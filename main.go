// Command coplay is a terminal companion for playing games with an LLM agent: the agent
// plays through typed tools and the person at the keyboard approves, vetoes or edits every
// action and types advice while it runs.
//
// With no arguments it starts the companion screen on the built-in offline SpaceTraders
// universe. Subcommands are listed by `coplay help`.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of coplay.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands holds every subcommand by name. Each lives in its own cmd_*.go file and adds
// itself here, so the files can be read (and written) independently.
var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand, or to the companion when the first argument is a flag
// or absent, and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	name := "play"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "coplay: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	if err := cmd.run(args, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "coplay %s: %v\n", name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: coplay [command] [flags]")
	fmt.Fprintln(w, "\nWith no command, coplay starts the companion screen (see `coplay play -h`).")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
}
