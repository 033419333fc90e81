// Command coplay is a terminal companion for playing games with an LLM agent: the agent
// plays through typed tools and the person at the keyboard approves, vetoes or edits every
// action and types advice while it runs.
//
// With no arguments it starts the companion screen on the built-in offline SpaceTraders
// universe. Subcommands are listed by `coplay help`; the command line lives in package
// cli, eval episodes in package eval.
package main

import (
	"os"

	"github.com/coplayhq/coplay/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
