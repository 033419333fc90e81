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

	"github.com/coplayhq/coplay/game/universe"
)

func init() {
	commands["serve-universe"] = command{summary: "run the offline SpaceTraders universe as an HTTP server", run: runServeUniverse}
}

// runServeUniverse serves the offline universe over HTTP until SIGINT or SIGTERM, after
// printing its base URL and the token of a freshly registered agent.
func runServeUniverse(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("coplay serve-universe", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	seed := fs.Int64("seed", 1, "galaxy seed: the same seed gives the same universe")
	speed := fs.Float64("speed", universe.DefaultSpeed, "game seconds per real second (travel, cooldowns, market drift)")
	noLimit := fs.Bool("no-rate-limit", false, "turn off the real rate limit (2 req/s, burst 30 per 60 s)")
	symbol := fs.String("agent", "PLAYER", "symbol of the agent registered at start")
	faction := fs.String("faction", "COSMIC", "faction of the agent registered at start")
	if err := parseNoArgs(fs, args, stdout); err != nil {
		return err
	}
	if !(*speed > 0) || math.IsInf(*speed, 0) {
		return usagef("--speed must be a positive number of game seconds per real second, not %v", *speed)
	}
	u := universe.New(universe.Config{Seed: *seed, Speed: *speed, RateLimit: !*noLimit})
	token, err := u.Register(*symbol, *faction)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	srv := &http.Server{Handler: u.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "offline SpaceTraders universe (seed %d, speed %gx, rate limit %v)\n", *seed, *speed, !*noLimit)
	fmt.Fprintf(stdout, "base URL: http://%s/v2\n", ln.Addr())
	fmt.Fprintf(stdout, "agent:    %s\n", *symbol)
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
