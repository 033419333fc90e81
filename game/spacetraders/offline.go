package spacetraders

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/coplayhq/coplay/game/universe"
)

// DefaultAgentSymbol is the offline player's agent when none is named.
const DefaultAgentSymbol = "COPLAY"

// Offline is the built-in universe served on a loopback listener, with a Game playing it.
type Offline struct {
	Game     *Game
	Universe *universe.Universe
	URL      string // the API root, http://127.0.0.1:PORT/v2
	Token    string // the agent's token in this universe; in memory only

	srv *http.Server
}

// StartOffline starts the built-in universe on a loopback listener (127.0.0.1:0),
// registers (or re-opens) the player's agent and returns a Game pointed at it. state nil
// means a new universe from cfg.Seed; otherwise the universe saved by Save is restored.
// agentSymbol "" means DefaultAgentSymbol.
//
// The agent token is not needed from the caller: a restored universe already knows its
// agents and gives the token back (universe.AgentToken), so it is never stored.
func StartOffline(cfg universe.Config, state []byte, agentSymbol string) (*Offline, error) {
	if agentSymbol == "" {
		agentSymbol = DefaultAgentSymbol
	}
	l, err := StartOfflineLeague(cfg, state, []string{agentSymbol})
	if err != nil {
		return nil, err
	}
	return &Offline{Game: l.Games[0], Universe: l.Universe, URL: l.URL, Token: l.Tokens[0], srv: l.srv}, nil
}

// openUniverse makes a new universe from cfg.Seed, or restores a saved one.
func openUniverse(cfg universe.Config, state []byte) (*universe.Universe, error) {
	if state == nil {
		return universe.New(cfg), nil
	}
	u, err := universe.Restore(state, cfg)
	if err != nil {
		return nil, fmt.Errorf("spacetraders: start offline: %w", err)
	}
	return u, nil
}

// serveLoopback serves u on 127.0.0.1:0 and returns the server and its API root.
func serveLoopback(u *universe.Universe) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("spacetraders: start offline: listen on loopback: %w", err)
	}
	srv := &http.Server{Handler: u.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close
	return srv, "http://" + ln.Addr().String() + "/v2", nil
}

// agentGame registers (or re-opens) the agent symbol in u and returns a Game playing it
// through the server at url, with its own token and its own client.
func agentGame(cfg universe.Config, u *universe.Universe, url, symbol string) (*Game, string, error) {
	token, known := u.AgentToken(symbol)
	if !known {
		var err error
		if token, err = u.Register(symbol, "COSMIC"); err != nil {
			return nil, "", fmt.Errorf("spacetraders: start offline: %w", err)
		}
	}
	now := time.Now
	if cfg.Clock != nil {
		now = cfg.Clock.Now
	}
	speed := cfg.Speed
	if speed <= 0 {
		speed = universe.DefaultSpeed
	}
	// Without the universe's rate limit, the client's own budget would only slow the
	// game down; it still goes through the same limiter, with room to spare. With it,
	// the universe counts each token apart, so each agent has a limiter of its own.
	rl := RateLimit{}
	if !cfg.RateLimit {
		rl = RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}
	}
	g := New(Config{BaseURL: url, Token: token, Offline: true, Now: now, TimeScale: speed, RateLimit: rl})
	return g, token, nil
}

// Close stops the loopback server.
func (o *Offline) Close() error {
	o.Game.Close()
	return o.srv.Close()
}

// Save returns the universe's state, for the session to keep.
func (o *Offline) Save() ([]byte, error) { return o.Universe.Save() }
