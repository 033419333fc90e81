package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// triggerGame is a gridGame whose world can wake the agent.
type triggerGame struct {
	*gridGame
	ch chan game.Trigger
}

func (g *triggerGame) Triggers() <-chan game.Trigger { return g.ch }

// startTriggers runs a runner over a new triggerGame whose brain says replies, and
// waits until it idles.
func startTriggers(t *testing.T, why string, replies ...scripted) (*triggerGame, *harness) {
	t.Helper()
	g := &triggerGame{gridGame: &gridGame{now: time.Now}, ch: make(chan game.Trigger, 4)}
	h := startGame(t, g, &scriptBrain{replies: replies}, nil, nil)
	h.next(why, isState(agent.Idle))
	return g, h
}

// stepInput is the input of the model's request i: its last message.
func (h *harness) stepInput(i int) string {
	h.t.Helper()
	req := h.request(i)
	return req.Messages[len(req.Messages)-1].Content
}

// A model that only answers in prose, with every call asked (no keep playing), ends its
// turn and idles; the world's next trigger starts a new turn by itself, with the trigger
// at the end of the new step's input.
func TestTriggerWakesAnIdleAgent(t *testing.T) {
	t.Parallel()
	g, h := startTriggers(t, "idle after a reply in prose", say("Let me think about the best route."), say("Nothing to do."))

	g.ch <- game.Trigger{Type: "battle.started", Subject: "battle-789", Text: "your community fights now", Time: time.Now()}
	ev := h.next("the trigger event", is(agent.EventTrigger))
	if ev.Trigger == nil || ev.Trigger.Subject != "battle-789" || ev.Seq == 0 {
		t.Fatalf("trigger event %+v: want the trigger, journaled", ev)
	}
	h.next("a new step", is(agent.EventStep))
	last := h.stepInput(1)
	want := "Trigger: battle.started battle-789 — your community fights now"
	if !strings.Contains(last, want) || !strings.HasSuffix(strings.TrimSpace(last), want) {
		t.Fatalf("the new step's input does not end with the trigger:\n%s", last)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// Triggers that arrive while the agent is paused wait for resume: the person paused it.
// Triggers that arrive while a step runs go into the next step, in order.
func TestTriggersQueueWhilePausedAndGoIntoTheNextStep(t *testing.T) {
	t.Parallel()
	g, h := startTriggers(t, "idle", say("Thinking."), say("Still thinking."))
	h.send(agent.Command{Cmd: agent.CmdPause})
	g.ch <- game.Trigger{Type: "message.received", Subject: "Mara", Text: "Mara: hi!"}
	g.ch <- game.Trigger{Type: "market.changed", Subject: "bread", Text: "bread 12 → 15 gold"}
	h.next("first trigger", is(agent.EventTrigger))
	h.next("second trigger", is(agent.EventTrigger))
	// A wrongly woken agent would start a step at once; this can only miss it on a very
	// slow machine, never fail a correct runner.
	quiet := time.After(300 * time.Millisecond)
	for waiting := true; waiting; {
		select {
		case ev := <-h.r.Events():
			if ev.Type == agent.EventStep {
				t.Fatalf("a trigger woke a paused agent: %+v", ev)
			}
		case <-quiet:
			waiting = false
		}
	}
	h.send(agent.Command{Cmd: agent.CmdResume})
	last := h.stepInput(1)
	i, j := strings.Index(last, "Mara: hi!"), strings.Index(last, "bread 12 → 15 gold")
	if i < 0 || j < i {
		t.Fatalf("both triggers, in order, should be in the step after resume:\n%s", last)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// A trigger from before the world the model last saw is dropped: the model has read the
// world after it (a ship that arrived is in orbit there), so it would wake the agent for
// nothing. One from after it wakes the agent.
func TestStaleTriggerIsDropped(t *testing.T) {
	t.Parallel()
	g, h := startTriggers(t, "idle", say("Waiting."), say("Woken."))
	g.ch <- game.Trigger{Type: "ship.arrived", Subject: "OLD", Text: "seen already", Time: time.Now().Add(-time.Minute)}
	g.ch <- game.Trigger{Type: "ship.arrived", Subject: "NEW", Text: "fresh", Time: time.Now().Add(time.Second)}
	ev := h.next("a trigger event", is(agent.EventTrigger))
	if ev.Trigger.Subject != "NEW" {
		t.Fatalf("first trigger event %+v, want the fresh one (the stale one dropped)", ev.Trigger)
	}
	if last := h.stepInput(1); strings.Contains(last, "seen already") {
		t.Fatalf("the stale trigger reached the model:\n%s", last)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// The world observed after the person's move (or after a call) is the screen's, not the
// model's: a trigger that happened before it still reaches the model (issue 45: a
// seat's message to another was lost when that seat looked again first). Here the
// message comes while the move runs, and the world is observed after the move before the
// runner reads it.
func TestTriggerIsNotStaleForAWorldTheModelWasNotShown(t *testing.T) {
	t.Parallel()
	g := &messagingGame{triggerGame: &triggerGame{gridGame: &gridGame{now: time.Now}, ch: make(chan game.Trigger, 4)}}
	h := startGame(t, g, &scriptBrain{replies: []scripted{say("Waiting."), say("Woken.")}}, nil, nil)
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: []byte(`{"direction":"E"}`)})
	h.next("the trigger", is(agent.EventTrigger))
	h.next("a new step", is(agent.EventStep))
	if last := h.stepInput(1); !strings.Contains(last, "Trigger: message.received Me — hello") {
		t.Fatalf("the trigger did not reach the model:\n%s", last)
	}
	h.finish()
}

// messagingGame is a triggerGame whose world sends a message while a call runs.
type messagingGame struct{ *triggerGame }

func (g *messagingGame) Call(ctx context.Context, name string, args json.RawMessage) (game.Result, error) {
	g.ch <- game.Trigger{Type: "message.received", Subject: "Me", Text: "hello", Time: time.Now()}
	return g.gridGame.Call(ctx, name, args)
}
