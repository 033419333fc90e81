package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/game/universe"
)

func init() { addCommand(newServeUniverseCmd) }

// newServeUniverseCmd is `coplay serve-universe`.
func newServeUniverseCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "serve-universe", Short: "run the offline SpaceTraders universe as an HTTP server", Args: noArgs}
	fs := cmd.Flags()
	var f serveFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.Int64Var(&f.seed, "seed", 1, "galaxy seed: the same seed gives the same universe")
	fs.Float64Var(&f.speed, "speed", universe.DefaultSpeed, "game seconds per real second (travel, cooldowns, market drift)")
	fs.BoolVar(&f.noLimit, "no-rate-limit", false, "turn off the real rate limit (2 req/s, burst 30 per 60 s)")
	fs.StringVar(&f.symbol, "agent", "PLAYER", "symbol of the agent registered at start")
	fs.StringVar(&f.faction, "faction", "COSMIC", "faction of the agent registered at start")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runServeUniverse(f, cmd.OutOrStdout()) }
	return cmd
}

// serveFlags are serve-universe's flags.
type serveFlags struct {
	addr, symbol, faction string
	seed                  int64
	speed                 float64
	noLimit               bool
}

// runServeUniverse serves the offline universe over HTTP until SIGINT or SIGTERM, after
// printing its base URL and the token of a freshly registered agent.
func runServeUniverse(f serveFlags, stdout io.Writer) error {
	if !(f.speed > 0) || math.IsInf(f.speed, 0) {
		return usagef("--speed must be a positive number of game seconds per real second, not %v", f.speed)
	}
	u := universe.New(universe.Config{Seed: f.seed, Speed: f.speed, RateLimit: !f.noLimit})
	token, err := u.Register(f.symbol, f.faction)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.addr, err)
	}
	srv := &http.Server{Handler: u.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "offline SpaceTraders universe (seed %d, speed %gx, rate limit %v)\n", f.seed, f.speed, !f.noLimit)
	fmt.Fprintf(stdout, "base URL: http://%s/v2\n", ln.Addr())
	fmt.Fprintf(stdout, "agent:    %s\n", f.symbol)
	fmt.Fprintf(stdout, "token:    %s\n", token)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	fmt.Fprintln(stdout, "universe stopped")
	return nil
}
