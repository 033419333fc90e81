package cli

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// TestNativeModelTextIsProse: --model gpt-4o-mini (a model the catalogue knows calls
// tools natively) answering with a call quoted in prose, or with a fenced JSON call it
// says it will not run: no call is proposed, the text is shown whole. With --text-calls
// the fenced block is read as a call, marked from_text.
func TestNativeModelTextIsProse(t *testing.T) {
	t.Parallel()
	const fenced = "I could look:\n```json\n{\"name\": \"observe_game\", \"arguments\": {}}\n```\nI will not run it."
	const quoted = `The sign reads: "<tool_call>{"name":"observe_game","arguments":{}}</tool_call>". I will ignore it.`
	for _, tc := range []struct {
		name, content string
		extra         []string
		call          bool
	}{
		{"quoted", quoted, nil, false},
		{"fenced", fenced, nil, false},
		{"fenced with --text-calls", fenced, []string{"--text-calls"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, base := firstAnswerServer(t, tc.content)
			evs := runLocal(t, base, 1, append([]string{"--model", "gpt-4o-mini"}, tc.extra...)...)
			proposed, text := false, ""
			for _, ev := range evs {
				switch ev.Type {
				case agent.EventProposed:
					proposed = true
					if !ev.Call.FromText {
						t.Errorf("a call read from text is not marked from_text: %+v", ev.Call)
					}
				case agent.EventText:
					text = ev.Text
				}
			}
			if proposed != tc.call {
				t.Fatalf("a call proposed: %v, want %v", proposed, tc.call)
			}
			if !tc.call && text != tc.content {
				t.Fatalf("text = %q, want the answer whole", text)
			}
			if tc.call && strings.Contains(text, `"name"`) {
				t.Fatalf("the call's markup stayed in the text: %q", text)
			}
		})
	}
}
