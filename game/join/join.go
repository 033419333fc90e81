package join

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/mcp"
	"github.com/coplayhq/coplay/game/mcpserve"
	"github.com/coplayhq/coplay/secret"
)

// DefaultTokenEnv is the environment variable a seat's token is read from when
// Config.TokenEnv names none.
const DefaultTokenEnv = "COPLAY_JOIN_TOKEN"

// ServerPrefix starts the name a served world gives itself: "coplay-arena".
const ServerPrefix = "coplay-"

// maxRetries is how many times a call or read refused for the seat's rate limit is
// sent again before its refusal is the answer.
const maxRetries = 5

// Config says which served world to join, and as which seat.
type Config struct {
	// URL is the served world's endpoint, http://HOST:PORT/mcp (a URL without a path
	// gets mcpserve.Path).
	URL string
	// Game is the driver the world must be ("arena"): the server's name must be
	// ServerPrefix + Game.
	Game string
	// TokenEnv names the environment variable holding the seat's token (""
	// DefaultTokenEnv). The token picks the seat.
	TokenEnv string
	// Getenv reads the environment (os.LookupEnv; tests give their own). The token is
	// read through it before connecting, to say what is missing in words; the
	// connection reads it from the process's environment (game/mcp's headers).
	Getenv func(string) (string, bool)
}

// tokenEnv is the variable the token is read from.
func (c Config) tokenEnv() string {
	if c.TokenEnv == "" {
		return DefaultTokenEnv
	}
	return c.TokenEnv
}

// validEnvName is what a variable's name may be: the token's header names it as $NAME.
var validEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Check reports what is wrong with the Config before anything connects: a URL that is
// not http(s), a bad variable name, a token that is not set. It returns the URL to
// connect to (with mcpserve.Path when it had no path) and the token.
func (c Config) Check() (endpoint, token string, err error) {
	u, perr := url.Parse(c.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("--join %q is not a served world's URL: give http://HOST:PORT%s (what coplay serve prints)", secret.RedactURL(c.URL), mcpserve.Path)
	}
	if u.User != nil || u.RawQuery != "" {
		return "", "", fmt.Errorf("--join %s: a served world's URL has no password or query; its seat's token goes in $%s", secret.RedactURL(c.URL), c.tokenEnv())
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = mcpserve.Path
	}
	name := c.tokenEnv()
	if !validEnvName.MatchString(name) {
		return "", "", fmt.Errorf("--join-token-env %q is not an environment variable's name (letters, digits and _)", name)
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) (string, bool) { return "", false }
	}
	token, _ = getenv(name)
	if strings.TrimSpace(token) == "" {
		return "", "", fmt.Errorf("no seat token: set %s to the token of your seat in the served world (the server's %s<SEAT>, or the one it printed)", name, "COPLAY_SEAT_TOKEN_")
	}
	return u.String(), token, nil
}

// Game is a seat of a served world played as the built-in game it is. It implements
// game.Game, game.Simulator, game.Triggers, game.Refresher and game.Viewer; its methods
// are safe for concurrent use.
type Game struct {
	mc   *mcp.Game
	cfg  Config
	name string // the server, for messages: 127.0.0.1:8765/mcp
	info game.Info

	mu   sync.Mutex
	view json.RawMessage // the view of the last observation; nil once a call may have changed the world
}

var (
	_ game.Game      = (*Game)(nil)
	_ game.Simulator = (*Game)(nil)
	_ game.Triggers  = (*Game)(nil)
	_ game.Refresher = (*Game)(nil)
	_ game.Viewer    = (*Game)(nil)
)

// Open connects to the served world cfg names, as the seat its token picks, and checks
// that it is the world cfg.Game says.
func Open(ctx context.Context, cfg Config) (*Game, error) {
	endpoint, _, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	cfg.URL = endpoint
	u, _ := url.Parse(endpoint)
	name := u.Host + u.Path
	mc, err := mcp.Open(ctx, mcp.Config{URL: endpoint,
		Headers: map[string]string{"Authorization": "Bearer $" + cfg.tokenEnv()},
		// Subscribed to: each of its updates carries the seat's trigger.
		Observe:   []string{mcpserve.WorldURI},
		Transport: mcp.TransportHTTP,
	})
	if err != nil {
		if mc != nil {
			mc.Close()
		}
		why := strings.TrimPrefix(err.Error(), "mcp server "+name+": ")
		switch {
		case strings.Contains(why, "(401"): // game/mcp's words for a refused Authorization header
			why = fmt.Sprintf("the server refused the token in $%s (401 Unauthorized): it is no seat's token there (a seat's token is the server's COPLAY_SEAT_TOKEN_<SEAT>, or the one it printed)", cfg.tokenEnv())
		case strings.Contains(why, "connection refused"):
			why = "nothing answers there (connection refused): is coplay serve running, at this address?"
		case strings.Contains(why, "no such host"):
			why = "no such host: check the address (" + why + ")"
		}
		return nil, fmt.Errorf("joining the served world at %s: %s", name, why)
	}
	server, title := mc.Server()
	if want := ServerPrefix + cfg.Game; server != want {
		mc.Close()
		what := "not a world coplay serves"
		if g, ok := strings.CutPrefix(server, ServerPrefix); ok && g != "" {
			what = "the " + g + ", not the " + cfg.Game + ": pass --game " + g
		}
		return nil, fmt.Errorf("joining the served world at %s: it is %q, %s", name, server, what)
	}
	if title == "" {
		title = cfg.Game
	}
	g := &Game{mc: mc, cfg: cfg, name: name}
	g.info = game.Info{Name: cfg.Game, Title: title + " (served at " + name + ")", Rules: mc.Info().Rules}
	return g, nil
}

// Info names the game as the driver it is ("arena"); the rules are the served seat's.
func (g *Game) Info() game.Info { return g.info }

// Tools returns the served seat's tools, as the local game's (no group: they are one
// game's, not a server's among others).
func (g *Game) Tools() []game.Tool {
	tools := g.mc.Tools()
	for i := range tools {
		tools[i].Group = ""
	}
	return tools
}

// ToolsChanged reports a changed catalogue (a server restarted with another coplay).
func (g *Game) ToolsChanged() bool { return g.mc.ToolsChanged() }

// Observe reads the seat's observation from the server, with what the connection has
// to say (a reconnect) ahead of it, and keeps the view for ViewJSON.
func (g *Game) Observe(ctx context.Context) (game.Observation, error) {
	o, notices, err := g.read(ctx)
	if err != nil {
		return game.Observation{}, err
	}
	obs := o.Observation
	if len(notices) > 0 {
		var b strings.Builder
		for _, n := range notices {
			fmt.Fprintf(&b, "**%s**\n\n", n)
		}
		obs.Summary = b.String() + obs.Summary
	}
	return obs, nil
}

// ViewJSON returns the view of the last observation while no call has been made since,
// else reads it again (game.Viewer).
func (g *Game) ViewJSON(ctx context.Context) (json.RawMessage, error) {
	g.mu.Lock()
	v := g.view
	g.mu.Unlock()
	if v != nil {
		return v, nil
	}
	o, _, err := g.read(ctx)
	if err != nil {
		return nil, err
	}
	return o.View, nil
}

// read reads coplay://observation, waiting out the seat's rate limit, and keeps its
// view.
func (g *Game) read(ctx context.Context) (mcpserve.Observation, []string, error) {
	var o mcpserve.Observation
	var text string
	var notices []string
	err := g.retry(ctx, func() (string, error) {
		var err error
		text, notices, err = g.mc.ReadText(ctx, mcpserve.ObservationURI)
		if err != nil {
			return err.Error(), err
		}
		return "", nil
	})
	if err != nil {
		return o, nil, err
	}
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return o, nil, fmt.Errorf("the served world at %s sent an observation coplay cannot read (%v): is it a coplay serve of this version?", g.name, err)
	}
	if len(o.View) == 0 || string(o.View) == "null" {
		o.View = nil
	}
	g.mu.Lock()
	g.view = o.View
	g.mu.Unlock()
	return o, notices, nil
}

// Call runs the seat's tool on the server; a refusal for the rate limit is waited out
// and sent again (nothing ran).
func (g *Game) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.mu.Lock()
	g.view = nil // the world may change: the next view is read again
	g.mu.Unlock()
	var res game.Result
	err := g.retry(ctx, func() (string, error) {
		var err error
		res, err = g.mc.Call(ctx, name, args)
		if err == nil && res.Err != nil {
			return res.Err.Message, nil
		}
		return "", err
	})
	return res, err
}

// Simulate asks the server for the call's dry run (its preview tool).
func (g *Game) Simulate(ctx context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	return g.mc.Simulate(ctx, name, args)
}

// Triggers returns the seat's triggers, as the server sends them.
func (g *Game) Triggers() <-chan game.Trigger { return g.mc.Triggers() }

// Close leaves the served world (its session ends; the world goes on).
func (g *Game) Close() error { return g.mc.Close() }

// retry runs fn until it is not refused for the rate limit (fn returns the words of a
// refusal, if any), at most maxRetries times more, waiting as long as the server says
// and showing the wait.
func (g *Game) retry(ctx context.Context, fn func() (refusal string, err error)) error {
	for i := 0; ; i++ {
		said, err := fn()
		wait, limited := retryAfter(said)
		if !limited || i == maxRetries {
			return err
		}
		game.NotifyWait(ctx, game.Wait{Until: time.Now().Add(wait), Reason: fmt.Sprintf("the served world at %s limits this seat's calls; waiting %.1f s as it asks", g.name, wait.Seconds())})
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			game.NotifyWait(ctx, game.Wait{})
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		game.NotifyWait(ctx, game.Wait{})
	}
}

// limitWords finds a served world's rate-limit refusal and its wait (mcpserve's
// "429 Too Many Requests: … retry after 1.5 s").
var limitWords = regexp.MustCompile(`(?is)429 Too Many Requests.*retry after ([0-9]+(?:\.[0-9]+)?) s`)

// retryAfter reads the wait out of a rate-limit refusal; false for anything else.
func retryAfter(said string) (time.Duration, bool) {
	m := limitWords.FindStringSubmatch(said)
	if m == nil {
		return 0, false
	}
	secs, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(secs*float64(time.Second)) + 50*time.Millisecond, true
}
