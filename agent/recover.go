package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// recover deals with what the previous run of the session left open, before the first
// step. Calls that were proposed but never decided are shown again (with their original
// seq), still pending, and go through the same pipeline as a live step's calls (admit:
// validate once and gate; runBatch: decide, run as decided, observe after each, dry-run
// the rest again); the model is not asked again. Calls that were allowed to run but have
// no result may or may not have happened: the person gets an EventError, the model a
// tool result saying the outcome is unknown, and they are never replayed.
func (r *Runner) recover() error {
	rec, err := r.cfg.Session.Recover()
	if err != nil {
		return fmt.Errorf("agent: recovering session %q: %w", r.cfg.Session.Name(), err)
	}
	r.emit(r.tools.notesEvent())
	steps, moves, evs := rebuildHistory(r.cfg.Session, r.jr.lastSeq)
	r.prompt.moves = append(r.prompt.moves, moves...)
	r.emitAll(evs)
	for _, st := range steps {
		r.prompt.hist.add(st)
	}
	if len(rec.Pending) > 0 || len(rec.Unknown) > 0 || len(rec.NotStarted) > 0 {
		// The person decides these before the first step: show the world they act on.
		if obs, err := r.observe(); err == nil {
			r.emit(Event{Type: EventObservation, Observation: &obs})
		} else if r.ctx.Err() == nil {
			r.emitError("observing %s: %v", r.cfg.Game.Info().Name, err)
		}
	}
	st := stepRecord{n: r.at.step, text: "(calls from before the restart)"}
	for _, u := range rec.Unknown {
		call, err := proposedCall(r.calls.journal, r.tools.registry(), u)
		if err != nil {
			r.emitError("resuming: call %s: %v", call.ID, err)
		}
		r.calls.used[call.ID] = true
		r.emitError("call %s (%s %s) was running when coplay stopped; its outcome is unknown and it is not run again: observe before acting",
			call.ID, call.Tool, call.Args)
		res := game.Result{Unknown: true}
		r.emit(Event{Type: EventOutcomeUnknown, Call: &call, Result: &res})
		if call.By == ByPerson {
			// The person's own move: the model reads it as theirs, never as its call
			// (rebuildHistory has put it among the moves, its outcome unknown).
			continue
		}
		st.calls = append(st.calls, ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args})
		st.results = append(st.results, toolResult{tool: call.Tool, args: call.Args,
			text: outcome{result: &res, crashed: true}.text()})
	}
	for _, n := range rec.NotStarted {
		// Decided, but coplay stopped before it started: it did not run, and is not run
		// now without being asked for again.
		call, err := proposedCall(r.calls.journal, r.tools.registry(), n)
		if err != nil {
			r.emitError("resuming: call %s: %v", call.ID, err)
		}
		r.calls.used[call.ID] = true
		res := game.Result{Err: &game.Error{Message: "not executed: coplay stopped before this call started"}}
		r.emit(Event{Type: EventResult, Call: &call, Result: &res})
		st.calls = append(st.calls, ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args})
		st.results = append(st.results, toolResult{tool: call.Tool, args: call.Args,
			text: "not executed: coplay stopped before this call started; send it again if it is still wanted"})
	}
	if len(rec.Pending) > 0 {
		b := &batch{}
		for _, p := range rec.Pending {
			call, err := proposalOf(p)
			if err != nil {
				r.emitError("resuming: call %s: %v", call.ID, err)
			}
			r.calls.used[call.ID] = true
			pc := r.admit(call.ID, ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args}, b.earlierToRun(len(b.calls)) == 0)
			if !pc.simulated {
				pc.call.Simulation = call.Simulation // the prediction shown then; replaced below if the world moved
			}
			b.calls = append(b.calls, pc)
			switch {
			case pc.invalid != nil:
				// Answered as invalid when its turn comes (the catalogue or its checks changed).
			case pc.decided != nil:
				r.emit(Event{Type: EventDecision, Decision: pc.decided})
			default:
				// Shown again with its original seq: it is the same proposal, not a new one,
				// and already in the journal.
				c := pc.call
				r.flush() // after the phase before it
				if r.fatal == nil {
					r.send1(Event{Seq: p.Seq, Time: p.Time, Type: EventProposed, Step: p.Step, Call: &c})
				}
			}
		}
		for i, pc := range b.calls {
			if r.dryRun(b, i) {
				c := pc.call
				r.emit(Event{Type: EventToolUpdated, Call: &c})
			}
		}
		if !r.runBatch(b) {
			return r.check2()
		}
		calls, results := b.history()
		st.calls = append(st.calls, calls...)
		st.results = append(st.results, results...)
	}
	if len(st.calls) > 0 {
		r.prompt.hist.add(st)
	}
	return nil
}

// proposedCall finds the call a decision record is about, with the arguments it ran
// with (an edit's, if edited). What cannot be read of it is the error, beside a call
// named "(unreadable)" or with its proposed arguments: the person is told, and the call
// is closed all the same.
func proposedCall(j CallJournal, reg *game.Registry, dec notes.Record) (Call, error) {
	call := Call{ID: dec.CallID, Tool: "(unreadable)", Args: json.RawMessage("{}")}
	recs, err := j.CallRecords(dec.CallID)
	errs := []error{err}
	for _, rec := range recs {
		if rec.Type == record.TypeProposed || rec.Type == record.TypeToolStart && len(rec.Data) > 0 {
			// A proposal, or the start of the person's own move (it has none).
			c, err := proposalOf(rec)
			call, errs = c, append(errs, err)
		}
	}
	d, err := dec.Decode()
	errs = append(errs, err)
	if err == nil && d.Decision != nil && Verdict(d.Decision.Decision) == Edit && len(d.Decision.Args) > 0 {
		call.Args = d.Decision.Args
	}
	if t, err := reg.Lookup(call.Tool); err == nil {
		call.Kind = t.Kind
	}
	return call, errors.Join(errs...)
}

// proposalOf reads the call back from a tool_proposed record (either format); a call
// named "(unreadable)" beside the error when it cannot be read.
func proposalOf(rec notes.Record) (Call, error) {
	var d decoder
	ev, err := d.event(rec)
	switch {
	case err != nil:
	case ev.Call == nil || ev.Call.Tool == "":
		err = fmt.Errorf("journal record %d (%s) has no call", rec.Seq, rec.Type)
	default:
		c := *ev.Call
		if len(c.Args) == 0 {
			c.Args = json.RawMessage("{}")
		}
		return c, nil
	}
	return Call{ID: rec.CallID, Tool: "(unreadable)", Args: json.RawMessage("{}")}, err
}
