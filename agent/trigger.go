package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Triggers: a game that implements game.Triggers can wake the agent. The runner reads
// the game's channel whenever it waits (idle, sleeping, paused, waiting for a person)
// and between steps. Each trigger is journaled and shown (EventTrigger); it wakes an
// idle or sleeping agent (not a paused one: the person paused it), and goes at the end
// of the next step's input, so the model reads what woke it. While a step runs,
// triggers wait in the game's channel and go into the next step.

// maxPendingTriggers bounds the triggers kept for one step's input: a busy world must
// not flood the prompt. The oldest are dropped and counted.
const maxPendingTriggers = 12

// triggersOf returns g's trigger channel, or nil (which never delivers) when g has none.
func triggersOf(g game.Game) <-chan game.Trigger {
	if t, ok := g.(game.Triggers); ok {
		return t.Triggers()
	}
	return nil
}

// triggerQueue is the game's triggers on their way to the model: the game's channel,
// the triggers kept for the next step's input, and when the world the model was last
// shown was taken. It emits nothing: the Runner journals what add returns. Owned by the
// Run goroutine.
type triggerQueue struct {
	ch      <-chan game.Trigger // the game's triggers (nil: none, or closed)
	pending []game.Trigger      // triggers for the next step's input
	dropped int                 // triggers dropped since the last step (too many)
	worldAt time.Time           // when the last observation was taken (stale triggers)
}

// saw notes when the world the model is shown was taken: a trigger from before it is
// already in what the model reads.
func (q *triggerQueue) saw(obs game.Observation, now time.Time) {
	q.worldAt = obs.Time
	if q.worldAt.IsZero() {
		q.worldAt = now
	}
}

// stale reports whether t happened before the last observation: the model has seen the
// world after it (a ship that arrived is in orbit there, a message is unread in it), so
// it would wake the agent for nothing. A trigger with no time is never stale.
func (q *triggerQueue) stale(t game.Trigger) bool {
	return !t.Time.IsZero() && !q.worldAt.IsZero() && !t.Time.After(q.worldAt)
}

// add queues t, scrubbed, for the next step and returns its event; false for a stale
// trigger, which is dropped.
func (q *triggerQueue) add(t game.Trigger, s scrubber) (Event, bool) {
	if q.stale(t) {
		return Event{}, false
	}
	t.Text = s.text(t.Text)
	t.Subject = s.text(t.Subject)
	q.pending = append(q.pending, t)
	if over := len(q.pending) - maxPendingTriggers; over > 0 {
		q.pending = q.pending[over:]
		q.dropped += over
	}
	return Event{Type: EventTrigger, Trigger: &t, Text: "trigger: " + t.String()}, true
}

// next takes a trigger already waiting in the game's channel, without blocking.
func (q *triggerQueue) next() (game.Trigger, bool) {
	if q.ch == nil {
		return game.Trigger{}, false
	}
	select {
	case t, ok := <-q.ch:
		if !ok {
			q.ch = nil // the game closed it: no more triggers
		}
		return t, ok
	default:
		return game.Trigger{}, false
	}
}

// any reports whether triggers wait for the next step: a turn that ends then goes on
// at once instead of idling.
func (q *triggerQueue) any() bool { return len(q.pending) > 0 }

// take returns the text of the triggers for this step's input, last in it, and the
// triggers themselves (given back when the model never saw them), and clears them.
func (q *triggerQueue) take() ([]string, []game.Trigger) {
	if len(q.pending) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("## Triggers (what happened in the game since the last step)\n")
	if q.dropped > 0 {
		fmt.Fprintf(&b, "\n(%d earlier triggers were dropped)", q.dropped)
	}
	for _, t := range q.pending {
		b.WriteString("\nTrigger: ")
		b.WriteString(t.String())
	}
	held := q.pending
	q.pending, q.dropped = nil, 0
	return []string{b.String()}, held
}

// giveBack puts triggers the model never read before those that came since.
func (q *triggerQueue) giveBack(held []game.Trigger) { q.pending = append(held, q.pending...) }
