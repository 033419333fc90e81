package arena

import (
	"context"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/brain"
)

// Asked a question, the arena autopilot answers from its rules with no call, and what
// it would do next is what it does at its next step.
func TestAnswerFromRules(t *testing.T) {
	tb := newTable(t, 1)
	asked, err := tb.brain.Next(context.Background(), agent.Request{ToolChoice: brain.ToolChoiceNone,
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "> what now?"}}, Tools: tb.reg.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	reply := tb.play(0, "")
	if len(asked.Calls) != 0 || !strings.Contains(asked.Text, "cannot read your question") {
		t.Fatalf("answer %+v", asked)
	}
	for _, c := range reply.Calls {
		if c.Tool != agent.ToolUpdateNotes && c.Tool != agent.ToolSetPlan && !strings.Contains(asked.Text, c.Why) {
			t.Errorf("the answer does not say %q:\n%s", c.Why, asked.Text)
		}
	}
}
