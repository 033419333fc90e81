package openai

import (
	"strings"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// readAnswer sorts a finished answer into what the runner expects, whatever the
// server left in the text: think blocks go to Thinking, and when textCalls is set and
// the answer has no native calls, calls written as text become calls (FromText), their
// markup taken out of Text, and blocks that meant a call but cannot be read go to
// Unread, for the model. Without textCalls the text is prose, whatever it holds.
func readAnswer(r *agent.Reply, tools []game.Tool, idPrefix string, textCalls bool) {
	if vis, think := splitThink(r.Text); think != "" || vis != strings.TrimSpace(r.Text) {
		r.Text = vis
		r.Thinking = append(r.Thinking, thinkingOf(think)...)
	}
	if !textCalls || len(r.Calls) > 0 || r.Text == "" {
		return
	}
	names := make(map[string]bool, len(tools))
	for _, t := range tools {
		names[t.Name] = true
	}
	tc := readTextCalls(r.Text, func(n string) bool { return names[n] }, idPrefix)
	if len(tc.calls) > 0 {
		r.Text, r.Calls = tc.rest, tc.calls
	}
	r.Unread = append(r.Unread, tc.problems...)
}
