package agent_test

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// TestLoopPausesPlay: a model that looks again and again, answered the same each time,
// under --approve all with play handed over, is told once, then play pauses for the
// person with a loop event naming the call, before the LoopStopAt+1th call.
func TestLoopPausesPlay(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "look", `{}`)}, loop: true}
	h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll, c.KeepPlaying = true, true })
	ev := h.next("loop", func(ev agent.Event) bool {
		if ev.Type == agent.EventState && ev.State == agent.Paused {
			t.Fatalf("paused before the loop event; seen: %s", h.trail())
		}
		return ev.Type == agent.EventLoop
	})
	if ev.Call == nil || ev.Call.Tool != "look" || !strings.Contains(ev.Text, "look {}") {
		t.Fatalf("loop event = %+v", ev)
	}
	h.next("paused", isState(agent.Paused))
	if n := len(g.callLog()); n != agent.LoopStopAt {
		t.Fatalf("look ran %d times, want %d", n, agent.LoopStopAt)
	}
	told := 0
	for _, req := range b.requests() {
		if strings.Contains(allText(req), "got the same answer each time") {
			told++
		}
	}
	// Told in the input of the step after the LoopTellAt-th call; the prompt keeps it.
	if reqs := b.requests(); told == 0 || !strings.Contains(allText(reqs[agent.LoopTellAt]), "got the same answer each time") ||
		strings.Contains(allText(reqs[agent.LoopTellAt-1]), "got the same answer each time") {
		t.Fatalf("the model was not told at step %d (told in %d requests)", agent.LoopTellAt+1, told)
	}
	if strings.Count(allText(b.requests()[len(b.requests())-1]), "got the same answer each time") != 1 {
		t.Fatal("the model was told more than once")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// TestLoopCountRestartsWhenTheWorldChanges: a look between moves is no loop.
func TestLoopCountRestartsWhenTheWorldChanges(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	var replies []scripted
	for i := 0; i < 3*agent.LoopStopAt; i++ {
		replies = append(replies, say("", "look", `{}`))
		if i%3 == 2 {
			// The digger moves east and back: the world changed, the look answers the same.
			replies = append(replies, say("", "move", `{"direction":"E"}`), say("", "move", `{"direction":"W"}`))
		}
	}
	b := &scriptBrain{replies: replies}
	h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll, c.MaxIterations = true, 1000 })
	h.next("idle", func(ev agent.Event) bool {
		if ev.Type == agent.EventLoop {
			t.Fatalf("a loop was seen though the world changed; seen: %s", h.trail())
		}
		return ev.Type == agent.EventState && ev.State == agent.Idle
	})
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}
