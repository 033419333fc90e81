package agent

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// ResumeJournal is what a resumed run reads of its session's journal: its name, the
// records it cannot read, and its last records. *notes.Session satisfies it.
type ResumeJournal interface {
	Name() string
	JournalGaps() ([]notes.Gap, error)
	Tail(n int) ([]notes.Record, error)
}

// gapsEvent tells the person, when a resumed session's journal is damaged, which
// records cannot be read and are skipped (notes.Session.JournalGaps); ok is false when
// there is nothing to tell. A new session (lastSeq 0) has nothing to check.
func gapsEvent(s ResumeJournal, lastSeq uint64) (Event, bool) {
	if lastSeq == 0 {
		return Event{}, false
	}
	gaps, err := s.JournalGaps()
	if err != nil {
		return errorEvent("resuming: the journal of session %s could not be checked: %v; play goes on from the notes, the plan and the world", s.Name(), err), true
	}
	if len(gaps) == 0 {
		return Event{}, false
	}
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = g.String()
	}
	return errorEvent("resuming: the journal of session %s is damaged, and what cannot be read is skipped: %s. The model's history, the log and the export leave it out; play goes on from the notes, the plan and the world",
		s.Name(), strings.Join(parts, ", ")), true
}

// resumeRecords is how much of the journal's end is read to rebuild the history: enough
// for the verbatim window and the summary lines (a step journals about ten records).
const resumeRecords = (DefaultHistorySteps + summaryLines) * 16

// rebuildHistory gives a resumed session back the conversation it had: the journal's
// last steps become the verbatim history again, older ones folded into the summary, so
// a model picks up where it left off rather than from its notes alone. Calls without an
// ending (still pending, or cut off by a crash) are left to recover, which asks about
// them or reports them as unknown. The person's own moves go into the input of the step
// (or the question) that carried them to the model, and the person's questions with
// their answers follow the step they were asked at, as the live conversation had them.
// It returns the steps for the history, oldest first, the person's moves no request
// carried yet (the next one does), and what the person must hear of a damaged journal.
func rebuildHistory(s ResumeJournal, lastSeq uint64) ([]stepRecord, []playedMove, []Event) {
	var evs []Event
	gaps, damaged := gapsEvent(s, lastSeq)
	if damaged {
		evs = append(evs, gaps)
	}
	recs, err := s.Tail(resumeRecords)
	if err != nil && !damaged {
		evs = append(evs, errorEvent("reading the journal to resume the conversation: %v (the notes and plan carry on)", err))
	}
	type callState struct {
		call     ToolCall
		decision *Decision
		result   *game.Result
		crashed  bool // the process stopped while it ran
	}
	type stepState struct {
		text   string
		calls  []*callState
		input  string       // the person's moves this step's input carried
		moves  int          // how many
		after  []stepRecord // the person's questions asked at this step, with their answers
		asking *stepRecord  // a question not answered yet
	}
	steps := map[int]*stepState{}
	calls := map[string]*callState{}
	moves := map[string]*playedMove{} // the person's moves, by call id
	var pending []*playedMove         // moves no request carried yet
	carry := func() []playedMove {
		out := make([]playedMove, len(pending))
		for i, m := range pending {
			out[i] = *m
		}
		pending = nil
		return out
	}
	var dec decoder
	var bad unreadable
	for _, rec := range recs {
		ev, err := dec.event(rec)
		if err != nil && !errors.Is(err, record.ErrNoBase) {
			// An unreadable record costs the model one line of history, no more; the
			// person is told.
			bad.add(err)
		}
		if err != nil || rec.Step == 0 {
			continue
		}
		st := steps[rec.Step]
		if st == nil {
			st = &stepState{}
			steps[rec.Step] = st
		}
		switch {
		case ev.Type == EventToolStart && ev.Call != nil && ev.Call.By == ByPerson:
			m := &playedMove{tool: ev.Call.Tool, args: ev.Call.Args, text: unknownText}
			moves[rec.CallID] = m
			pending = append(pending, m)
		case moves[rec.CallID] != nil && ev.Type == EventResult && ev.Result != nil:
			moves[rec.CallID].text = outcome{result: ev.Result}.text()
		case ev.Type == EventStep:
			m := carry()
			st.input, st.moves = movesText(m), len(m)
		case ev.Type == EventQuestion:
			m := carry()
			st.asking = &stepRecord{n: rec.Step, input: askingText(m, ev.Text), asked: ev.Text, moves: len(m)}
		case ev.Type == EventReply && st.asking != nil:
			q := *st.asking
			q.text, st.asking = ev.Text, nil
			st.after = append(st.after, q)
		case ev.Type == EventDecision:
			if c := calls[rec.CallID]; c != nil {
				c.decision = ev.Decision
			}
		case ev.Type == EventText:
			st.text = ev.Text
		case ev.Type == EventProposed && ev.Call != nil:
			c := &callState{call: ToolCall{ID: rec.CallID, Tool: ev.Call.Tool, Args: ev.Call.Args}}
			calls[rec.CallID] = c
			st.calls = append(st.calls, c)
		case ev.Type == EventOutcomeUnknown:
			if c := calls[rec.CallID]; c != nil {
				c.result, c.crashed = &game.Result{Unknown: true}, true
			}
		case ev.Type == EventResult && ev.Result != nil:
			if c := calls[rec.CallID]; c != nil {
				c.result = ev.Result
			}
		}
	}
	if bad.n > 0 {
		evs = append(evs, bad.event("the model's history"))
	}
	order := make([]int, 0, len(steps))
	for n := range steps {
		order = append(order, n)
	}
	sort.Ints(order)
	var out []stepRecord
	for _, n := range order {
		st := steps[n]
		rec := stepRecord{n: n, text: st.text, input: st.input, moves: st.moves}
		for _, c := range st.calls {
			var text string
			ok, vetoed := false, false
			switch {
			case c.decision != nil && c.decision.Decision == Veto:
				text, vetoed = outcome{decision: c.decision}.text(), true
			case c.result == nil:
				continue // no ending yet: recover deals with it
			default:
				text, ok = outcome{decision: c.decision, modelArgs: c.call.Args, result: c.result, crashed: c.crashed}.text(), c.result.OK()
			}
			args := c.call.Args
			if !json.Valid(args) {
				args = json.RawMessage("{}")
			}
			rec.calls = append(rec.calls, c.call)
			rec.results = append(rec.results, toolResult{tool: c.call.Tool, args: args, text: text, ok: ok, vetoed: vetoed})
		}
		if rec.text != "" || len(rec.calls) > 0 || rec.input != "" {
			out = append(out, rec)
		}
		out = append(out, st.after...)
	}
	return out, carry(), evs
}
