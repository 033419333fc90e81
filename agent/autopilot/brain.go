package autopilot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
)

// DefaultMaxInlineWait is how long Next waits by itself for a busy ship when the game
// gives no idle time (see Brain.MaxInlineWait).
const DefaultMaxInlineWait = 2 * time.Minute

// Brain is the autopilot: an brain.Brain that plays SpaceTraders by rules. Build one with
// New. Its methods are safe for concurrent use, though the runner calls Next from one
// goroutine.
type Brain struct {
	// MaxInlineWait bounds how long Next waits by itself when it has nothing to propose
	// until a ship is free again and the observation gives no IdleUntil (a parked probe
	// keeps the game from calling the fleet idle). Zero means no waiting: Next returns
	// without calls at once.
	MaxInlineWait time.Duration

	src      source
	priceAge time.Duration // prices older than this are read again where a ship is
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error

	mu        sync.Mutex
	systems   map[string]bool
	waypoints map[string]*spacetraders.Waypoint
	markets   map[string]*marketView
	mem       *memory
	book      notebook
	run       string // prefix of call ids, unique per Brain
	ids       int
	greeted   bool
	// temperament names how much it risks on cargo ("" = balanced; SetTemperament).
	temperament string
}

var _ brain.Brain = (*Brain)(nil)

// New returns an autopilot that reads g's live world (what the game already knows costs
// no request).
func New(g *spacetraders.Game) *Brain {
	b := newBrain(g, time.Now)
	b.priceAge = g.PriceMaxAge()
	return b
}

func newBrain(src source, now func() time.Time) *Brain {
	return &Brain{
		MaxInlineWait: DefaultMaxInlineWait,
		src:           src,
		priceAge:      -1,
		now:           now,
		sleep:         game.Sleep,
		systems:       map[string]bool{},
		waypoints:     map[string]*spacetraders.Waypoint{},
		markets:       map[string]*marketView{},
		mem:           newMemory(),
		book:          notebook{sections: map[string]string{}},
		run:           fmt.Sprintf("ap%x", now().UnixNano()&0xffffffffff),
	}
}

// Name returns "autopilot".
func (b *Brain) Name() string { return "autopilot" }

// Plays reports whether the autopilot can play the game of the named driver: it knows
// SpaceTraders only, offline ("universe") or on the real server ("spacetraders").
func Plays(driver string) bool { return driver == "universe" || driver == "spacetraders" }

// Instant reports that the autopilot answers at once (brain.InstantBrain): there is no
// model to wait for, so the runner need not commit the step before asking it.
func (b *Brain) Instant() bool { return true }

// Next reads the world, learns from the results and advice in req.Messages, and returns
// one call per ship that can act, the notebook calls that keep notes and plan current,
// and a plain-words explanation. With nothing to do it returns no calls and says what it
// waits for.
func (b *Brain) Next(ctx context.Context, req brain.Request) (brain.Reply, error) {
	if req.ToolChoice == brain.ToolChoiceNone {
		return b.answer(ctx, req) // the person asks: the rules answer, in words
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mem.step++
	tools := game.ToolSet(req.Tools)
	var (
		w      *world
		dec    decision
		waited time.Duration
	)
	for first := true; ; first = false {
		var err error
		if w, err = b.read(ctx); err != nil {
			return brain.Reply{}, err
		}
		if first {
			b.mem.absorb(req.Messages, func(ship string) situation { return (&decider{w: w}).situation(ship) })
		}
		dec = (&decider{w: w, mem: b.mem, tools: tools}).decide()
		until := earliest(dec.waits)
		idle := req.Observation.IdleUntil
		// The runner waits for IdleUntil itself, but only if it has not passed by the
		// time this reply is handled: a wait about to end is done here.
		if len(dec.calls) > 0 || until.IsZero() || idle.After(w.now.Add(time.Second)) {
			break
		}
		d := until.Sub(w.now) + 100*time.Millisecond
		if waited+d > b.MaxInlineWait {
			break
		}
		if req.OnDelta != nil {
			req.OnDelta(fmt.Sprintf("(waiting %s: %s)\n", d.Round(time.Second), waitsText(dec.waits)))
		}
		if err := b.sleep(ctx, d); err != nil {
			return brain.Reply{}, err
		}
		waited += d
	}
	notes := b.book.update(w, b.mem, dec)
	reply := brain.Reply{Text: b.explain(dec, notes)}
	// The notebook calls go first: they run at once (a batch runs in order as it is
	// decided), so the notes and plan on the screen say what the actions waiting for the
	// person are for.
	for _, a := range append(append([]action(nil), notes...), dec.calls...) {
		if tools != nil && !tools[a.tool] {
			continue
		}
		b.ids++
		id := fmt.Sprintf("%s-%d", b.run, b.ids)
		ship, key := a.key()
		b.mem.issued[id] = issued{key: key, tool: a.tool, ship: ship, at: (&decider{w: w}).situation(ship)}
		reply.Calls = append(reply.Calls, brain.ToolCall{ID: id, Tool: a.tool, Args: a.argsJSON(), Why: a.why})
	}
	// No delta of the whole text: it is the step's text event, which follows at once.
	return reply, nil
}

// earliest returns the first time a waiting ship can act again, or zero.
func earliest(waits []action) time.Time {
	var t time.Time
	for _, w := range waits {
		if !w.until.IsZero() && (t.IsZero() || w.until.Before(t)) {
			t = w.until
		}
	}
	return t
}

func waitsText(waits []action) string {
	var parts []string
	for _, w := range waits {
		parts = append(parts, w.why)
	}
	return strings.Join(parts, "; ")
}

// explain words the step for the person: one line per game call and per waiting ship,
// and what became of their advice.
func (b *Brain) explain(dec decision, notes []action) string {
	var lines []string
	if !b.greeted {
		b.greeted = true
		who := "Autopilot here"
		if b.temperament != "" {
			who += " (" + b.temperament + ")"
		}
		lines = append(lines, who+": I play by rules, with no language model. Every game action I propose goes through your approval.")
	}
	if b.mem.adviceNew {
		pref := readAdvice(b.mem.advice[len(b.mem.advice)-1]).says()
		lines = append(lines, "I wrote your advice into the notes (Advice). I cannot understand language; "+pref+
			". I will reconsider the calls you vetoed, but not a flight mode you vetoed. Veto or edit my calls to steer me further.")
	}
	if b.mem.modesNew {
		lines = append(lines, "Flight modes: I will "+b.mem.modes.says()+", as you said.")
	}
	for _, a := range dec.calls {
		lines = append(lines, "- "+a.why)
	}
	for _, w := range dec.waits {
		lines = append(lines, "- Waiting: "+w.why+".")
	}
	if len(dec.dropped) > 0 && len(dec.calls) > 0 {
		lines = append(lines, "Left aside: "+strings.Join(dec.dropped, "; ")+".")
	}
	if len(dec.calls) == 0 {
		switch until := earliest(dec.waits); {
		case !until.IsZero():
			lines = append(lines, "Nothing to do until "+clock(until)+".")
		default:
			lines = append(lines, "Nothing I can do now; advise me or resume when things change.")
		}
	}
	if len(notes) > 0 {
		lines = append(lines, fmt.Sprintf("(%d notebook update(s).)", len(notes)))
	}
	return strings.Join(lines, "\n")
}
