package agent

import (
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
)

// adviceHeading opens the advice section of a step's input (see adviceText).
const adviceHeading = brain.AdviceHeading

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

// AdviceOf returns the advice the person gave for this step, as the autopilots read it
// (brain.AdviceOf).
func AdviceOf(msgs []Message) []string { return brain.AdviceOf(msgs) }
