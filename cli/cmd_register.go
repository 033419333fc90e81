package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/game/spacetraders"
)

func init() { addCommand(newRegisterCmd) }

// newRegisterCmd is `coplay register`.
func newRegisterCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "register", Short: "register an agent on the real SpaceTraders and print its token once", Args: noArgs}
	fs := cmd.Flags()
	symbol := fs.String("symbol", "", "agent symbol, 3 to 14 characters (required)")
	faction := fs.String("faction", "COSMIC", "starting faction, e.g. COSMIC")
	baseURL := fs.String("base-url", spacetraders.DefaultBaseURL, "the SpaceTraders API root")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runRegister(symbol, faction, baseURL, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// runRegister creates an agent with the account token from SPACETRADERS_ACCOUNT_TOKEN and
// prints the agent token to stdout, once. Nothing is written to disk: the player keeps
// the token (e.g. in SPACETRADERS_TOKEN).
func runRegister(symbol, faction, baseURL *string, stdout, stderr io.Writer) error {
	if n := len(*symbol); n < 3 || n > 14 {
		return usagef("--symbol must be 3 to 14 characters, not %q", *symbol)
	}
	account := os.Getenv("SPACETRADERS_ACCOUNT_TOKEN")
	if account == "" {
		return errors.New("SPACETRADERS_ACCOUNT_TOKEN is not set (create an account token at https://my.spacetraders.io)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	token, err := spacetraders.Register(ctx, *baseURL, account, *symbol, *faction, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "Agent registered. Its token is printed below, once; coplay does not keep it.")
	fmt.Fprintln(stderr, "Play with: SPACETRADERS_TOKEN=<token> coplay --game spacetraders")
	fmt.Fprintln(stdout, token)
	return nil
}
