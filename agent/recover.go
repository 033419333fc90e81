package agent

import (
	"encoding/json"
	"fmt"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// recover deals with what the previous run of the session left open, before the first
// step. Calls that were proposed but never decided are shown again, still pending, and
// wait for a decision (the model is not asked again); once decided they run like any
// batch. Calls that were allowed to run but have no result may or may not have
// happened: the person gets an EventError, the model a tool result saying the outcome is
// unknown, and they are never replayed.
func (r *Runner) recover() error {
	rec, err := r.cfg.Session.Recover()
	if err != nil {
		return fmt.Errorf("agent: recovering session %q: %w", r.cfg.Session.Name(), err)
	}
	r.emitNotes()
	r.rebuildHistory()
	if len(rec.Pending) > 0 || len(rec.Unknown) > 0 || len(rec.NotStarted) > 0 {
		// The person decides these before the first step: show the world they act on.
		if obs, err := r.cfg.Game.Observe(r.ctx); err == nil {
			r.emit(Event{Type: EventObservation, Observation: &obs})
		} else if r.ctx.Err() == nil {
			r.emitError("observing %s: %v", r.cfg.Game.Info().Name, err)
		}
	}
	st := stepRecord{n: r.step, text: "(calls from before the restart)"}
	for _, u := range rec.Unknown {
		call := r.proposedCall(u)
		r.usedIDs[call.ID] = true
		r.emitError("call %s (%s %s) was running when coplay stopped; its outcome is unknown and it is not run again: observe before acting",
			call.ID, call.Tool, call.Args)
		res := game.Result{Unknown: true}
		r.emit(Event{Type: EventOutcomeUnknown, Call: &call, Result: &res})
		st.calls = append(st.calls, ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args})
		st.results = append(st.results, toolResult{tool: call.Tool, args: call.Args,
			text: "outcome unknown: the process stopped while this ran; observe before acting"})
	}
	for _, n := range rec.NotStarted {
		// Decided, but coplay stopped before it started: it did not run, and is not run
		// now without being asked for again.
		call := r.proposedCall(n)
		r.usedIDs[call.ID] = true
		res := game.Result{Err: &game.Error{Message: "not executed: coplay stopped before this call started"}}
		r.emit(Event{Type: EventResult, Call: &call, Result: &res})
		st.calls = append(st.calls, ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args})
		st.results = append(st.results, toolResult{tool: call.Tool, args: call.Args,
			text: "not executed: coplay stopped before this call started; send it again if it is still wanted"})
	}
	if len(rec.Pending) > 0 {
		b := &batch{}
		for _, p := range rec.Pending {
			call := callOf(p)
			r.usedIDs[call.ID] = true
			pc := &pendingCall{call: call, model: ToolCall{ID: call.ID, Tool: call.Tool, Args: call.Args}, args: call.Args}
			tool, err := r.reg.Lookup(call.Tool)
			if err == nil {
				pc.tool = tool
				pc.call.Kind = tool.Kind
				err = game.Validate(tool.Name, tool.Schema, call.Args)
			}
			b.calls = append(b.calls, pc)
			if err != nil {
				pc.invalid = err
				continue
			}
			if d := r.gate(pc); d != nil {
				pc.decided = d
				r.emit(Event{Type: EventDecision, Decision: d})
				continue
			}
			pc.call.NeedsOK = true
			b.open++
			r.mu.Lock()
			r.awaiting[call.ID] = tool
			r.mu.Unlock()
			// Shown again with its original seq: it is the same proposal, not a new one.
			c := pc.call
			r.send1(Event{Seq: p.Seq, Time: p.Time, Type: EventProposed, Step: p.Step, Call: &c})
		}
		r.decideAll(b)
		if r.stopping || r.fatal != nil || r.ctx.Err() != nil {
			r.abandon(b)
			return r.check2()
		}
		for _, pc := range b.calls {
			_, text := r.execute(pc)
			if r.fatal != nil || r.ctx.Err() != nil {
				return r.check2()
			}
			st.calls = append(st.calls, pc.model)
			st.results = append(st.results, toolResult{tool: pc.call.Tool, args: pc.call.Args, text: text})
		}
	}
	if len(st.calls) > 0 {
		r.hist.add(st)
	}
	return nil
}

// proposedCall finds the call a decision record is about, with the arguments it ran
// with (an edit's, if edited).
func (r *Runner) proposedCall(dec notes.Record) Call {
	call := Call{ID: dec.CallID, Tool: "(unreadable)", Args: json.RawMessage("{}")}
	recs, _ := r.cfg.Session.CallRecords(dec.CallID)
	for _, rec := range recs {
		if rec.Type == notes.TypeProposed {
			call = callOf(rec)
		}
	}
	var d Decision
	if json.Unmarshal(dec.Data, &d) == nil && d.Decision == Edit && len(d.Args) > 0 {
		call.Args = d.Args
	}
	if t, err := r.reg.Lookup(call.Tool); err == nil {
		call.Kind = t.Kind
	}
	return call
}

// callOf reads the call back from a tool_proposed record (either format).
func callOf(rec notes.Record) Call {
	var d decoder
	if ev, ok := d.event(rec); ok && ev.Call != nil && ev.Call.Tool != "" {
		c := *ev.Call
		if len(c.Args) == 0 {
			c.Args = json.RawMessage("{}")
		}
		return c
	}
	return Call{ID: rec.CallID, Tool: "(unreadable)", Args: json.RawMessage("{}")}
}
