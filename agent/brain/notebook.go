package brain

import "strings"

// The notebook's tool names. The runner offers these tools to every brain beside the
// game's; they change only the session's notebook and run without asking. A brain that
// plays without a model (the autopilots) calls them by these names.
const (
	ToolUpdateNotes = "update_notes"
	ToolSetPlan     = "set_plan"
	ToolUpdateStep  = "update_step"
)

// AdviceHeading opens the section of a step's input that carries the person's advice:
// the runner writes it, AdviceOf finds it.
const AdviceHeading = "## Advice from the person\n"

// AdviceOf returns the advice the person gave for this step, as a brain that reads the
// conversation rather than the world (the autopilots) finds it: the pieces quoted in
// the "Advice from the person" section of the step's input, which is every user message
// after the brain's last answer. Older advice was read at its own step. The runner
// writes the section (under AdviceHeading); this reads it back, so the two cannot drift
// apart.
func AdviceOf(msgs []Message) []string {
	start := 0
	for i, m := range msgs {
		if m.Role == RoleAssistant || m.Role == RoleTool {
			start = i + 1
		}
	}
	var out []string
	for _, m := range msgs[start:] {
		_, section, found := strings.Cut(m.Content, "Advice from the person\n")
		if m.Role != RoleUser || !found {
			continue
		}
		out = append(out, quotedPieces(section)...)
	}
	return out
}

// quotedPieces returns the runs of "> " lines at the start of section, each run one
// piece (a piece's own lines follow each other directly), up to the next heading.
func quotedPieces(section string) []string {
	var out, cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "> "); ok {
			cur = append(cur, rest)
			continue
		}
		flush()
		if len(out) > 0 && strings.HasPrefix(line, "#") {
			break // the next section
		}
	}
	flush()
	return out
}
