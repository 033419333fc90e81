package spacetraders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/polite"
)

// Config says which SpaceTraders server to play and how.
type Config struct {
	BaseURL    string           // "https://api.spacetraders.io/v2" for the real game
	Token      string           // agent token; kept in memory only
	HTTPClient *http.Client     // nil = a default with timeouts
	Offline    bool             // says so in Info() and the rules text
	Now        func() time.Time // nil = time.Now; the server's clock, for "arrives in …"
	RateLimit  RateLimit        // zero = the real game's 2 req/s, burst 30 per 60 s
	// TimeScale is how many game seconds pass per real second: the offline universe's
	// speed, so dry runs predict real arrival times. 0 means 1 (the real game).
	TimeScale float64
	// Limiter, if set, is the rate limiter to share with other games (a league's seats
	// on one server that counts them together); nil: the client's own, for RateLimit.
	Limiter *polite.Limiter
}

// Game is SpaceTraders as a coplay game. It implements game.Game and game.Simulator and
// is safe for concurrent use.
type Game struct {
	cfg   Config
	c     *Client
	now   func() time.Time
	tools game.Tools
	w     *liveWorld
	trig  triggerState // the watcher behind Triggers
}

var (
	_ game.Game      = (*Game)(nil)
	_ game.Simulator = (*Game)(nil)
	_ game.Triggers  = (*Game)(nil)
)

// New returns a Game that plays the server cfg points at. It does not contact the server.
func New(cfg Config) *Game {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	g := &Game{
		cfg: cfg,
		c:   NewClient(cfg.BaseURL, cfg.Token, cfg.HTTPClient, cfg.RateLimit),
		now: now,
		w:   newLiveWorld(now),
	}
	if cfg.Limiter != nil {
		g.c.http.Limiter = cfg.Limiter
	}
	for _, e := range catalog(g) {
		g.tools = append(g.tools, e.tool)
	}
	return g
}

// Client returns the typed client the game plays through. Reading through it bypasses
// the live world (Snapshot, Market, SystemWaypoints), which is what players read.
func (g *Game) Client() *Client { return g.c }

// Info names the game and gives the rules summary for the system prompt.
func (g *Game) Info() game.Info {
	title := "SpaceTraders"
	where := "the real SpaceTraders server, shared with other players"
	if g.cfg.Offline {
		title = "SpaceTraders (offline universe)"
		where = "coplay's built-in offline universe, which speaks the SpaceTraders v2 API"
	}
	return game.Info{Name: "spacetraders", Title: title, Rules: fmt.Sprintf(rules, where)}
}

const rules = `You play SpaceTraders v2 on %s. You command an agent with credits and ships; the goal is to grow credits and fleet.

- A ship is DOCKED, IN_ORBIT or IN_TRANSIT. Dock to trade, refuel, deliver and negotiate; orbit to navigate, mine, survey and jump. A ship in transit can do nothing until it arrives.
- navigate_ship flies within a system and uses fuel by distance (CRUISE ≈ 1 fuel per unit of distance, BURN twice that and faster, DRIFT 1 fuel but very slow). Refuel at markets that sell FUEL.
- Mining (extract_resources) and surveys start a cooldown; wait for it to end. Cargo space is limited: sell or jettison.
- Contracts: accept, buy or mine the goods, deliver them at the destination (docked), then fulfill for the payment.
- Use observe_detail to see markets (live prices only with a ship there), shipyards, waypoints with traits (MARKETPLACE, SHIPYARD, deposits) and jump gates.
- Trade goods are symbols such as IRON_ORE, as shown in markets and cargo. A refused action comes back with the game's error code and message; nothing happened.`

// Tools returns the typed catalogue.
func (g *Game) Tools() []game.Tool { return g.tools }

// Call runs a tool with arguments already validated against its schema and checks.
func (g *Game) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	return g.tools.Call(ctx, name, args)
}

// Simulate predicts a call from the live world without making it (no request: the ship
// as the world knows it, the system map, the prices last seen at the ship's market, read
// again only when older than PriceMaxAge). Tools without a dry run, and calls whose
// prediction would need something unknown, answer ok=false. A predicted success reports
// its Effects (see EffectCost and the others).
func (g *Game) Simulate(ctx context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	if t, ok := g.tools.Find(name); !ok || t.Simulate == nil {
		return game.Simulation{Summary: name + " cannot be predicted"}, false, nil
	}
	return g.tools.Simulate(ctx, name, args)
}

// result turns a tool's outcome into a game.Result: refusals keep the game's code and
// message, rate limits become waits, lost responses become Unknown.
func (g *Game) result(tool, out string, err error) (game.Result, error) {
	if err == nil {
		return game.Result{Output: out}, nil
	}
	var ae *APIError
	var uo *UnknownOutcomeError
	var ve *game.ValidationError
	switch {
	case errors.As(err, &ae):
		r := game.Result{Err: &game.Error{Code: ae.Code, Message: ae.Message, Data: ae.Data}}
		r.Output = fmt.Sprintf("%s refused: game error %d: %s", tool, ae.Code, ae.Message)
		if h := codeHints[ae.Code]; h != "" {
			r.Output += " (" + h + ")"
		}
		r.Wait = waitFor(ae)
		return r, nil
	case errors.As(err, &uo):
		return game.Result{Unknown: true, Output: fmt.Sprintf("%s: the response was lost (%v); it may or may not have happened. Observe before acting again.", tool, uo.Err)}, nil
	case errors.As(err, &ve):
		return game.Result{}, ve
	}
	return game.Result{}, fmt.Errorf("%s: %w", tool, err)
}

// codeHints says what usually fixes a refusal, for the model.
var codeHints = map[int]string{
	4000: "wait for the cooldown to end",
	4203: "refuel first, or set_flight_mode DRIFT",
	4204: "the ship is already there",
	4214: "wait until it arrives",
	4217: "not enough cargo space",
	4218: "the ship does not carry that good",
	4219: "the ship carries fewer units",
	4225: "dock_ship first",
	4228: "cargo is full: sell or jettison",
	4236: "orbit_ship first",
	4244: "dock_ship first",
	4502: "deliver every unit first",
	4505: "accept_contract first",
	4510: "dock at the contract's destination",
	4511: "fulfil the open contract first",
	4600: "not enough credits",
	4601: "see observe_detail market for what it sells",
	4602: "see observe_detail market for what it buys",
	4604: "split into trades of at most the trade volume",
}

// waitFor reads how long to wait out of an in-transit or cooldown refusal.
func waitFor(ae *APIError) *game.Wait {
	if len(ae.Data) == 0 {
		return nil
	}
	var d struct {
		Arrival  time.Time `json:"arrival"`
		Cooldown *Cooldown `json:"cooldown"`
	}
	if json.Unmarshal(ae.Data, &d) != nil {
		return nil
	}
	switch {
	case ae.Code == 4214 && !d.Arrival.IsZero():
		return &game.Wait{Until: d.Arrival, Reason: "ship in transit"}
	case ae.Code == 4000 && d.Cooldown != nil && !d.Cooldown.Expiration.IsZero():
		return &game.Wait{Until: d.Cooldown.Expiration, Reason: "ship cooling down"}
	}
	return nil
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05Z") }
