package brain

import (
	"sort"
	"strings"
)

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

// WaitingLines is what a brain without a model says of its calls that have not run when
// the person asks (Waiting): a heading and a line each with the call's Why (its tool
// and arguments when it has none); nil when none waits.
func WaitingLines(msgs []Message) []string {
	waiting := Waiting(msgs)
	if len(waiting) == 0 {
		return nil
	}
	lines := []string{"My calls waiting their turn or your decision:"}
	for _, c := range waiting {
		why := c.Why
		if why == "" {
			why = c.Tool + " " + string(c.Args)
		}
		lines = append(lines, "- "+why)
	}
	return lines
}

// LeftAlone words, sorted, why a brain without a model leaves things alone for now
// (the vetoes and refusals it remembers); "" when there is nothing.
func LeftAlone(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	sorted := append([]string(nil), reasons...)
	sort.Strings(sorted)
	return "What I leave alone for now: " + strings.Join(sorted, "; ") + "."
}
