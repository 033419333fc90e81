package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// A start notice (a fork whose world has moved on) is said once: to the person as a
// notice event at the start, to the model in its first step's input only; and the
// StepObserved hook hears each step once its world is observed.
func TestNoticeIsSaidOnceAndStepsAreObserved(t *testing.T) {
	t.Parallel()
	const notice = "forked from s@4: the world has moved on"
	g := &gridGame{now: time.Now}
	b := &scriptBrain{replies: []scripted{say("Looking.", "look", `{}`)}, loop: true}
	var observed []int
	r, _ := newRunner(t, g, b, nil, func(c *agent.Config) {
		c.MaxSteps, c.ApproveAll, c.KeepPlaying, c.Notice = 3, true, true, notice
		c.StepObserved = func(step int) { observed = append(observed, step) }
	})
	notices := 0
	runToEnd(t, context.Background(), r, func(ev agent.Event) {
		if ev.Type == agent.EventNotice && ev.Text == notice {
			notices++
		}
	})
	if notices != 1 {
		t.Errorf("%d notice events, want 1", notices)
	}
	reqs := b.requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := func(req agent.Request) string { return req.Messages[len(req.Messages)-1].Content }
	if !strings.Contains(last(reqs[0]), notice) {
		t.Errorf("the first step's input lacks the notice:\n%s", last(reqs[0]))
	}
	if strings.Contains(last(reqs[1]), notice) {
		t.Errorf("the second step's input repeats the notice:\n%s", last(reqs[1]))
	}
	if len(observed) != 3 || observed[0] != 1 || observed[2] != 3 {
		t.Errorf("StepObserved heard %v, want [1 2 3]", observed)
	}
}
