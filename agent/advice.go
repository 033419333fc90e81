package agent

import "strings"

// adviceHeading opens the advice section of a step's input (see adviceText).
const adviceHeading = "## Advice from the person\n"

// adviceText is the section of a step's input that carries the person's advice: each
// piece quoted ("> "), pieces apart by a blank line, then the instruction to fold it
// into the notes.
func adviceText(advice []string) string {
	var b strings.Builder
	b.WriteString(adviceHeading + "\n")
	for i, a := range advice {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("> ")
		b.WriteString(strings.ReplaceAll(clip(a, maxAdviceChars), "\n", "\n> "))
		b.WriteString("\n")
	}
	b.WriteString("\nFirst fold this advice into your notes (update_notes: Strategy, Plan or Lessons), then act on it.")
	return b.String()
}

// AdviceOf returns the advice the person gave for this step, as a brain that reads the
// conversation rather than the world (the autopilots) finds it: the pieces quoted in
// the "Advice from the person" section of the step's input, which is every user message
// after the brain's last answer. Older advice was read at its own step. The runner
// writes the section (adviceText); this reads it back, so the two cannot drift apart.
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
