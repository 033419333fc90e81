package brain

import "strings"

// NotRunYet begins what a brain reads in place of the result of a call that has not run
// when the person asks a question (Request.ToolChoice none) while the step's calls are
// on their way: the runner writes it, Waiting finds it.
const NotRunYet = "not run yet: "

// Waiting returns the calls of the brain's last answer in msgs that have not run yet
// (their tool message begins with NotRunYet), in order, each with its Why: what a brain
// without a model (the autopilots) says it is about to do when the person asks.
func Waiting(msgs []Message) []ToolCall {
	last := -1
	for i, m := range msgs {
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	pending := map[string]bool{}
	for _, m := range msgs[last+1:] {
		if m.Role == RoleTool && strings.HasPrefix(m.Content, NotRunYet) {
			pending[m.ToolCallID] = true
		}
	}
	var out []ToolCall
	for _, c := range msgs[last].ToolCalls {
		if pending[c.ID] {
			out = append(out, c)
		}
	}
	return out
}
