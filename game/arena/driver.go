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
		Options: options(),
		Open:    open,
		League:  openLeague,
		// The arena keeps its own game time in its state and goes on from it when
		// restored: a world saved at any time restores as it stood then.
		Rewind: func(state []byte, _ time.Duration) ([]byte, error) { return state, nil },
	})
}

// options are --seed and --speed, shared with the offline universe, and the arena's own
// --scenario.
func options() []game.Option {
	return []game.Option{
		{Name: "seed", Kind: game.OptionInt, Default: int64(1), Usage: "`seed` of a new offline world (universe, arena)"},
		{Name: "speed", Kind: game.OptionFloat, Usage: "speed `factor` of an offline world: its game time runs this many times faster than the clock (0 = the default, 10)"},
		{Name: "scenario", Kind: game.OptionString, Usage: "start a new arena from a named `scenario`: " + scenarioList(), Enum: ScenarioNames()},
	}
}

// open opens one agent's arena.
func open(_ context.Context, env game.Env) (*game.Opened, error) {
	cfg, err := config(env)
	if err != nil || env.CheckOnly {
		return nil, err
	}
	if env.ToolsOnly {
		cfg = Config{Poll: -1} // the catalogue needs no clock running
	}
	g, err := New(cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the arena: %w", err)
	}
	return &game.Opened{Game: g, Title: Title, Save: g.Save, Close: g.Close}, nil
}

// openLeague opens a league with the same options (see NewLeague).
func openLeague(_ context.Context, env game.Env, seats []string) (*game.League, error) {
	cfg, err := config(env)
	if err == nil && cfg.Scenario != "" {
		err = game.FlagErrorf("--scenario starts one agent's world; a league starts from --seed alone")
	}
	if err == nil {
		err = checkSeatNames(seats)
	}
	if err != nil || env.CheckOnly {
		return nil, err
	}
	if env.SeatStates != nil { // every seat's own world, as each saved it
		if cfg.State, err = joinSeats(env.SeatStates, seats); err != nil {
			return nil, err
		}
	}
	l, err := NewLeague(cfg, seats)
	if err != nil {
		return nil, fmt.Errorf("opening the arena: %w", err)
	}
	// Each seat saves its own copy of the world and its letters (SavePart,
	// game.League.Parts): the copies are kept in step by letters, and saving all at
	// every seat's save cost as the square of the seats.
	out := &game.League{Save: l.Save, Close: l.Close, Parts: true}
	for i, g := range l.seats {
		out.Seats = append(out.Seats, game.Seat{Name: seats[i], Opened: &game.Opened{Game: g, Save: func() ([]byte, error) { return l.SavePart(i) }, Title: Title + " · " + seats[i]}})
	}
	return out, nil
}

// config reads the options into a Config, checked.
func config(env game.Env) (Config, error) {
	seed, speed, scenario := env.Options.Int("seed"), env.Options.Float("speed"), env.Options.String("scenario")
	if !(speed >= 0) || math.IsInf(speed, 0) {
		return Config{}, game.FlagErrorf("--speed must be a positive factor, or 0 for the default, not %v", speed)
	}
	if err := checkScenario(scenario, env.Resuming); err != nil {
		return Config{}, err
	}
	return Config{Seed: seed, Speed: speed, State: env.State, Scenario: scenario, Clock: env.Clock}, nil
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
