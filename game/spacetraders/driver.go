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
		League:  universeLeague,
		Rewind:  universe.Rewind,
	})
	game.RegisterDriver(game.Driver{
		Name:    "spacetraders",
		Summary: "the real SpaceTraders server (needs SPACETRADERS_TOKEN, an agent token: `coplay register` makes one)",
		Flags:   serverFlags,
		League:  serverLeague,
	})
}

func universeFlags(fs *game.FlagSet) game.Opener {
	config := offlineFlags(fs)
	return func(_ context.Context, env game.Env) (*game.Opened, error) {
		cfg, err := config(env)
		if err != nil || env.CheckOnly {
			return nil, err
		}
		if env.ToolsOnly {
			// The catalogue needs no universe.
			return &game.Opened{Game: New(Config{Offline: true}), Title: OfflineTitle}, nil
		}
		off, err := StartOffline(cfg, env.State, "")
		if err != nil {
			return nil, fmt.Errorf("starting the offline universe: %w", err)
		}
		return &game.Opened{
			Game:    off.Game,
			Title:   OfflineTitle,
			Save:    off.Save,
			Close:   off.Close,
			Secrets: []string{off.Token},
		}, nil
	}
}

// OfflineTitle names the offline universe on the screen.
const OfflineTitle = "SpaceTraders (offline universe)"

// offlineFlags adds the offline universe's flags and returns how to read them, checked,
// into a universe.Config once they are parsed.
func offlineFlags(fs *game.FlagSet) func(env game.Env) (universe.Config, error) {
	seed := fs.Int64Flag("seed", 1, "offline universe `seed` for a new session")
	speed := fs.Float64Flag("speed", 0, "offline universe speed `factor`: durations are divided by it (0 = the default)")
	noLimit := fs.BoolFlag("no-rate-limit", false, "turn off the offline universe's rate limit")
	return func(env game.Env) (universe.Config, error) {
		if !(*speed >= 0) || math.IsInf(*speed, 0) {
			return universe.Config{}, game.FlagErrorf("--speed must be a positive factor, or 0 for the default, not %v", *speed)
		}
		return universe.Config{Seed: *seed, Speed: *speed, RateLimit: !*noLimit, Clock: env.Clock}, nil
	}
}

func serverFlags(fs *game.FlagSet) game.Opener {
	baseURL := baseURLFlag(fs)
	return func(_ context.Context, env game.Env) (*game.Opened, error) {
		getenv := env.Getenv
		if getenv == nil {
			return nil, errors.New("spacetraders: no environment to read SPACETRADERS_TOKEN from")
		}
		url, err := baseURL()
		if err != nil {
			return nil, err
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

// baseURLFlag adds --base-url and returns how to read it, checked, once it is parsed.
func baseURLFlag(fs *game.FlagSet) func() (string, error) {
	base := fs.StringFlag("base-url", "", "API root `URL` of the game server (spacetraders: default "+DefaultBaseURL+")")
	return func() (string, error) {
		url := *base
		if url == "" {
			url = DefaultBaseURL
		}
		if u, err := neturl.Parse(url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", game.FlagErrorf("--base-url must be an http or https URL such as %s, not %q", DefaultBaseURL, url)
		}
		return url, nil
	}
}
