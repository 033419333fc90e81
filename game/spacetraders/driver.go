package spacetraders

import (
	"context"
	"errors"
	"fmt"
	"math"
	neturl "net/url"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/universe"
)

// Two drivers share this package: "universe", the built-in offline universe (the
// default: no key, no account, no network), and "spacetraders", the real server.
func init() {
	game.RegisterDriver(game.Driver{
		Name:    "universe",
		Summary: "SpaceTraders in the built-in offline universe (no key, no account, no network)",
		Saves:   true,
		Flags:   universeFlags,
		Rewind:  universe.Rewind,
	})
	game.RegisterDriver(game.Driver{
		Name:    "spacetraders",
		Summary: "the real SpaceTraders server (needs SPACETRADERS_TOKEN, an agent token: `coplay register` makes one)",
		Flags:   serverFlags,
	})
}

func universeFlags(fs *game.FlagSet) game.Opener {
	seed := fs.Int64Flag("seed", 1, "offline universe `seed` for a new session")
	speed := fs.Float64Flag("speed", 0, "offline universe speed `factor`: durations are divided by it (0 = the default)")
	noLimit := fs.BoolFlag("no-rate-limit", false, "turn off the offline universe's rate limit")
	return func(_ context.Context, env game.Env) (*game.Opened, error) {
		if !(*speed >= 0) || math.IsInf(*speed, 0) {
			return nil, game.FlagErrorf("--speed must be a positive factor, or 0 for the default, not %v", *speed)
		}
		if env.CheckOnly {
			return nil, nil
		}
		if env.ToolsOnly {
			// The catalogue needs no universe.
			return &game.Opened{Game: New(Config{Offline: true}), Title: "SpaceTraders (offline universe)"}, nil
		}
		off, err := StartOffline(universe.Config{Seed: *seed, Speed: *speed, RateLimit: !*noLimit, Clock: env.Clock}, env.State, "")
		if err != nil {
			return nil, fmt.Errorf("starting the offline universe: %w", err)
		}
		return &game.Opened{
			Game:    off.Game,
			Title:   "SpaceTraders (offline universe)",
			Save:    off.Save,
			Close:   off.Close,
			Secrets: []string{off.Token},
		}, nil
	}
}

func serverFlags(fs *game.FlagSet) game.Opener {
	base := fs.StringFlag("base-url", "", "API root `URL` of the game server (spacetraders: default "+DefaultBaseURL+")")
	return func(_ context.Context, env game.Env) (*game.Opened, error) {
		getenv := env.Getenv
		if getenv == nil {
			return nil, errors.New("spacetraders: no environment to read SPACETRADERS_TOKEN from")
		}
		url := *base
		if url == "" {
			url = DefaultBaseURL
		}
		if u, err := neturl.Parse(url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, game.FlagErrorf("--base-url must be an http or https URL such as %s, not %q", DefaultBaseURL, url)
		}
		token := getenv("SPACETRADERS_TOKEN")
		if token == "" && !env.ToolsOnly {
			return nil, errors.New("--game spacetraders needs SPACETRADERS_TOKEN set to an agent token (`coplay register` makes one; --game universe plays offline without one)")
		}
		if env.CheckOnly {
			return nil, nil
		}
		g := New(Config{BaseURL: url, Token: token})
		o := &game.Opened{Game: g, Title: "SpaceTraders (" + url + ")", Close: g.Close}
		if token != "" {
			o.Secrets = []string{token}
		}
		return o, nil
	}
}
