package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/mcpserve"
	"github.com/coplayhq/coplay/game/ratelimit"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
)

func init() { addCommand(newServeCmd) }

// servedGames are the worlds coplay serve serves: the built-in ones, whose state it
// keeps. (The real SpaceTraders keeps its own; an MCP or OpenAPI game is someone
// else's server already.)
var servedGames = []string{"arena", "universe"}

// seatTokenPrefix names a seat's token variable: COPLAY_SEAT_TOKEN_HERON for Heron.
const seatTokenPrefix = "COPLAY_SEAT_TOKEN_"

// minTokenLen is the shortest token taken from the environment: a token is the seat's
// only key.
const minTokenLen = 16

// mcpServeFlags are coplay serve's own flags, and the served games' options.
type mcpServeFlags struct {
	game, mcp, data, name string
	seats, origins        stringList
	noLimit               bool
	drivers               *gameFlags // the served games' options only: --mcp is serve's
}

// newServeCmd is `coplay serve`.
func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "serve", Short: "serve a built-in world to any MCP client, a seat a token (--game arena|universe --mcp ADDR|stdio --seat NAME...)", Args: noArgs}
	fs := cmd.Flags()
	var f mcpServeFlags
	fs.StringVar(&f.game, "game", "arena", "`world` to serve: "+strings.Join(servedGames, " or "))
	fs.StringVar(&f.mcp, "mcp", "127.0.0.1:8765", "`address` to serve streamable HTTP on (at "+mcpserve.Path+"), or stdio for one seat on stdin and stdout; an address other than loopback needs every seat's token from the environment")
	fs.Var(&f.seats, "seat", "a seat `NAME` (repeat for each); its token is "+seatTokenPrefix+"NAME, else one is made and printed once")
	fs.StringVar(&f.data, "data", "", "notebook `file` the world is kept in (default: serve-GAME.db beside the user's notebook)")
	fs.StringVar(&f.name, "name", "", "the world's `name` in the notebook (default serve-GAME): another name serves another world from the same file")
	fs.Var(&f.origins, "allow-origin", "a browser `origin` (http://localhost:6274) that may use the server besides its own (repeat for more)")
	fs.BoolVar(&f.noLimit, "no-seat-limit", false, "turn off each seat's call limit (2 a second, bursts of 30 a minute, as SpaceTraders)")
	f.drivers = addGameFlags(fs, servedGames...)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runServe(f, cmd.ErrOrStderr()) }
	return cmd
}

// runServe serves a world until SIGINT or SIGTERM (or, over stdio, until the client
// leaves). Everything it says goes to stderr: over stdio, stdout is the protocol.
func runServe(f mcpServeFlags, stderr io.Writer) error {
	drivers := f.drivers
	if err := f.check(drivers); err != nil {
		return err
	}
	tokens, made, err := seatTokens(f.seats, os.Getenv, f.mcp == "stdio")
	if err != nil {
		return err
	}
	if err := checkExposure(f.mcp, made); err != nil {
		return err
	}
	scrub := scrubber()
	for _, t := range tokens {
		scrub.Add(t)
	}
	errOut := secret.NewWriter(stderr, scrub)
	ss, err := startServe(f, drivers, tokens, errOut)
	if err != nil {
		return err
	}
	defer ss.close(errOut)
	for _, seat := range made {
		// Printed once, past the scrubber: the person needs it to hand to the seat's player.
		fmt.Fprintf(stderr, "seat %s: token %s (made for this run; set %s to keep one)\n", seat, tokens[seat], tokenVar(seat))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.mcp == "stdio" {
		fmt.Fprintf(errOut, "serving %s seat %s on stdin and stdout (world %s in %s)\n", f.game, f.seats[0], ss.world.name, ss.path)
		return ss.srv.ServeStdio(ctx, f.seats[0], os.Stdin, nopCloser{os.Stdout})
	}
	return ss.listen(ctx, f.mcp, errOut)
}

// check refuses what cannot be served before anything is opened.
func (f *mcpServeFlags) check(drivers *gameFlags) error {
	if !slices.Contains(servedGames, f.game) {
		return usagef("--game must be %s, not %q%s", strings.Join(servedGames, " or "), f.game, didYouMean(f.game, servedGames...))
	}
	if err := drivers.CheckSet(f.game); err != nil {
		return usagef("%v", err)
	}
	if len(f.seats) == 0 {
		return usagef("name the seats to serve: --seat NAME for each (e.g. --seat Heron --seat Finch)")
	}
	if err := game.CheckSeatsUpTo(f.seats, game.MaxServedSeats); err != nil {
		return usagef("--seat: %v", err)
	}
	if f.mcp == "stdio" && len(f.seats) != 1 {
		return usagef("--mcp stdio serves one seat, not %d: give one --seat, or serve over HTTP", len(f.seats))
	}
	if f.name == "" {
		f.name = "serve-" + f.game
	}
	return nil
}

// served is a running coplay serve: the notebook, the world and the MCP server.
type served struct {
	path  string
	book  *notes.Book
	world *servedWorld
	open  *game.League
	srv   *mcpserve.Server
}

// startServe opens the notebook, finds or makes the world in it, opens the world
// (resumed from every seat's last state) and starts its MCP server; every seat's state
// is committed at once, so a world killed before anyone acts restarts whole. A failure
// leaves nothing behind.
func startServe(f mcpServeFlags, drivers *gameFlags, tokens map[string]string, errOut io.Writer) (_ *served, err error) {
	env := game.Env{Getenv: os.Getenv, MaxSeats: game.MaxServedSeats, CheckOnly: true}
	if _, err := drivers.OpenLeague(context.Background(), f.game, env, f.seats); err != nil {
		return nil, usagef("%v", err) // a check of the flags and the seats alone
	}
	s := &served{path: f.data}
	if s.path == "" {
		if s.path, err = notes.DefaultPath(); err != nil {
			return nil, fmt.Errorf("no place for the notebook (%v): pass --data FILE", err)
		}
		s.path = filepath.Join(filepath.Dir(s.path), "serve-"+f.game+".db")
	}
	if s.book, err = openNotebook(s.path); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.close(io.Discard)
		}
	}()
	for _, t := range tokens {
		s.book.Redact(t)
	}
	states := map[string][]byte{}
	if s.world, states, err = openServedWorld(s.book, f.name, f.game, f.seats); err != nil {
		return nil, err
	}
	fresh := len(states) == 0
	env = game.Env{Dir: filepath.Dir(s.path), Getenv: os.Getenv, MaxSeats: game.MaxServedSeats, SeatStates: states, Resuming: !fresh}
	if s.open, err = drivers.OpenLeague(context.Background(), f.game, env, f.seats); err != nil {
		if fresh {
			err = errors.Join(leagueFlagError(err), s.world.forget())
		}
		return nil, err
	}
	for _, seat := range s.open.Seats {
		s.book.Redact(seat.Secrets...)
	}
	cfg := mcpserve.Config{
		Game: f.game, Version: serverVersion(), League: s.open, Tokens: tokens, Commit: s.world.commit,
		Journal: func(e mcpserve.Entry) {
			fmt.Fprintln(errOut, e.String())
			if e.Seat != "" {
				_ = s.world.notice(e.Seat, e.Text) // after the notebook closes (the last leaves), the log has it
			}
		},
		AllowOrigins: f.origins,
	}
	if !f.noLimit {
		cfg.Limit = ratelimit.SpaceTraders
	}
	if s.srv, err = mcpserve.New(cfg); err != nil {
		return nil, err
	}
	if err := s.srv.SaveAll(); err != nil {
		return nil, err
	}
	how := "a new world"
	if !fresh {
		how = "going on from its last step"
	}
	fmt.Fprintf(errOut, "world %s (%s, %s) kept in %s\n", f.name, f.game, how, s.path)
	return s, nil
}

// serverVersion is coplay's version for a served world's serverInfo: the release's, or
// "devel".
func serverVersion() string {
	if version != "" {
		return version
	}
	return "devel"
}

// leagueFlagError makes a driver's flag mistake a usage error.
func leagueFlagError(err error) error {
	var fe *game.FlagError
	if errors.As(err, &fe) {
		return usagef("%s", fe.Msg)
	}
	return err
}

// listen serves HTTP on addr until ctx ends.
func (s *served) listen(ctx context.Context, addr string, errOut io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: s.srv.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 32 << 10, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(errOut, "serving seats %s to MCP clients at http://%s%s\n", strings.Join(s.srv.Seats(), ", "), ln.Addr(), mcpserve.Path)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.srv.Close() // the sessions first: their event streams would hold Shutdown
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		hs.Close()
	}
	return nil
}

// close commits every seat and puts everything away: the sessions, the world, the
// notebook.
func (s *served) close(errOut io.Writer) {
	if s.srv != nil {
		s.srv.Close()
		if err := s.srv.SaveAll(); err != nil {
			fmt.Fprintf(errOut, "keeping the world at the end: %v\n", err)
		}
	}
	if s.world != nil {
		s.world.close()
	}
	if s.open != nil && s.open.Close != nil {
		s.open.Close()
	}
	if s.srv != nil {
		s.srv.Wait()
	}
	if s.book != nil {
		s.book.Close()
		fmt.Fprintln(errOut, "world kept; server stopped")
	}
}

// seatTokens reads each seat's token from the environment, or makes one (listing the
// seats whose token was made). A token too short to be a key, or one two seats share,
// is refused. Over stdio no token is needed.
func seatTokens(seats []string, getenv func(string) string, stdio bool) (map[string]string, []string, error) {
	tokens := map[string]string{}
	vars := map[string]string{}
	var made []string
	if stdio {
		return nil, nil, nil
	}
	for _, seat := range seats {
		v := tokenVar(seat)
		if other, dup := vars[v]; dup {
			return nil, nil, usagef("seats %s and %s would both take their token from %s: rename one", other, seat, v)
		}
		vars[v] = seat
		tok := strings.TrimSpace(getenv(v))
		switch {
		case tok == "":
			tok = rand.Text()
			made = append(made, seat)
		case len(tok) < minTokenLen:
			return nil, nil, usagef("%s is %d characters: a seat's token is its only key, make it at least %d (openssl rand -hex 16)", v, len(tok), minTokenLen)
		}
		for other, t := range tokens {
			if t == tok {
				return nil, nil, usagef("seats %s and %s have the same token: the token picks the seat, so each needs its own", other, seat)
			}
		}
		tokens[seat] = tok
	}
	return tokens, made, nil
}

// tokenVar is seat's token variable: COPLAY_SEAT_TOKEN_ and the name in upper case,
// anything but a letter or digit as '_'.
func tokenVar(seat string) string {
	return seatTokenPrefix + strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return unicode.ToUpper(r)
		}
		return '_'
	}, seat)
}

// checkExposure refuses to serve beyond this machine with tokens coplay made: a token
// printed on a terminal for one run is not one to put on a network.
func checkExposure(addr string, made []string) error {
	if addr == "stdio" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--mcp must be HOST:PORT (127.0.0.1:8765) or stdio, not %q", addr)
	}
	if isLoopback(host) || len(made) == 0 {
		return nil
	}
	var vars []string
	for _, seat := range made {
		vars = append(vars, tokenVar(seat))
	}
	return usagef("--mcp %s can be reached from other machines, so every seat needs its own token from the environment: set %s (openssl rand -hex 16 makes one), or serve on 127.0.0.1", addr, strings.Join(vars, ", "))
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// nopCloser keeps os.Stdout open when the stdio session ends.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
