package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes/record"
)

// worldDiffShare is the largest share of the whole world that a list of changes may
// take: past it the whole world is sent, which reads better for the same bytes.
const worldDiffShare = 0.6

// input builds this step's user message (see stepRecord). input says what changed
// in the world since the step before, and carries the notes only when they changed;
// full carries both whole, for when the step opens the window. Notices (the runner's
// word to the model: a nudge after an answer without calls, say; taken here), advice,
// and last the game's triggers (what woke the agent) end it.
func (p *prompter) input(step int, obs game.Observation, advice, triggers []string) (input, full string) {
	notices := p.notices
	p.notices = nil
	header := fmt.Sprintf("# Step %d", step)
	if !obs.Time.IsZero() {
		header += " · " + obs.Time.UTC().Format(time.RFC3339)
	}
	world := clip(strings.TrimSpace(obs.Summary), maxObsChars)
	wholeWorld := "## World\n\n" + world
	worldPart := wholeWorld
	if p.prevWorldStep > 0 {
		worldPart = worldChanges(p.prevWorld, world, p.prevWorldStep)
	}
	notes := p.notesText()
	var tail strings.Builder
	for _, n := range notices {
		tail.WriteString("\n\n")
		tail.WriteString(n)
	}
	if len(advice) > 0 {
		tail.WriteString("\n\n")
		tail.WriteString(adviceText(advice))
	}
	for _, t := range triggers {
		tail.WriteString("\n\n")
		tail.WriteString(t)
	}
	full = header + "\n\n" + wholeWorld + "\n\n" + notes + tail.String()
	input = header + "\n\n" + worldPart
	if notes != p.prevNotes {
		input += "\n\n" + notes
	}
	input += tail.String()
	p.prevWorld, p.prevWorldStep, p.prevNotes = world, step, notes
	return input, full
}

// worldChanges says what changed between two renderings of the world, as the changed
// lines as they are now (a game's summary names what each line is about: a ship, a
// contract) and the lines that went; the whole world when the changes are most of it.
func worldChanges(prev, cur string, since int) string {
	edits := record.DiffLines(prev, cur)
	if len(edits) == 0 {
		return fmt.Sprintf("## World\n\nNo change since step %d.", since)
	}
	old := strings.Split(prev, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "## World: what changed since step %d (lines as they are now)\n", since)
	for _, e := range edits {
		for _, l := range e.Ins {
			if strings.TrimSpace(l) != "" {
				b.WriteString("\n")
				b.WriteString(l)
			}
		}
		for k := len(e.Ins); k < e.Del; k++ {
			if l := old[e.At+k]; strings.TrimSpace(l) != "" {
				b.WriteString("\n(gone) ")
				b.WriteString(strings.TrimSpace(l))
			}
		}
	}
	if float64(b.Len()) > worldDiffShare*float64(len(cur)) {
		return "## World\n\n" + cur
	}
	return b.String()
}
