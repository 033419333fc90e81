package spacetraders

import (
	"fmt"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Triggers: the game wakes the agent when a ship arrives, a cooldown ends, or an accepted
// contract's deadline comes within an hour (of game time). They are computed from the
// live world, what the game already knows from its answers: watching costs no request.
// A ship whose arrival the game learns later (another client moved it) wakes no one
// until the world is read again.

// deadlineWarning is how long before an accepted contract's deadline the agent is woken.
const deadlineWarning = time.Hour

// triggerState is the watcher of one game: started by the first Triggers call, stopped
// by Close.
type triggerState struct {
	once  sync.Once
	ch    chan game.Trigger
	poke  chan struct{} // the world changed: look at the timers again
	stop  chan struct{}
	fired map[string]bool // events sent, by key (kind, what, when)
	close sync.Once
}

// Triggers returns the game's triggers (game.Triggers); the same channel every call.
func (g *Game) Triggers() <-chan game.Trigger {
	t := &g.trig
	t.once.Do(func() {
		t.ch = make(chan game.Trigger, 16)
		t.poke = make(chan struct{}, 1)
		t.stop = make(chan struct{})
		t.fired = map[string]bool{}
		go g.watch()
	})
	return t.ch
}

// Close stops the game's trigger watcher and closes its channel. The game can still be
// played; it wakes no one any more.
func (g *Game) Close() error {
	t := &g.trig
	t.once.Do(func() {}) // a watcher never started never will
	t.close.Do(func() {
		if t.stop != nil {
			close(t.stop)
		}
	})
	return nil
}

// worldChanged tells the watcher to look at the timers again (a ship left, a contract
// was accepted). It never blocks.
func (g *Game) worldChanged() {
	if p := g.trig.poke; p != nil {
		select {
		case p <- struct{}{}:
		default:
		}
	}
}

// watch sends each trigger when its time comes, until Close.
func (g *Game) watch() {
	t := &g.trig
	defer close(t.ch)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, due := g.dueTriggers()
		for _, tr := range due {
			game.SendTrigger(t.ch, tr)
		}
		wait := time.Hour
		if !next.IsZero() {
			// A little past the moment, so that the world settled to it agrees.
			wait = max(next.Sub(g.now())+50*time.Millisecond, 0)
		}
		timer.Reset(wait)
		select {
		case <-t.stop:
			return
		case <-t.poke:
			if !timer.Stop() {
				<-timer.C
			}
		case <-timer.C:
		}
	}
}

// dueTriggers returns the triggers whose time has come (marking them sent), and the
// time of the next one.
func (g *Game) dueTriggers() (next time.Time, due []game.Trigger) {
	now := g.now()
	warn := deadlineWarning
	if s := g.cfg.TimeScale; s > 1 {
		warn = time.Duration(float64(warn) / s) // the offline universe's hours are shorter
	}
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	consider := func(key string, at time.Time, tr game.Trigger) {
		if at.IsZero() || g.trig.fired[key] {
			return
		}
		if !at.After(now) {
			g.trig.fired[key] = true
			tr.Time = at
			due = append(due, tr)
			return
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	for i := range w.ships {
		s := &w.ships[i]
		if s.Nav.Status == InTransit {
			at := s.Nav.Route.Arrival
			consider(fmt.Sprintf("arrive %s %d", s.Symbol, at.UnixNano()), at, game.Trigger{Type: "ship.arrived", Subject: s.Symbol,
				Text: fmt.Sprintf("%s arrived at %s", s.Symbol, s.Nav.Route.Destination.Symbol)})
		}
		if at := s.Cooldown.Expiration; !at.IsZero() {
			consider(fmt.Sprintf("cool %s %d", s.Symbol, at.UnixNano()), at, game.Trigger{Type: "cooldown.ended", Subject: s.Symbol,
				Text: s.Symbol + "'s cooldown ended"})
		}
	}
	for i := range w.contracts {
		k := &w.contracts[i]
		if !k.Accepted || k.Fulfilled || k.Terms.Deadline.IsZero() {
			continue
		}
		consider("deadline "+k.ID, k.Terms.Deadline.Add(-warn), game.Trigger{Type: "contract.deadline", Subject: k.ID,
			Text: fmt.Sprintf("contract %s is due within an hour of game time (%s)", k.ID, k.Terms.Deadline.UTC().Format(time.RFC3339))})
	}
	return next, due
}
