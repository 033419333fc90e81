package spacetraders

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/polite"
	"github.com/coplayhq/coplay/game/universe"
)

// A league (game.League) on SpaceTraders: each seat is an agent whose symbol is the
// seat's name in upper case (SpaceTraders symbols are), with its own token, ships,
// credits and contracts; systems, markets and the rest of the universe are one, so one
// seat's sales move the prices the others see. Each seat's Game is the ordinary client
// with its own token.
//
//   - "universe": one offline universe on one loopback server; every seat is registered
//     in it (or re-opened, on resume: the universe's saved state holds every agent and
//     its clock, and derives the tokens again). The universe counts its rate limit per
//     token, so each seat keeps its own limiter.
//   - "spacetraders": the real server. Seat NAME's token is SPACETRADERS_TOKEN_NAME (the
//     name upper-cased, '-' as '_'). The server limits requests per account and, with the
//     same budget, per IP address: every seat of one coplay leaves from the same address,
//     so all seats share one limiter, and together they stay within one account's budget.
//     Nothing is saved: the agents live on the server.

// SeatSymbol is the agent symbol of a league seat: the name in upper case. It must be 3
// to 14 letters, digits, '-' or '_'.
func SeatSymbol(seat string) (string, error) {
	sym := strings.ToUpper(seat)
	if n := len(sym); n < 3 || n > 14 || strings.IndexFunc(sym, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return "", game.FlagErrorf("seat %q cannot be a SpaceTraders agent: a symbol is 3 to 14 letters, digits, - or _", seat)
	}
	return sym, nil
}

// seatSymbols checks every seat's symbol.
func seatSymbols(seats []string) ([]string, error) {
	var out []string
	for _, s := range seats {
		sym, err := SeatSymbol(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sym)
	}
	return out, nil
}

// TokenVar is the environment variable that holds a league seat's token on the real
// server: SPACETRADERS_TOKEN_ALPHA for seat alpha.
func TokenVar(seat string) string {
	return "SPACETRADERS_TOKEN_" + strings.ReplaceAll(strings.ToUpper(seat), "-", "_")
}

// OfflineLeague is the built-in universe on one loopback server with one Game per seat.
type OfflineLeague struct {
	Universe *universe.Universe
	URL      string   // the API root, http://127.0.0.1:PORT/v2
	Games    []*Game  // one per seat, in seat order
	Tokens   []string // each seat's token; in memory only
	srv      *http.Server
}

// StartOfflineLeague starts the universe (new from cfg.Seed, or restored from state) on a
// loopback listener and registers, or re-opens, an agent per seat (see SeatSymbol).
func StartOfflineLeague(cfg universe.Config, state []byte, seats []string) (*OfflineLeague, error) {
	syms, err := seatSymbols(seats)
	if err != nil {
		return nil, err
	}
	u, err := openUniverse(cfg, state)
	if err != nil {
		return nil, err
	}
	srv, url, err := serveLoopback(u)
	if err != nil {
		return nil, err
	}
	l := &OfflineLeague{Universe: u, URL: url, srv: srv}
	for _, sym := range syms {
		g, token, err := agentGame(cfg, u, url, sym)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.Games, l.Tokens = append(l.Games, g), append(l.Tokens, token)
	}
	return l, nil
}

// Save returns the universe's state: every agent's, and its clock.
func (l *OfflineLeague) Save() ([]byte, error) { return l.Universe.Save() }

// Close stops every seat's game and the loopback server.
func (l *OfflineLeague) Close() error {
	for _, g := range l.Games {
		g.Close()
	}
	return l.srv.Close()
}

// universeLeague opens a league in the offline universe.
func universeLeague(_ context.Context, env game.Env, seats []string) (*game.League, error) {
	cfg, err := offlineConfig(env)
	if err == nil {
		_, err = seatSymbols(seats)
	}
	if err != nil || env.CheckOnly {
		return nil, err
	}
	l, err := StartOfflineLeague(cfg, env.State, seats)
	if err != nil {
		return nil, fmt.Errorf("starting the offline universe: %w", err)
	}
	out := &game.League{Save: l.Save, Close: l.Close}
	for i, g := range l.Games {
		out.Seats = append(out.Seats, seatOf(seats[i], g, OfflineTitle, l.Tokens[i]))
	}
	return out, nil
}

// seatOf is one seat's game, titled with its agent.
func seatOf(seat string, g *Game, title, token string) game.Seat {
	sym, _ := SeatSymbol(seat)
	o := &game.Opened{Game: g, Title: title + " · " + sym}
	if token != "" {
		o.Secrets = []string{token}
	}
	return game.Seat{Name: seat, Opened: o}
}

// serverLeague opens a league on the real server (or --base-url), one token per seat and
// one rate limiter for all.
func serverLeague(_ context.Context, env game.Env, seats []string) (*game.League, error) {
	if env.Getenv == nil {
		return nil, errors.New("spacetraders: no environment to read the seats' tokens from")
	}
	url, err := baseURL(env)
	if err != nil {
		return nil, err
	}
	if _, err := seatSymbols(seats); err != nil {
		return nil, err
	}
	tokens, err := seatTokens(env, seats)
	if err != nil || env.CheckOnly {
		return nil, err
	}
	lim := polite.NewLimiter(withDefaults(RateLimit{}), nil)
	out := &game.League{}
	var games []*Game
	for i, seat := range seats {
		g := New(Config{BaseURL: url, Token: tokens[i], Limiter: lim})
		games = append(games, g)
		out.Seats = append(out.Seats, seatOf(seat, g, "SpaceTraders ("+url+")", tokens[i]))
	}
	out.Close = func() error {
		for _, g := range games {
			g.Close()
		}
		return nil
	}
	return out, nil
}

// seatTokens reads every seat's token, or says which variables are missing.
func seatTokens(env game.Env, seats []string) ([]string, error) {
	var tokens, missing []string
	for _, s := range seats {
		t := env.Getenv(TokenVar(s))
		if t == "" && !env.ToolsOnly {
			missing = append(missing, TokenVar(s))
		}
		tokens = append(tokens, t)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("--game spacetraders with seats needs a token per seat: set %s (`coplay register` makes one)", strings.Join(missing, ", "))
	}
	return tokens, nil
}
