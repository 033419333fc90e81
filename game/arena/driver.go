package arena

import (
	"time"

	"context"
	"fmt"
	"math"
	"slices"

	"github.com/coplayhq/coplay/game"
)

// DriverName is what --game takes to play the arena.
const DriverName = "arena"

// The arena is a built-in driver: offline, no key, no network; it saves its world with
// the session.
func init() {
	game.RegisterDriver(game.Driver{
		Name:    DriverName,
		Summary: "the arena: an offline social battle world of communities, messages, a market and battles (no key, no network)",
		Saves:   true,
		Flags:   flags,
		// The arena keeps its own game time in its state and goes on from it when
		// restored: a world saved at any time restores as it stood then.
		Rewind: func(state []byte, _ time.Duration) ([]byte, error) { return state, nil },
	})
}

// flags adds --seed and --speed, shared with the offline universe, and the arena's own
// --scenario.
func flags(fs *game.FlagSet) game.Opener {
	seed := fs.Int64Flag("seed", 1, "`seed` of a new offline world (universe, arena)")
	speed := fs.Float64Flag("speed", 0, "speed `factor` of an offline world: its game time runs this many times faster than the clock (0 = the default, 10)")
	scenario := fs.StringFlag("scenario", "", "start a new arena from a named `scenario`: "+scenarioList())
	return func(_ context.Context, env game.Env) (*game.Opened, error) {
		if !(*speed >= 0) || math.IsInf(*speed, 0) {
			return nil, game.FlagErrorf("--speed must be a positive factor, or 0 for the default, not %v", *speed)
		}
		if err := checkScenario(*scenario, env.Resuming); err != nil {
			return nil, err
		}
		if env.CheckOnly {
			return nil, nil
		}
		cfg := Config{Seed: *seed, Speed: *speed, State: env.State, Scenario: *scenario, Clock: env.Clock}
		if env.ToolsOnly {
			cfg = Config{Poll: -1} // the catalogue needs no clock running
		}
		g, err := New(cfg)
		if err != nil {
			return nil, fmt.Errorf("opening the arena: %w", err)
		}
		return &game.Opened{Game: g, Title: Title, Save: g.Save, Close: g.Close}, nil
	}
}

// checkScenario refuses a scenario that does not exist, and one given to a resumed
// session, which goes on with its own world.
func checkScenario(name string, resuming bool) error {
	switch {
	case name == "":
		return nil
	case resuming:
		return game.FlagErrorf("--scenario starts a new world; a resumed session goes on with its own (leave --scenario out)")
	case !slices.Contains(ScenarioNames(), name):
		msg := fmt.Sprintf("--scenario must be one of %s, not %q", scenarioList(), name)
		if near := game.Closest(name, ScenarioNames(), 1); len(near) > 0 {
			msg += fmt.Sprintf(": did you mean %q?", near[0])
		}
		return game.FlagErrorf("%s", msg)
	}
	return nil
}
