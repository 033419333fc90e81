package cli

import (
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/autopilot"
	arenapilot "github.com/coplayhq/coplay/agent/autopilot/arena"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
)

// autopilotPlays reports whether a built-in autopilot plays the named driver's game:
// SpaceTraders (the universe and the real server) and the arena.
func autopilotPlays(driver string) bool { return autopilot.Plays(driver) || arenapilot.Plays(driver) }

// autopilotGames names the games an autopilot plays, for messages.
const autopilotGames = "SpaceTraders (--game universe or spacetraders) and the arena (--game arena)"

// autopilotFor builds the autopilot of g, the game as its driver opened it (before any
// wrapping), playing by the named temperament ("" = balanced; a profile's), or reports
// that no autopilot plays it.
func autopilotFor(g game.Game, temperament string) (agent.Brain, bool, error) {
	var b interface {
		agent.Brain
		SetTemperament(string) error
	}
	if st, ok := g.(*spacetraders.Game); ok {
		b = autopilot.New(st)
	} else if a, ok := arenapilot.For(g); ok {
		b = a
	} else {
		return nil, false, nil
	}
	if err := b.SetTemperament(temperament); err != nil {
		return nil, true, err
	}
	return b, true, nil
}
