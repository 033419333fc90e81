package join

import (
	"context"
	"encoding/json"

	"github.com/coplayhq/coplay/game"
)

// Saved is what a session keeps of a joined world, in place of a world's state: where
// it is and which variable holds the seat's token, never the token. A resumed session
// joins it again.
type Saved struct {
	Joined   string `json:"joined"`
	Game     string `json:"game"`
	TokenEnv string `json:"token_env,omitempty"`
}

// ReadSaved reads a session's state as a joined world's; false when it is not one (a
// local world's state).
func ReadSaved(state []byte) (Saved, bool) {
	var s Saved
	if json.Unmarshal(state, &s) != nil || s.Joined == "" {
		return Saved{}, false
	}
	return s, true
}

// OpenSeat joins the served world and hands it over as a game to play: its Save keeps
// Saved (the world itself is kept by its server), and its Secrets hold the token, so
// that it is scrubbed from everything shown, written or sent.
func OpenSeat(ctx context.Context, cfg Config) (*game.Opened, error) {
	_, token, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	g, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	state, err := json.Marshal(Saved{Joined: g.cfg.URL, Game: cfg.Game, TokenEnv: cfg.TokenEnv})
	if err != nil {
		g.Close()
		return nil, err
	}
	return &game.Opened{Game: g, Title: g.info.Title, Close: g.Close, Secrets: []string{token},
		Save: func() ([]byte, error) { return state, nil }}, nil
}
