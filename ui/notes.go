package ui

import (
	"fmt"

	"github.com/coplayhq/coplay/agent"
)

// notesView is the notes & plan pane.
type notesView struct {
	notes agent.NotesView
	// queued is advice sent since the notes last changed: the model has not folded it
	// into the notes yet, so it is shown here until it does.
	queued []string
	md     markdownCache
	scroll paneScroll
}

// render draws the notes (markdown), the queued advice and the plan checklist.
func (v *notesView) render(st *styles, w int) []string {
	var lines []string
	for _, a := range v.queued {
		lines = append(lines, wrapStyled(a, w, st.warn, "☞ advice: ")...)
	}
	if len(v.notes.Plan) > 0 {
		lines = append(lines, st.strong.Render("Plan"))
		for _, p := range v.notes.Plan {
			mark, style := "[ ]", st.text
			switch p.Status {
			case "done":
				mark, style = "[x]", st.muted
			case "doing":
				mark, style = "[>]", st.accent
			case "dropped":
				mark, style = "[-]", st.muted
			}
			lines = append(lines, wrapStyled(p.Text, w, style, mark+" ")...)
		}
		lines = append(lines, "")
	}
	if v.notes.Text == "" {
		return append(lines, st.muted.Render("no notes yet"))
	}
	lines = append(lines, v.md.render(v.notes.Text, w, st.dark)...)
	return lines
}

// title is the pane title, with the notes version once there is one.
func (v *notesView) title() string {
	if v.notes.Version > 0 {
		return fmt.Sprintf("Notes & plan (v%d)", v.notes.Version)
	}
	return "Notes & plan"
}

// take takes the notebook after a change: the queued advice is in it now.
func (v *notesView) take(n *agent.NotesView) {
	if n != nil {
		v.notes = *n
		v.queued = nil
	}
}
