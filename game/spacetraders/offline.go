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
	var u *universe.Universe
	if state == nil {
		u = universe.New(cfg)
	} else {
		var err error
		if u, err = universe.Restore(state, cfg); err != nil {
			return nil, fmt.Errorf("spacetraders: start offline: %w", err)
		}
	}
	token, known := u.AgentToken(agentSymbol)
	if !known {
		var err error
		if token, err = u.Register(agentSymbol, "COSMIC"); err != nil {
			return nil, fmt.Errorf("spacetraders: start offline: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("spacetraders: start offline: listen on loopback: %w", err)
	}
	srv := &http.Server{Handler: u.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close
	url := "http://" + ln.Addr().String() + "/v2"

	now := time.Now
	if cfg.Clock != nil {
		now = cfg.Clock.Now
	}
	speed := cfg.Speed
	if speed <= 0 {
		speed = universe.DefaultSpeed
	}
	// Without the universe's rate limit, the client's own budget would only slow the
	// game down; it still goes through the same limiter, with room to spare.
	rl := RateLimit{}
	if !cfg.RateLimit {
		rl = RateLimit{PerSecond: 1000, Burst: 1000, BurstWindow: time.Second}
	}
	g := New(Config{BaseURL: url, Token: token, Offline: true, Now: now, TimeScale: speed, RateLimit: rl})
	return &Offline{Game: g, Universe: u, URL: url, Token: token, srv: srv}, nil
}

// Close stops the loopback server.
func (o *Offline) Close() error {
	o.Game.Close()
	return o.srv.Close()
}

// Save returns the universe's state, for the session to keep.
func (o *Offline) Save() ([]byte, error) { return o.Universe.Save() }
