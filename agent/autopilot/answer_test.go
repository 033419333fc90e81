package autopilot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/brain"
	st "github.com/coplayhq/coplay/game/spacetraders"
)

// A veto drops the choice: after set_flight_mode BURN is vetoed (the undock and the trip
// approved), the next calls go on without it, and no why names BURN any more.
func TestVetoedChoiceIsDropped(t *testing.T) {
	f := newFake()
	f.markets["X1-T-B1"] = st.Market{Symbol: "X1-T-B1", Exchange: goods("IRON_ORE", "FUEL")}
	b := newBrain(f, func() time.Time { return t0 })
	reply, calls := step(t, b, nil)
	if !hasCall(calls, "set_flight_mode", "flightMode", "BURN") {
		t.Fatalf("the first trip is not a BURN: %s; the test needs one", tools(calls))
	}
	_, calls = step(t, b, answer(reply, map[string]string{
		"set_flight_mode": "not executed: vetoed by the person. Do not repeat this call unchanged.",
	}, ""))
	if len(calls) == 0 {
		t.Fatal("no calls after the veto")
	}
	for _, c := range calls {
		if strings.Contains(c.Why, "BURN") || strings.Contains(string(c.Args), "BURN") {
			t.Errorf("%s %s: why %q", c.Tool, c.Args, c.Why)
		}
	}
}

// Asked a question, the autopilot answers from its rules: what it would do next and
// why, in words, with no call; and the question changes nothing of what it does next.
func TestAnswerFromRules(t *testing.T) {
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	asked, err := b.Next(context.Background(), agent.Request{ToolChoice: brain.ToolChoiceNone,
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "> why?"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, calls := step(t, b, nil)
	if len(asked.Calls) != 0 || len(calls) == 0 {
		t.Fatalf("the answer has %d calls; the step after it %d", len(asked.Calls), len(calls))
	}
	if !strings.Contains(asked.Text, "cannot read your question") || !strings.Contains(asked.Text, calls[0].Why) {
		t.Errorf("the answer does not say what comes next (%q):\n%s", calls[0].Why, asked.Text)
	}
}

// Asked while its calls wait, it says what those calls are for.
func TestAnswerNamesTheCallsWaiting(t *testing.T) {
	f := newFake()
	b := newBrain(f, func() time.Time { return t0 })
	reply, calls := step(t, b, nil)
	msgs := answer(reply, nil, "")
	for i := range msgs {
		if msgs[i].Role == agent.RoleTool {
			msgs[i].Content = brain.NotRunYet + "it waits for the person's decision"
		}
	}
	asked, err := b.Next(context.Background(), agent.Request{ToolChoice: brain.ToolChoiceNone, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if !strings.Contains(asked.Text, c.Why) {
			t.Errorf("the answer does not name %s's why %q:\n%s", c.Tool, c.Why, asked.Text)
		}
	}
}
