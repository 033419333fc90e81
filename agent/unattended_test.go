package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// With play handed over, a model that answers in prose every third request plays on
// to the step limit: never idle, the prose in the log, a nudge at the step after.
func TestKeepPlayingNeverIdlesOnProse(t *testing.T) {
	t.Parallel()
	_, _, srv, events := cacheFiguresProse(t, 30, 3)
	var prose, steps int
	for _, ev := range events {
		switch {
		case ev.Type == agent.EventState && ev.State == agent.Idle:
			t.Fatalf("the run went idle: %s", ev.Text)
		case ev.Type == agent.EventText && strings.HasPrefix(ev.Text, "Let me think"):
			prose++
		case ev.Type == agent.EventStep:
			steps++
		}
	}
	last := events[len(events)-1]
	if steps != 30 || prose < 9 || !strings.Contains(last.Text, "step limit of 30") {
		t.Fatalf("%d steps, %d prose answers, ended with %q", steps, prose, last.Text)
	}
	nudged := false
	for _, raw := range srv.RawRequests() {
		nudged = nudged || strings.Contains(string(raw), "Your last answer had no tool call")
	}
	if !nudged {
		t.Fatal("the model was never told that its answer without a call did nothing")
	}
}

// With a person deciding, an answer without calls still hands the turn to the person.
func TestProseIdlesWithAPerson(t *testing.T) {
	t.Parallel()
	b := &scriptBrain{replies: []scripted{say("Thinking about it.")}}
	h := start(t, &gridGame{}, b, nil, nil)
	ev := h.next("idle", isState(agent.Idle))
	if !strings.Contains(ev.Text, "ended its turn") {
		t.Fatalf("idle because %q", ev.Text)
	}
	// The person hands play over from here: the run goes on at once.
	h.send(agent.Command{Cmd: agent.CmdKeepPlaying, On: true})
	kp := h.next("keep_playing", is(agent.EventKeepPlaying))
	if kp.KeepPlaying == nil || !*kp.KeepPlaying {
		t.Fatalf("keep_playing event %+v", kp)
	}
	h.next("the next step", is(agent.EventStep))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// The model pauses play with wait: a waiting event with its countdown, and the next
// request comes by itself, without advice or resume.
func TestWaitToolPausesAndPlayGoesOn(t *testing.T) {
	t.Parallel()
	b := &scriptBrain{replies: []scripted{say("Nothing to do for a moment.", "wait", `{"seconds": 1, "reason": "the digger is resting"}`), say("Back.")}}
	h := start(t, &gridGame{}, b, nil, nil)
	c := h.proposed("wait")
	if c.Kind != game.Note || c.NeedsOK {
		t.Fatalf("wait proposed as %+v", c)
	}
	w := h.next("waiting", func(ev agent.Event) bool {
		return ev.Type == agent.EventWaiting && ev.Wait != nil && !ev.Wait.Until.IsZero()
	})
	// Measured from the event's own time, not the reader's clock: on a busy machine the
	// event may be read long after it was written.
	if left := w.Wait.Until.Sub(w.Time); left <= 0 || left > time.Second || w.Wait.Reason != "the digger is resting" {
		t.Fatalf("wait until %v (in %v) because %q", w.Wait.Until, left, w.Wait.Reason)
	}
	h.next("the next step", is(agent.EventStep))
	h.request(1)
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	// Out of range is refused before anything runs.
	b2 := &scriptBrain{replies: []scripted{say("", "wait", `{"seconds": 7200}`)}}
	h2 := start(t, &gridGame{}, b2, nil, nil)
	if c := h2.proposed("wait"); len(c.Problems) == 0 {
		t.Fatalf("a wait of two hours was accepted: %+v", c)
	}
	if err := h2.finish(); err != nil {
		t.Fatal(err)
	}
}

// A token cap stops an unattended run early, naming the cap and what was spent.
func TestTokenCapStopsTheRun(t *testing.T) {
	t.Parallel()
	var replies []scripted
	for range 50 {
		s := say("Moving on.", "move", `{"direction":"E"}`)
		s.reply.Usage = agent.Usage{PromptTokens: 900, CompletionTokens: 100, CachedTokens: 600}
		replies = append(replies, s)
	}
	b := &scriptBrain{replies: replies}
	h := start(t, &gridGame{}, b, nil, func(c *agent.Config) {
		c.ApproveAll, c.KeepPlaying, c.MaxRunTokens, c.MaxSteps = true, true, 5000, 50
	})
	ev := h.next("the stop", isState(agent.Stopped))
	if !strings.Contains(ev.Text, "token cap of 5000") || !strings.Contains(ev.Text, "5000 tokens this run") {
		t.Fatalf("stopped with %q", ev.Text)
	}
	if n := len(b.requests()); n != 5 {
		t.Fatalf("%d model calls, want 5 (1000 tokens each, cap 5000)", n)
	}
	<-h.done
}

// A cost cap with a model that has no price stops at once rather than spend blind.
func TestCostCapNeedsAPrice(t *testing.T) {
	t.Parallel()
	b := &scriptBrain{replies: []scripted{say("Moving.", "move", `{"direction":"E"}`), say("Again.", "move", `{"direction":"E"}`)}}
	b.replies[0].reply.Usage = agent.Usage{PromptTokens: 100, CompletionTokens: 10}
	h := start(t, &gridGame{}, b, nil, func(c *agent.Config) { c.ApproveAll, c.KeepPlaying, c.MaxRunCost = true, true, 1 })
	ev := h.next("the stop", isState(agent.Stopped))
	if !strings.Contains(ev.Text, "cost cap of $1.0000 cannot be kept") || !strings.Contains(ev.Text, "has no price") {
		t.Fatalf("stopped with %q", ev.Text)
	}
	<-h.done
}

// A cost cap reached on an upper-bound cost (cached tokens counted at the prompt price)
// says the spend is at most that; a cost known exactly says it plainly.
func TestCostCapSaysWhenTheCostIsAnUpperBound(t *testing.T) {
	t.Parallel()
	for _, upper := range []bool{true, false} {
		var replies []scripted
		for range 10 {
			s := say("Moving on.", "move", `{"direction":"E"}`)
			s.reply.Usage = agent.Usage{PromptTokens: 900, CompletionTokens: 100, CachedTokens: 600, Cost: 0.4, CostKnown: true, CostUpper: upper}
			replies = append(replies, s)
		}
		b := &scriptBrain{replies: replies}
		h := start(t, &gridGame{}, b, nil, func(c *agent.Config) {
			c.ApproveAll, c.KeepPlaying, c.MaxRunCost, c.MaxSteps = true, true, 1, 10
		})
		ev := h.next("the stop", isState(agent.Stopped))
		if !strings.Contains(ev.Text, "cost cap of $1.0000 was reached") || strings.Contains(ev.Text, "at most $1.2000 spent") != upper {
			t.Errorf("upper=%v: stopped with %q", upper, ev.Text)
		}
		if n := len(b.requests()); n != 3 {
			t.Errorf("upper=%v: %d model calls, want 3 ($0.40 each, cap $1)", upper, n)
		}
		<-h.done
	}
}
