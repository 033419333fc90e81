package agent

import (
	"reflect"
	"testing"
)

// What the runner writes as advice, AdviceOf reads back, piece by piece, and only from
// the step's input (after the brain's last answer).
func TestAdviceOfReadsWhatTheRunnerWrites(t *testing.T) {
	t.Parallel()
	advice := []string{"don't buy the ore, mine it", "two lines\nof advice"}
	input := "# Step 3\n\n## World\n\n- ship\n\n" + adviceText(advice) + "\n\n## Triggers\n\nTrigger: x — y"
	msgs := []Message{
		{Role: RoleUser, Content: "# Step 2\n\n" + adviceText([]string{"old advice"})},
		{Role: RoleAssistant, Content: "ok"},
		{Role: RoleUser, Content: input},
	}
	if got := AdviceOf(msgs); !reflect.DeepEqual(got, advice) {
		t.Fatalf("AdviceOf = %q, want %q", got, advice)
	}
	if got := AdviceOf(msgs[:2]); len(got) != 0 {
		t.Fatalf("advice before the last answer was read again: %q", got)
	}
}
