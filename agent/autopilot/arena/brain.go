package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
	arenagame "github.com/coplayhq/coplay/game/arena"
)

// source is where the autopilot reads the world: the arena here (local), or a served
// arena it joined (served).
type source interface {
	View(ctx context.Context) (arenagame.View, error)
}

// local reads an arena in this process: at once, and it cannot fail.
type local struct{ g *arenagame.Game }

func (l local) View(context.Context) (arenagame.View, error) { return l.g.View(), nil }

// served reads a served arena's view (game.Viewer: game/join), as JSON.
type served struct{ v game.Viewer }

func (s served) View(ctx context.Context) (arenagame.View, error) {
	var v arenagame.View
	raw, err := s.v.ViewJSON(ctx)
	if err != nil {
		return v, fmt.Errorf("arena autopilot: reading the world: %w", err)
	}
	if len(raw) == 0 {
		return v, errors.New("arena autopilot: the served world gives no view of itself to play by (an older coplay serve?)")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("arena autopilot: the world's view cannot be read: %w", err)
	}
	return v, nil
}

// Brain is the arena's autopilot: an brain.Brain that plays by a few readable rules (see
// the package doc). Its methods are safe for concurrent use.
type Brain struct {
	src source

	mu      sync.Mutex
	mem     memory
	book    notebook
	run     string // prefix of call ids, unique per Brain
	ids     int
	greeted bool
	// temperament names the thresholds the rules read ("" = balanced; SetTemperament).
	temperament string
}

var (
	_ brain.Brain        = (*Brain)(nil)
	_ brain.InstantBrain = (*Brain)(nil)
)

// New returns an autopilot that reads g's world directly (reading changes nothing).
func New(g *arenagame.Game) *Brain { return newBrain(local{g}) }

func newBrain(src source) *Brain {
	return &Brain{src: src, mem: newMemory(), book: notebook{sections: map[string]string{}},
		run: fmt.Sprintf("ar%x", time.Now().UnixNano()&0xffffffffff)}
}

// For returns an autopilot for g when g is the arena, here or served elsewhere and
// joined (a game.Viewer that names itself the arena: game/join), and false for any
// other game: the command line can use it both to tell whether a game is the arena and
// to build its autopilot.
func For(g game.Game) (*Brain, bool) {
	if a, ok := g.(*arenagame.Game); ok {
		if a == nil {
			return nil, false
		}
		return New(a), true
	}
	if v, ok := g.(game.Viewer); ok && g.Info().Name == arenagame.DriverName {
		return newBrain(served{v}), true
	}
	return nil, false
}

// Plays reports whether this autopilot plays the game of the named driver ("arena").
func Plays(driver string) bool { return driver == arenagame.DriverName }

// Name returns "autopilot".
func (b *Brain) Name() string { return "autopilot" }

// Instant reports that the autopilot answers at once (brain.InstantBrain).
func (b *Brain) Instant() bool { return true }

// Next learns from the results and advice in req.Messages, reads the world and returns
// the notebook calls that keep notes and plan current, then this step's game calls, with
// a plain-words explanation. With nothing to do it returns no game calls and says what
// it waits for.
func (b *Brain) Next(ctx context.Context, req brain.Request) (brain.Reply, error) {
	if err := ctx.Err(); err != nil {
		return brain.Reply{}, err
	}
	if req.ToolChoice == brain.ToolChoiceNone {
		return b.answer(ctx, req), nil // the person asks: the rules answer, in words
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mem.step++
	b.mem.absorb(req.Messages)
	v, err := b.src.View(ctx)
	if err != nil {
		return brain.Reply{}, err
	}
	dec := decide(v, &b.mem)
	notes := b.book.update(v, &b.mem)
	tools := game.ToolSet(req.Tools)
	reply := brain.Reply{Text: b.explain(dec)}
	// The notebook calls go first: they run at once, so the notes on the screen say what
	// the calls waiting for the person are for.
	for _, a := range append(notes, dec.calls...) {
		if tools != nil && !tools[a.tool] {
			continue
		}
		b.ids++
		id := fmt.Sprintf("%s-%d", b.run, b.ids)
		b.mem.issued[id] = a.key
		reply.Calls = append(reply.Calls, brain.ToolCall{ID: id, Tool: a.tool, Args: a.argsJSON(), Why: a.why})
	}
	// No delta of the whole text: it is the step's text event, which follows at once.
	return reply, nil
}

// explain words the step for the person: a line per call, what became of their advice,
// and what it waits for.
func (b *Brain) explain(dec decision) string {
	var lines []string
	if !b.greeted {
		b.greeted = true
		who := "Arena autopilot here"
		if b.temperament != "" {
			who += " (" + b.temperament + ")"
		}
		lines = append(lines, who+": I play by rules, with no language model. Every game action I propose goes through your approval.")
	}
	if b.mem.adviceNew {
		read := "I found no wish about fighting in it"
		if fight, ok := fightPreference(b.mem.advice[len(b.mem.advice)-1]); ok {
			read = map[bool]string{true: "I read it as: fight", false: "I read it as: stay out of battles"}[fight]
		}
		lines = append(lines, "I wrote your advice into the notes (Advice); "+read+".")
	}
	for _, a := range dec.calls {
		lines = append(lines, "- "+a.why)
	}
	if len(dec.calls) == 0 {
		lines = append(lines, "Nothing to do now; waiting for "+strings.Join(dec.waits, "; ")+".")
	}
	return strings.Join(lines, "\n")
}
