package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/coplayhq/coplay/game/mcp"
)

func init() {
	commands["mcp"] = command{summary: "forget an MCP server's OAuth authorization (logout)", run: runMCP}
}

const mcpUsage = `usage:
  coplay mcp logout URL    forget the OAuth tokens and registered client kept for the MCP
                           server at URL, revoking them where its authorization server offers it

coplay keeps each OAuth-protected MCP server's tokens across runs, so --resume plays without
the browser: in the OS keyring, or where there is none in a file only you can read
($XDG_CONFIG_HOME/coplay/` + mcp.TokenFileName + `). COPLAY_MCP_TOKENS=file or =keyring chooses.
`

// runMCP forgets an MCP server's authorization.
func runMCP(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, mcpUsage)
		return usagef("mcp needs a subcommand: logout")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "logout":
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, mcpUsage)
		return nil
	default:
		fmt.Fprint(stderr, mcpUsage)
		return usagef("unknown subcommand %q (want logout)", sub)
	}
	fs := newFlagSet("mcp logout", stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mcpUsage) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("mcp logout needs exactly one MCP server URL (the --mcp URL it was played with)")
	}
	store, err := mcp.DefaultTokenStore()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	said, err := mcp.Logout(ctx, pos[0], store, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, said)
	return nil
}
