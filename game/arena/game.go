package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Config sets up an arena.
type Config struct {
	// Seed makes a new world; a restored one keeps the seed it was made with.
	Seed int64
	// Speed is how many times faster than the wall clock game time runs; 0 means
	// DefaultSpeed.
	Speed float64
	// Clock is the wall clock; nil means SystemClock.
	Clock Clock
	// State, when set, is a saved world (Game.Save) to continue from.
	State []byte
	// Scenario, when set, names the starting situation of a new world (see
	// ScenarioNames); a restored world goes on with the one it was made with.
	Scenario string
	// Poll is how often, on the wall clock, the world's clock is checked for events when
	// nobody calls the game. Zero means a second, or one game minute when that is
	// shorter; negative means never (tests drive the world with Sync).
	Poll time.Duration
	// Buffer is how many triggers wait for a reader before the oldest are dropped;
	// 0 means 64.
	Buffer int
}

// minPoll is the shortest default time between two looks at the clock, whatever the
// speed.
const minPoll = 10 * time.Millisecond

// Game is the arena: an offline, seeded social battle world with its own clock. It
// implements game.Game, game.Simulator and game.Triggers, and is safe for concurrent
// use.
type Game struct {
	mu     sync.Mutex
	w      world
	clk    gameClock
	tools  game.Tools
	trig   chan game.Trigger
	closed bool
	stop   chan struct{}
	done   chan struct{}
	relay  func(letter) // a league's post to the other seats; nil alone
	// seatRules are the rules for a league's seat (its name, the other players); ""
	// alone, where the rules are the constant ones, byte for byte.
	seatRules string
}

var (
	_ game.Game      = (*Game)(nil)
	_ game.Simulator = (*Game)(nil)
	_ game.Triggers  = (*Game)(nil)
)

// New makes a world from cfg.Seed (and cfg.Scenario), or restores cfg.State, and starts
// its clock.
func New(cfg Config) (*Game, error) {
	s := newState(cfg.Seed)
	switch sc, ok := scenarioNamed(cfg.Scenario); {
	case len(cfg.State) > 0:
		var err error
		if s, err = loadState(cfg.State); err != nil {
			return nil, err
		}
	case ok:
		sc.apply(s)
	case cfg.Scenario != "":
		return nil, fmt.Errorf("arena: no scenario %q (scenarios: %s)", cfg.Scenario, scenarioList())
	}
	if !(cfg.Speed >= 0) || math.IsInf(cfg.Speed, 0) {
		return nil, fmt.Errorf("arena: speed must be a positive factor, or 0 for the default, not %v", cfg.Speed)
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock()
	}
	return start(cfg, s, newGameClock(cfg.Clock, cfg.Speed, s.Now)), nil
}

// start makes the game of world s on clk and starts its clock.
func start(cfg Config, s *state, clk gameClock) *Game {
	if cfg.Buffer <= 0 {
		cfg.Buffer = 64
	}
	g := &Game{w: world{s: s}, clk: clk, trig: make(chan game.Trigger, cfg.Buffer)}
	g.tools = catalog(g)
	poll := cfg.Poll
	if poll == 0 {
		poll = max(minPoll, min(time.Second, g.clk.wallDuration(time.Minute)))
	}
	if poll > 0 {
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go g.run(poll)
	}
	return g
}

// run checks the clock every poll until Close, so that events happen (and triggers are
// sent) while nobody calls the game.
func (g *Game) run(poll time.Duration) {
	defer close(g.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			g.Sync()
		}
	}
}

// Sync moves the world to the clock's time now, sending the triggers of what happened.
func (g *Game) Sync() { g.locked(func(*world) {}) }

// locked runs fn on the world brought up to now, then sends what happened. A league's
// letters go to the other seats after this seat's lock is released, so that two seats
// writing to each other at once never wait on each other.
func (g *Game) locked(fn func(w *world)) {
	out, relay := g.run1(fn)
	for _, l := range out {
		relay(l)
	}
}

// run1 is locked's part under the lock: it returns the letters to post and where.
func (g *Game) run1(fn func(w *world)) ([]letter, func(letter)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.w.advance(g.clk.game(g.clk.clock.Now()))
	fn(&g.w)
	for _, t := range g.w.take() {
		t.Time = g.clk.wall(t.Time) // triggers are timed on the wall clock, like observations
		g.send(t)
	}
	out := g.w.outbox
	g.w.outbox = nil
	if g.relay == nil {
		return nil, nil
	}
	return out, g.relay
}

// send puts a trigger on the channel without ever blocking: when the buffer is full,
// the oldest waiting trigger is dropped. Called with g.mu held, so there is one sender.
func (g *Game) send(t game.Trigger) {
	if !g.closed {
		game.SendTrigger(g.trig, t)
	}
}

// Triggers returns the channel the world's events arrive on (game.Triggers); it is
// closed by Close.
func (g *Game) Triggers() <-chan game.Trigger { return g.trig }

// Close stops the world's clock and closes the triggers channel. It is safe to call more
// than once. The game can still be observed and saved afterwards.
func (g *Game) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	if g.stop != nil {
		close(g.stop)
	}
	g.mu.Unlock()
	if g.done != nil {
		<-g.done
	}
	g.mu.Lock()
	close(g.trig)
	g.mu.Unlock()
	return nil
}

// Title names the arena for the screen.
const Title = "Arena (offline social battle world)"

// Info names the game and explains its rules.
func (g *Game) Info() game.Info {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := rules
	if g.seatRules != "" {
		r = g.seatRules
	}
	return game.Info{Name: DriverName, Title: Title, Rules: r}
}

// Tools returns the catalogue.
func (g *Game) Tools() []game.Tool { return g.tools }

// Call runs a tool with validated arguments.
func (g *Game) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	return g.tools.Call(ctx, name, args)
}

// Simulate runs a tool's dry run: every Act tool has one, and it is exact.
func (g *Game) Simulate(ctx context.Context, name string, args json.RawMessage) (game.Simulation, bool, error) {
	sim, ok, err := g.tools.Simulate(ctx, name, args)
	if !ok && err == nil {
		sim.Summary = name + " cannot be predicted"
	}
	return sim, ok, err
}

// Observe returns the world now: the summary, the metrics, the timers and, when nothing
// can usefully be done, until when.
func (g *Game) Observe(context.Context) (game.Observation, error) {
	var obs game.Observation
	g.locked(func(w *world) {
		obs = game.Observation{Summary: w.summary(), Metrics: w.metrics(), Time: g.clk.wall(w.s.Now)}
		for _, t := range w.timers() {
			obs.Timers = append(obs.Timers, game.Timer{Label: t.label, Start: g.clk.wall(t.start), End: g.clk.wall(t.end)})
		}
		if until, why := w.idle(); !until.IsZero() {
			obs.IdleUntil, obs.IdleReason = g.clk.wall(until), why
		}
	})
	return obs, nil
}

// Save returns the world's state, to continue from with Config.State.
func (g *Game) Save() ([]byte, error) {
	var out []byte
	var err error
	g.locked(func(w *world) { out, err = json.Marshal(w.s) })
	return out, err
}

// Score is how well the agent does: gold, plus 25 for every battle won, plus standing in
// its community. The observation's metric ScoreMetric carries the same number.
func (g *Game) Score() float64 {
	var v float64
	g.locked(func(w *world) { v = w.scoreValue() })
	return v
}

// Now returns the game time.
func (g *Game) Now() time.Time {
	var t time.Time
	g.locked(func(w *world) { t = w.s.Now })
	return t
}

// loadState decodes a saved world and checks it can be played on.
func loadState(b []byte) (*state, error) {
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("arena: reading the saved world: %w", err)
	}
	switch {
	case s.Version != stateVersion:
		return nil, fmt.Errorf("arena: the saved world is version %d; this coplay reads version %d", s.Version, stateVersion)
	case len(s.Members) == 0 || s.Prices == nil || s.Stock == nil || s.Now.Before(Epoch):
		return nil, errors.New("arena: the saved world is incomplete (no members, market or time)")
	}
	for i, m := range s.Members {
		if m == nil {
			return nil, fmt.Errorf("arena: the saved world's member %d is empty", i)
		}
	}
	for i, b := range s.Battles {
		if b == nil || len(b.Sides) != 2 || b.Committed == nil {
			return nil, fmt.Errorf("arena: the saved world's battle %d is incomplete", i)
		}
	}
	if s.Agent.Inventory == nil {
		s.Agent.Inventory = map[string]int{}
	}
	s.Messages = slicesCompact(s.Messages)
	return &s, nil
}

// slicesCompact drops nil messages from a saved world.
func slicesCompact(ms []*message) []*message {
	out := ms[:0]
	for _, m := range ms {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}
