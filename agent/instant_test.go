package agent_test

import (
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// instantScript is a scriptBrain that answers at once (agent.InstantBrain), as the
// autopilot does.
type instantScript struct{ *scriptBrain }

func (instantScript) Instant() bool { return true }

// An instant brain is asked before its step is committed; what it says while it works
// (the autopilot: "waiting 13s for …") still comes after the step it belongs to, so the
// screen never shows a step's words above the step's own heading.
func TestInstantBrainSpeaksAfterItsStep(t *testing.T) {
	t.Parallel()
	b := &scriptBrain{replies: []scripted{say("Going north.", "move", `{"direction":"N"}`)}}
	h := start(t, &gridGame{}, b, nil, func(c *agent.Config) {
		c.Brain = instantScript{b}
		c.ApproveAll = true
	})
	h.next("text", is(agent.EventText))
	step := -1
	for i, ev := range h.seen {
		switch ev.Type {
		case agent.EventStep:
			step = i
		case agent.EventTextDelta:
			if step < 0 {
				t.Fatalf("a text delta came before the step began: %s", h.trail())
			}
		}
	}
}
