package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// Notebook tool names. They are Note tools: they change only the session's notebook and
// run without asking.
const (
	ToolUpdateNotes = brain.ToolUpdateNotes
	ToolSetPlan     = brain.ToolSetPlan
	ToolUpdateStep  = brain.ToolUpdateStep
)

type updateNotesArgs struct {
	Section string `json:"section,omitempty" jsonschema:"a section of the notes, e.g. Strategy or Lessons (its ## heading, without the hashes); empty replaces the whole notes"`
	Text    string `json:"text" jsonschema:"the new markdown for that section, or for the whole notes"`
}

type setPlanArgs struct {
	Steps []string `json:"steps" jsonschema:"the plan, in order, one short imperative step each; replaces the current plan"`
}

type planStatus string

type updateStepArgs struct {
	ID     int        `json:"id" jsonschema:"the number of the plan step"`
	Status planStatus `json:"status" jsonschema:"the step's new status"`
	Text   string     `json:"text,omitempty" jsonschema:"new wording for the step; empty keeps it"`
}

// addNotebook puts the notebook tools in the catalogue.
func (tb *toolbox) addNotebook(reg *game.Registry) {
	reg.Add(game.Tool{
		Name: ToolUpdateNotes, Kind: game.Note,
		Description: "Rewrite one section of your notes (or all of them when section is empty). " +
			"Your notes are your memory across steps: keep what you know, your strategy, what you wait on and lessons.",
		Schema: game.SchemaFor[updateNotesArgs](),
	}, tb.updateNotes)
	reg.Add(game.Tool{
		Name: ToolSetPlan, Kind: game.Note,
		Description: "Replace your plan with a new ordered list of steps, all todo.",
		Schema:      game.SchemaFor[setPlanArgs](),
	}, tb.setPlan)
	var statuses []planStatus
	for _, s := range notes.Statuses {
		statuses = append(statuses, planStatus(s))
	}
	reg.Add(game.Tool{
		Name: ToolUpdateStep, Kind: game.Note,
		Description: "Mark a plan step todo, doing, done or dropped, and optionally reword it.",
		Schema:      game.Min(game.SchemaFor[updateStepArgs](game.WithEnum("plan step status", statuses...)), "id", 1),
	}, tb.updateStep)
}

func (tb *toolbox) updateNotes(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a updateNotesArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolUpdateNotes, err)
	}
	var n notes.Notes
	var err error
	if a.Section == "" {
		n, err = tb.notebook.SetNotes(a.Text, tb.step())
	} else {
		n, err = tb.notebook.UpdateSection(a.Section, a.Text, tb.step())
	}
	if err != nil {
		return noteError(err), nil
	}
	tb.out = append(tb.out, tb.notesEvent())
	what := "the notes"
	if a.Section != "" {
		what = "section " + a.Section
	}
	return game.Result{Output: fmt.Sprintf("%s updated (notes version %d)", what, n.Version)}, nil
}

func (tb *toolbox) setPlan(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a setPlanArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolSetPlan, err)
	}
	steps := make([]notes.PlanStep, len(a.Steps))
	for i, s := range a.Steps {
		steps[i] = notes.PlanStep{Text: s}
	}
	plan, err := tb.notebook.SetPlan(steps, tb.step())
	if err != nil {
		return noteError(err), nil
	}
	tb.out = append(tb.out, tb.notesEvent())
	return game.Result{Output: fmt.Sprintf("plan set: %d steps", len(plan))}, nil
}

func (tb *toolbox) updateStep(_ context.Context, raw json.RawMessage) (game.Result, error) {
	var a updateStepArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return game.Result{}, fmt.Errorf("%s: %w", ToolUpdateStep, err)
	}
	if _, err := tb.notebook.UpdateStep(a.ID, notes.Status(a.Status), a.Text, tb.step()); err != nil {
		return noteError(err), nil
	}
	tb.out = append(tb.out, tb.notesEvent())
	return game.Result{Output: fmt.Sprintf("plan step %d is %s", a.ID, a.Status)}, nil
}

// noteError is a notebook refusal (an unknown plan step, say) as a tool error the model
// can act on.
func noteError(err error) game.Result {
	return game.Result{Err: &game.Error{Code: 400, Message: err.Error()}}
}

// notesEvent is the notebook as it is now, or the error reading it.
func (tb *toolbox) notesEvent() Event {
	v, err := tb.notesView()
	if err != nil {
		return errorEvent("reading the notebook: %v", err)
	}
	return Event{Type: EventNotes, Notes: &v}
}

// notesView reads the notes and plan for the screen.
func (tb *toolbox) notesView() (NotesView, error) {
	n, err := tb.notebook.Notes()
	if err != nil {
		return NotesView{}, err
	}
	plan, err := tb.notebook.Plan()
	if err != nil {
		return NotesView{}, err
	}
	v := NotesView{Text: n.Text, Version: n.Version}
	for _, s := range plan {
		v.Plan = append(v.Plan, PlanStep{ID: s.ID, Text: s.Text, Status: string(s.Status)})
	}
	return v, nil
}
