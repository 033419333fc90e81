package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/game/mcp"
)

func init() { addCommand(newMCPCmd) }

const mcpUsage = `usage:
  coplay mcp logout URL    forget the OAuth tokens and registered client kept for the MCP
                           server at URL, revoking them where its authorization server offers it

coplay keeps each OAuth-protected MCP server's tokens across runs, so --resume plays without
the browser: in the OS keyring, or where there is none in a file only you can read
($XDG_CONFIG_HOME/coplay/` + mcp.TokenFileName + `). COPLAY_MCP_TOKENS=file or =keyring chooses.
`

// newMCPCmd is `coplay mcp` and its one subcommand, logout.
func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "mcp", Short: "forget an MCP server's OAuth authorization (logout)", Long: mcpUsage,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("mcp needs a subcommand: logout (`coplay mcp --help` says more)")
			}
			return usagef("unknown subcommand %q%s (want logout)", args[0], didYouMean(args[0], "logout"))
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use: "logout URL", Short: "forget an MCP server's OAuth authorization", Long: mcpUsage,
		RunE: func(cmd *cobra.Command, pos []string) error { return runMCPLogout(pos, cmd.OutOrStdout()) },
	})
	return cmd
}

// runMCPLogout forgets the authorization of the MCP server pos names.
func runMCPLogout(pos []string, stdout io.Writer) error {
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
