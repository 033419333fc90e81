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
// the person's own moves since the model's last request (taken here), and last the
// game's triggers (what woke the agent) end it.
func (p *prompter) input(step int, obs game.Observation, advice, triggers []string) (input, full string) {
	notices := p.notices
	p.notices = nil
	moves := p.takeMoves()
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
	if m := movesText(moves); m != "" {
		tail.WriteString("\n\n")
		tail.WriteString(m)
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

// played keeps the person's move for the model's next request (movesText); held says
// the person held the wheel when they played it.
func (p *prompter) played(pc *pendingCall, held bool) {
	p.moves = append(p.moves, playedMove{tool: pc.call.Tool, args: pc.call.Args, text: pc.text, held: held})
}

// takeMoves returns the moves for the request being built and clears them; they are
// kept as sent until the next request is built, for giveBackMoves.
func (p *prompter) takeMoves() []playedMove {
	m := p.moves
	p.moves, p.sentMoves = nil, m
	return m
}

// giveBackMoves puts the moves the last request carried before those that came since:
// the model never read them (it failed).
func (p *prompter) giveBackMoves() {
	p.moves = append(p.sentMoves, p.moves...)
	p.sentMoves = nil
}
