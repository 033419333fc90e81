package cli

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/join"
)

// joinOptions are --join and --join-token-env: play a seat of a world another coplay
// serves (coplay serve), as the built-in game it is, with the seat's token from the
// environment (game/join).
type joinOptions struct {
	url      string // --join: the served world's URL
	tokenEnv string // --join-token-env: the variable holding the seat's token ("" = join.DefaultTokenEnv)
}

// register adds --join and --join-token-env to fs.
func (j *joinOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&j.url, "join", "", "play a seat of a world coplay serve serves at this `URL` (http://HOST:PORT/mcp), as --game arena or universe; the seat's token is read from $"+join.DefaultTokenEnv+" (or --join-token-env), never from the command line")
	fs.StringVar(&j.tokenEnv, "join-token-env", "", "environment `variable` holding the seat's token for --join (default "+join.DefaultTokenEnv+"); the token is never stored or shown")
}

// config is the join.Config of the flags, for game g.
func (j joinOptions) config(g, url string) join.Config {
	return join.Config{URL: url, Game: g, TokenEnv: j.tokenEnv, Getenv: os.LookupEnv}
}

// checkJoin finds the mistakes of --join before anything is opened: a game that is not
// served (usage), a league or a fork (usage), the autopilot on a served universe
// (usage), a bad URL or a token that is not set.
func (o *options) checkJoin(isLeague bool, brainKind string) error {
	j := o.join
	if j.url == "" {
		if j.tokenEnv != "" {
			return usagef("--join-token-env names the token's variable for --join: give --join URL too")
		}
		return nil
	}
	switch {
	case o.resume:
		// The session says which game: openJoined checks it once it is read.
	case !slices.Contains(servedGames, o.game):
		return usagef("--join plays a world coplay serve serves: --game arena or --game universe, not --game %s", o.game)
	case isLeague:
		return usagef("--join plays one seat of a served world, whose seats are the server's: leave --seat out, and start one coplay --join per seat (each with its own token)")
	case o.fork != "":
		return usagef("--join plays a served world, which lives on its server and cannot be forked: leave --fork out")
	case brainKind == "autopilot" && o.game != "arena" && !o.resume:
		return usagef("the autopilot plays a served arena (--game arena --join URL); a served %s needs a model (--model, --preset) — or serve it with coplay serve-universe and play --game spacetraders --base-url URL, which the autopilot plays", o.game)
	}
	if f := o.drivers.firstSet(o.given); f != "" {
		return usagef("--%s sets up a world of this machine's; a joined world is its server's (set it on coplay serve)", f)
	}
	_, _, err := j.config(o.game, j.url).Check()
	return err
}

// openJoined opens the seat of a served world this run plays: --join's, or the one a
// resumed session joined (its state says where, never the token), with --join's URL
// over it when given. ok is false when the run joins nothing (its own world).
func (o options) openJoined(sessionName string, state []byte) (_ *game.Opened, ok bool, err error) {
	url := o.join.url
	saved, joined := join.ReadSaved(state)
	switch {
	case url == "" && !joined:
		return nil, false, nil
	case o.fork != "":
		from, _, _ := strings.Cut(o.fork, "@")
		return nil, true, usagef("session %s played a served world, which lives on its server and cannot be forked: --resume goes on with it", from)
	case url != "" && len(state) > 0 && !joined:
		return nil, true, usagef("session %s plays a world of its own, not a served one: leave --resume out to join with a new session", sessionName)
	case !slices.Contains(servedGames, o.game):
		return nil, true, usagef("session %s plays %s, which no coplay serve serves: it cannot --join", sessionName, o.game)
	case url == "":
		url = saved.Joined
	}
	cfg := o.join.config(o.game, url)
	if cfg.TokenEnv == "" && joined {
		cfg.TokenEnv = saved.TokenEnv
	}
	opened, err := join.OpenSeat(context.Background(), cfg)
	if err != nil {
		return nil, true, err
	}
	return opened, true, nil
}

// firstSet is the first driver flag (by name) the command line set, or "": a joined
// world refuses them. given, when known, are the flags of the command line itself: a
// config file's defaults (defaults.speed) are set as flags too, and are no mistake.
func (g *gameFlags) firstSet(given map[string]bool) string {
	name := ""
	g.fs.Visit(func(f *pflag.Flag) {
		if _, ok := g.kinds[f.Name]; ok && name == "" && (given == nil || given[f.Name]) {
			name = f.Name
		}
	})
	return name
}
