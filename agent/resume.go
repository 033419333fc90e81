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
// them or reports them as unknown. It returns the steps for the history, oldest first,
// and what the person must hear of a damaged journal.
func rebuildHistory(s ResumeJournal, lastSeq uint64) ([]stepRecord, []Event) {
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
		text  string
		calls []*callState
	}
	steps := map[int]*stepState{}
	calls := map[string]*callState{}
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
		rec := stepRecord{n: n, text: st.text}
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
		if rec.text != "" || len(rec.calls) > 0 {
			out = append(out, rec)
		}
	}
	return out, evs
}
