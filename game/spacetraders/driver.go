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
		Options: offlineOptions,
		Open:    openOffline,
		League:  universeLeague,
		Rewind:  universe.Rewind,
	})
	game.RegisterDriver(game.Driver{
		Name:    "spacetraders",
		Summary: "the real SpaceTraders server (needs SPACETRADERS_TOKEN, an agent token: `coplay register` makes one)",
		Options: serverOptions,
		Open:    openServer,
		League:  serverLeague,
	})
}

// openOffline starts the offline universe for one agent.
func openOffline(_ context.Context, env game.Env) (*game.Opened, error) {
	cfg, err := offlineConfig(env)
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

// OfflineTitle names the offline universe on the screen.
const OfflineTitle = "SpaceTraders (offline universe)"

// offlineOptions are the offline universe's options, for one agent and for a league.
var offlineOptions = []game.Option{
	{Name: "seed", Kind: game.OptionInt, Default: int64(1), Usage: "offline universe `seed` for a new session"},
	{Name: "speed", Kind: game.OptionFloat, Usage: "offline universe speed `factor`: durations are divided by it (0 = the default)"},
	{Name: "no-rate-limit", Kind: game.OptionBool, Usage: "turn off the offline universe's rate limit"},
}

// offlineConfig reads the offline universe's options, checked, into a universe.Config.
func offlineConfig(env game.Env) (universe.Config, error) {
	speed := env.Options.Float("speed")
	if !(speed >= 0) || math.IsInf(speed, 0) {
		return universe.Config{}, game.FlagErrorf("--speed must be a positive factor, or 0 for the default, not %v", speed)
	}
	return universe.Config{Seed: env.Options.Int("seed"), Speed: speed, RateLimit: !env.Options.Bool("no-rate-limit"), Clock: env.Clock}, nil
}

// serverOptions are the real server's options, for one agent and for a league.
var serverOptions = []game.Option{
	{Name: "base-url", Kind: game.OptionString, Usage: "the API root `URL` of the game server (spacetraders: default " + DefaultBaseURL + ")"},
}

// openServer connects one agent to the real server (or --base-url).
func openServer(_ context.Context, env game.Env) (*game.Opened, error) {
	getenv := env.Getenv
	if getenv == nil {
		return nil, errors.New("spacetraders: no environment to read SPACETRADERS_TOKEN from")
	}
	url, err := baseURL(env)
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

// baseURL reads --base-url, checked (the real server's when not given).
func baseURL(env game.Env) (string, error) {
	url := env.Options.String("base-url")
	if url == "" {
		url = DefaultBaseURL
	}
	if u, err := neturl.Parse(url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", game.FlagErrorf("--base-url must be an http or https URL such as %s, not %q", DefaultBaseURL, url)
	}
	return url, nil
}
