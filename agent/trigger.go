package agent

import (
	"fmt"
	"strings"

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

// sawWorld notes when the world the model is shown was taken: a trigger from before it
// is already in what the model reads.
func (r *Runner) sawWorld(obs game.Observation) {
	r.worldAt = obs.Time
	if r.worldAt.IsZero() {
		r.worldAt = r.cfg.Now()
	}
}

// stale reports whether t happened before the last observation: the model has seen the
// world after it (a ship that arrived is in orbit there, a message is unread in it), so
// it would wake the agent for nothing. A trigger with no time is never stale.
func (r *Runner) stale(t game.Trigger) bool {
	return !t.Time.IsZero() && !r.worldAt.IsZero() && !t.Time.After(r.worldAt)
}

// onTrigger records t, queues it for the next step, and wakes the agent unless the
// person paused it. A stale trigger is dropped.
func (r *Runner) onTrigger(t game.Trigger) {
	if r.stale(t) {
		return
	}
	t.Text = r.scrub.text(t.Text)
	t.Subject = r.scrub.text(t.Subject)
	r.emit(Event{Type: EventTrigger, Trigger: &t, Text: "trigger: " + t.String()})
	r.triggers = append(r.triggers, t)
	if over := len(r.triggers) - maxPendingTriggers; over > 0 {
		r.triggers = r.triggers[over:]
		r.droppedTriggers += over
	}
	if !r.paused {
		r.wake = true
	}
}

// pullTriggers takes the triggers already waiting in the game's channel, without
// blocking.
func (r *Runner) pullTriggers() {
	for r.trig != nil {
		select {
		case t, ok := <-r.trig:
			if !ok {
				r.trig = nil // the game closed it: no more triggers
				return
			}
			r.onTrigger(t)
		default:
			return
		}
	}
}

// pendingTriggers reports whether triggers wait for the next step: a turn that ends
// then goes on at once instead of idling.
func (r *Runner) pendingTriggers() bool { return len(r.triggers) > 0 }

// takeTriggers returns the text of the triggers for this step's input, last in it, and
// clears them.
func (r *Runner) takeTriggers() []string {
	if len(r.triggers) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("## Triggers (what happened in the game since the last step)\n")
	if r.droppedTriggers > 0 {
		fmt.Fprintf(&b, "\n(%d earlier triggers were dropped)", r.droppedTriggers)
	}
	for _, t := range r.triggers {
		b.WriteString("\nTrigger: ")
		b.WriteString(t.String())
	}
	r.triggers, r.droppedTriggers = nil, 0
	return []string{b.String()}
}
