package agent

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// A session read back step by step from its journal (coplay sessions replay): what the
// world, the notes and plan, the calls and the spend were at each step. Nothing here
// writes; the screen's replay and the --json lines are both built from a Replay.

// Replay is a session's journal, by step.
type Replay struct {
	Info notes.SessionInfo
	// Before are the events journaled before the first step (the run starting, the
	// session's rules).
	Before []Event
	Steps  []ReplayStep
}

// ReplayStep is one step as the journal has it.
type ReplayStep struct {
	Step int       `json:"step"`
	Seq  uint64    `json:"seq"` // the seq of the step's "step" record
	Time time.Time `json:"time"`
	// Observation is the world the step observed, as journaled (rebuilt from the
	// changes the journal keeps).
	Observation *game.Observation `json:"observation"`
	Text        string            `json:"text,omitempty"` // the model's words
	// Notes are the notes version and the plan as they stood when the step ended.
	Notes ReplayNotes  `json:"notes"`
	Calls []ReplayCall `json:"calls"`
	// Moves are the person's own moves (play), in order: nobody proposed or decided them.
	Moves []ReplayCall `json:"moves,omitempty"`
	// Questions are the person's questions (ask) and the agent's answers.
	Questions []ReplayQuestion `json:"questions,omitempty"`
	Advice    []string         `json:"advice,omitempty"`
	Triggers  []game.Trigger   `json:"triggers,omitempty"`
	Errors    []string         `json:"errors,omitempty"`
	// Spend is the model's tokens and cost from the session's start through this step.
	Spend Spend `json:"spend"`
	// Events are every event of the step, decoded, notes changes with their whole text:
	// the screen's replay feeds them to the panes.
	Events []Event `json:"-"`
}

// ReplayNotes is the notes and the plan at one point.
type ReplayNotes struct {
	Version     int        `json:"version"`
	Text        string     `json:"-"`
	PlanVersion int        `json:"plan_version"`
	Plan        []PlanStep `json:"plan"`
}

// ReplayCall is one call of a step: what was asked, who decided what and why, and what
// came of it.
type ReplayCall struct {
	ID         string           `json:"id"`
	Tool       string           `json:"tool"`
	Kind       string           `json:"kind,omitempty"`
	Args       json.RawMessage  `json:"args"`
	Problems   []game.Problem   `json:"problems,omitempty"`
	Simulation *game.Simulation `json:"simulation,omitempty"`
	Decision   *Decision        `json:"decision,omitempty"`
	Result     *game.Result     `json:"result,omitempty"`
	By         string           `json:"by,omitempty"` // "person": the person's own move
}

// ReplayQuestion is a question of the person's and the agent's answer in words.
type ReplayQuestion struct {
	Question string `json:"question"`
	Answer   string `json:"answer,omitempty"` // "" when none came (the model failed, the run stopped)
}

// Spend is what the model cost so far.
type Spend struct {
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CachedTokens     int64   `json:"cached_tokens"`
	Cost             float64 `json:"cost"`
	// CostUnknown: some tokens were spent on a model without a price.
	CostUnknown bool `json:"cost_unknown,omitempty"`
}

// Marks of a step, for jumping to the next one that has it.
const (
	MarkDecision = "decision" // a call decided by the person or a rule (not by policy)
	MarkVeto     = "veto"
	MarkAdvice   = "advice"
	MarkTrigger  = "trigger"
	MarkError    = "error"
	MarkPerson   = "person" // the person played a move or asked a question
)

// Has reports whether the step has mark.
func (s *ReplayStep) Has(mark string) bool {
	switch mark {
	case MarkDecision:
		for _, c := range s.Calls {
			if c.Decision != nil && (c.Decision.By == "person" || c.Decision.By == "rule") {
				return true
			}
		}
	case MarkVeto:
		for _, c := range s.Calls {
			if c.Decision != nil && c.Decision.Decision == Veto {
				return true
			}
		}
	case MarkAdvice:
		return len(s.Advice) > 0
	case MarkTrigger:
		return len(s.Triggers) > 0
	case MarkError:
		return len(s.Errors) > 0
	case MarkPerson:
		return len(s.Moves)+len(s.Questions) > 0
	}
	return false
}

// ReadReplay reads session s back step by step. A record that cannot be read (its data
// not of the journal's format, records missing from a damaged file) is an error naming
// it, as for the export.
func ReadReplay(s *notes.Session) (*Replay, error) {
	info, err := s.Info()
	if err != nil {
		return nil, err
	}
	noteHist, err := s.NoteHistory()
	if err != nil {
		return nil, err
	}
	planHist, err := s.PlanHistory()
	if err != nil {
		return nil, err
	}
	out := &Replay{Info: info}
	var (
		dec   decoder
		cur   *ReplayStep
		calls map[string]int // call id -> index in cur.Calls
		moves map[string]int // call id -> index in cur.Moves
		spend Spend
	)
	err = s.Records(1, func(rec notes.Record) error {
		ev, data, err := dec.decode(rec)
		if err != nil {
			return err
		}
		if ev.Type == EventStep {
			out.Steps = append(out.Steps, ReplayStep{Step: ev.Step, Seq: ev.Seq, Time: ev.Time, Calls: []ReplayCall{}})
			cur = &out.Steps[len(out.Steps)-1]
			calls, moves = map[string]int{}, map[string]int{}
		}
		if cur == nil {
			out.Before = append(out.Before, ev)
			return nil
		}
		switch ev.Type {
		case EventObservation:
			if cur.Observation == nil && ev.Observation != nil {
				o := *ev.Observation
				cur.Observation = &o
			}
		case EventText:
			cur.Text = ev.Text
		case EventProposed:
			if ev.Call != nil {
				c := ReplayCall{ID: ev.Call.ID, Tool: ev.Call.Tool, Args: ev.Call.Args, Problems: ev.Call.Problems, Simulation: ev.Call.Simulation}
				if data.Call != nil {
					c.Kind = data.Call.Kind // as journaled (the catalogue may have changed since)
				}
				calls[c.ID] = len(cur.Calls)
				cur.Calls = append(cur.Calls, c)
			}
		case EventToolUpdated:
			if i, ok := calls[rec.CallID]; ok && ev.Call != nil {
				cur.Calls[i].Args, cur.Calls[i].Simulation = ev.Call.Args, ev.Call.Simulation
			}
		case EventDecision:
			if i, ok := calls[rec.CallID]; ok {
				cur.Calls[i].Decision = ev.Decision
			}
		case EventToolStart:
			if c := ev.Call; c != nil && c.By == ByPerson {
				moves[c.ID] = len(cur.Moves)
				m := ReplayCall{ID: c.ID, Tool: c.Tool, Args: c.Args, By: c.By}
				if data.Call != nil {
					m.Kind = data.Call.Kind
				}
				cur.Moves = append(cur.Moves, m)
			}
		case EventResult, EventOutcomeUnknown:
			if i, ok := calls[rec.CallID]; ok {
				cur.Calls[i].Result = ev.Result
			}
			if i, ok := moves[rec.CallID]; ok {
				cur.Moves[i].Result = ev.Result
			}
		case EventQuestion:
			cur.Questions = append(cur.Questions, ReplayQuestion{Question: ev.Text})
		case EventReply:
			if n := len(cur.Questions); n > 0 && cur.Questions[n-1].Answer == "" {
				cur.Questions[n-1].Answer = ev.Text
			}
		case EventAdvice:
			cur.Advice = append(cur.Advice, ev.Text)
		case EventTrigger:
			if ev.Trigger != nil {
				cur.Triggers = append(cur.Triggers, *ev.Trigger)
			}
		case EventError:
			cur.Errors = append(cur.Errors, ev.Text)
		case EventUsage:
			if u := ev.Usage; u != nil {
				spend.PromptTokens += int64(u.PromptTokens)
				spend.CompletionTokens += int64(u.CompletionTokens)
				spend.CachedTokens += int64(u.CachedTokens)
				spend.Cost += u.Cost
				if !u.CostKnown && u.PromptTokens+u.CompletionTokens > 0 {
					spend.CostUnknown = true
				}
			}
		}
		cur.Spend = spend
		cur.Events = append(cur.Events, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out.Steps {
		st := &out.Steps[i]
		st.Notes = notesAt(noteHist, planHist, st.Step)
		for j := range st.Events {
			if ev := &st.Events[j]; ev.Type == EventNotes && ev.Notes != nil {
				ev.Notes = &NotesView{Text: noteText(noteHist, ev.Notes.Version), Version: ev.Notes.Version, Plan: st.Notes.Plan}
			}
		}
	}
	return out, nil
}

// notesAt returns the notes and plan as they stood at the end of step.
func notesAt(hist []notes.Notes, plans []notes.PlanVersion, step int) ReplayNotes {
	var out ReplayNotes
	out.Text = notes.Skeleton
	i := sort.Search(len(hist), func(i int) bool { return hist[i].Step > step })
	if i > 0 {
		out.Version, out.Text = hist[i-1].Version, hist[i-1].Text
	}
	j := sort.Search(len(plans), func(i int) bool { return plans[i].Step > step })
	out.Plan = []PlanStep{}
	if j > 0 {
		out.PlanVersion = plans[j-1].Version
		for _, s := range plans[j-1].Steps {
			out.Plan = append(out.Plan, PlanStep{ID: s.ID, Text: s.Text, Status: string(s.Status)})
		}
	}
	return out
}

// noteText returns the text of notes version v ("" when it is not kept).
func noteText(hist []notes.Notes, v int) string {
	i := sort.Search(len(hist), func(i int) bool { return hist[i].Version >= v })
	if i < len(hist) && hist[i].Version == v {
		return hist[i].Text
	}
	if v == 0 {
		return notes.Skeleton
	}
	return ""
}

// StepIndex returns the index in r.Steps of step n, or of the last step before it;
// -1 when there is none.
func (r *Replay) StepIndex(n int) int {
	return sort.Search(len(r.Steps), func(i int) bool { return r.Steps[i].Step > n }) - 1
}
