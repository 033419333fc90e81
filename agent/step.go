package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// stepOutcome is what the loop does after a step.
type stepOutcome struct {
	wait       *game.Wait // sleep, then go on with the turn
	endTurn    string     // non-empty: the turn is over, for this reason
	idleUntil  time.Time  // when the turn is over: the game has nothing to do until then
	idleReason string
}

// pendingCall is one call of a step on its way through the gate.
type pendingCall struct {
	call    Call     // as the person sees it (Call.ID is unique in the session)
	model   ToolCall // as the brain sent it; its ID answers the brain
	tool    game.Tool
	invalid error     // validation failure: never runs
	decided *Decision // nil while waiting
	args    json.RawMessage
	ran     bool
}

// batch is the calls of one step.
type batch struct {
	calls []*pendingCall
	open  int // calls still waiting for a person
}

// doStep runs one step: observe, reason, validate, decide, act.
func (r *Runner) doStep() stepOutcome {
	r.step++
	r.runSteps++
	if err := r.cfg.Session.SetStep(r.step); err != nil {
		r.emitError("saving the step number: %v", err)
	}
	r.setState(Running, "")
	r.emit(Event{Type: EventStep, Text: fmt.Sprintf("step %d", r.step)})
	obs, err := r.cfg.Game.Observe(r.ctx)
	if err != nil {
		if r.ctx.Err() == nil {
			r.emitError("observing %s: %v", r.cfg.Game.Info().Name, err)
		}
		return stepOutcome{endTurn: "the game could not be observed"}
	}
	r.emit(Event{Type: EventObservation, Observation: &obs})

	advice := r.advice
	r.advice, r.freshAdvice = nil, false
	msgs := r.prompt(obs, advice)
	chars := promptChars(msgs)
	reply, err := r.cfg.Brain.Next(r.ctx, Request{
		Messages: msgs, Tools: r.reg.Tools(), Observation: obs, OnDelta: r.delta,
	})
	if err != nil {
		// The advice never reached the model: keep it for the next step.
		r.advice = append(advice, r.advice...)
		if r.ctx.Err() == nil {
			r.emitError("the model (%s) failed: %v", r.cfg.Brain.Name(), err)
		}
		return stepOutcome{endTurn: "the model failed"}
	}
	u := reply.Usage
	u.PromptChars = chars
	r.emit(Event{Type: EventUsage, Usage: &u})
	if err := r.cfg.Session.AddUsage(int64(u.PromptTokens), int64(u.CompletionTokens), u.Cost); err != nil {
		r.emitError("saving token usage: %v", err)
	}
	if reply.Text != "" {
		r.emit(Event{Type: EventText, Text: reply.Text})
	}
	rec := stepRecord{n: r.step, advice: advice, text: reply.Text}
	if len(reply.Calls) == 0 {
		r.hist.add(rec)
		return stepOutcome{endTurn: "the model ended its turn", idleUntil: obs.IdleUntil, idleReason: obs.IdleReason}
	}

	b := r.propose(reply.Calls)
	r.decideAll(b)
	if r.stopping || r.fatal != nil || r.ctx.Err() != nil {
		r.abandon(b)
		return stepOutcome{}
	}
	var out stepOutcome
	for _, pc := range b.calls {
		res, text := r.execute(pc)
		if r.fatal != nil || r.ctx.Err() != nil {
			return stepOutcome{}
		}
		rec.calls = append(rec.calls, pc.model)
		vetoed := pc.decided != nil && pc.decided.Decision == Veto
		rec.results = append(rec.results, toolResult{tool: pc.call.Tool, args: pc.call.Args, text: text,
			ok: pc.invalid == nil && !vetoed && res.OK(), vetoed: vetoed})
		if res.Wait != nil && (out.wait == nil || res.Wait.Until.After(out.wait.Until)) {
			w := *res.Wait
			out.wait = &w
		}
		if why := r.countFailure(pc, res); why != "" && out.endTurn == "" {
			out.endTurn = why
		}
	}
	r.hist.add(rec)
	if out.endTurn != "" {
		out.wait = nil // the person decides what comes next
	}
	return out
}

// delta forwards streamed text.
func (r *Runner) delta(text string) {
	if text != "" {
		r.emit(Event{Type: EventTextDelta, Text: text})
	}
}

// propose validates and gates each call, and emits it.
func (r *Runner) propose(calls []ToolCall) *batch {
	b := &batch{}
	earlierAct := false // a call before this one in the batch may change the world first
	for i, tc := range calls {
		id := r.uniqueID(tc.ID, i)
		pc := &pendingCall{model: tc, call: Call{ID: id, Tool: tc.Tool, Args: showArgs(tc.Args)}, args: tc.Args}
		if pc.model.ID == "" {
			pc.model.ID = id
		}
		tool, err := r.reg.Lookup(tc.Tool)
		if err == nil {
			pc.tool = tool
			pc.call.Kind = tool.Kind
			err = game.Validate(tool.Name, tool.Schema, tc.Args)
		}
		b.calls = append(b.calls, pc)
		if err != nil {
			pc.invalid = err
			pc.call.Problems = problemsOf(err)
			call := pc.call
			r.emit(Event{Type: EventProposed, Call: &call})
			continue
		}
		d := r.gate(pc)
		if d == nil {
			pc.call.NeedsOK = true
			if tool.DryRun {
				pc.call.Simulation = r.simulate(tc, earlierAct)
			}
			b.open++
			r.mu.Lock()
			r.awaiting[id] = tool
			r.mu.Unlock()
		}
		earlierAct = earlierAct || tool.Kind == game.Act
		call := pc.call
		r.emit(Event{Type: EventProposed, Call: &call})
		if d != nil {
			pc.decided = d
			r.emit(Event{Type: EventDecision, Decision: d})
		}
	}
	return b
}

// gate returns the automatic decision for a valid call, or nil when a person decides.
func (r *Runner) gate(pc *pendingCall) *Decision {
	d := &Decision{CallID: pc.call.ID, Decision: Auto, By: "policy"}
	if pc.tool.Kind != game.Act {
		return d
	}
	d.Decision = Approve
	switch {
	case r.rules[pc.tool.Name]:
		d.By = "rule"
		return d
	case r.cfg.ApproveAll:
		return d
	}
	return nil
}

// simulate asks the game for a dry run; a failing dry run is shown, not hidden. The
// game predicts against the world as it is now, so when earlier calls of the same batch
// will run first (orbit, then navigate), a predicted failure is only a warning: those
// calls may remove its cause.
func (r *Runner) simulate(tc ToolCall, afterEarlierActs bool) *game.Simulation {
	sim, ok, err := r.reg.Simulate(r.ctx, tc.Tool, tc.Args)
	switch {
	case err != nil:
		return &game.Simulation{Summary: "dry run failed: " + err.Error()}
	case !ok:
		return nil
	}
	if sim.Fails && afterEarlierActs {
		sim.Fails = false
		sim.Warning = "as things stand now this would fail; earlier calls of this step run first and may change that"
	}
	return &sim
}

// decideAll waits until a person has decided every call of b that needs it. Advice,
// allow and stop are handled meanwhile.
func (r *Runner) decideAll(b *batch) {
	if b.open == 0 {
		return
	}
	r.batch = b
	r.setState(Deciding, fmt.Sprintf("%d call(s) wait for a decision", b.open))
	r.waitFor(time.Time{}, func() bool { return b.open == 0 })
	r.batch = nil
	r.mu.Lock()
	clear(r.awaiting)
	r.mu.Unlock()
	if !r.stopping {
		r.setState(Running, "")
	}
}

// decide applies a person's decision to a waiting call.
func (r *Runner) decide(c Command) {
	var pc *pendingCall
	if r.batch != nil {
		for _, p := range r.batch.calls {
			if p.call.ID == c.CallID && p.call.NeedsOK && p.decided == nil {
				pc = p
			}
		}
	}
	if pc == nil {
		r.emitError("decide: no call %q is waiting for a decision", c.CallID)
		return
	}
	d := &Decision{CallID: c.CallID, Decision: c.Decision, Reason: c.Reason, By: "person"}
	if c.Decision == Edit {
		if err := game.Validate(pc.tool.Name, pc.tool.Schema, c.Args); err != nil {
			r.emitError("decide: edit of call %q refused, nothing ran: %v", c.CallID, err)
			return
		}
		d.Args = c.Args
		pc.args = c.Args
	}
	pc.decided = d
	r.batch.open--
	r.mu.Lock()
	delete(r.awaiting, c.CallID)
	r.mu.Unlock()
	r.emit(Event{Type: EventDecision, Decision: d})
}

// abandon closes, in the journal, calls that were allowed to run but did not because
// the runner stopped, so that a resumed session does not think they may have run.
// Calls still waiting for a decision stay pending: they are asked again on resume.
func (r *Runner) abandon(b *batch) {
	if r.fatal != nil {
		return
	}
	for _, pc := range b.calls {
		if pc.decided != nil && pc.decided.Decision != Veto && !pc.ran {
			call := pc.call
			res := game.Result{Err: &game.Error{Message: "not executed: the runner stopped before this call ran"}}
			r.emit(Event{Type: EventResult, Call: &call, Result: &res})
		}
	}
}

// execute runs an approved call, or answers a vetoed or invalid one, and returns the
// result and the text the model reads.
func (r *Runner) execute(pc *pendingCall) (game.Result, string) {
	call := pc.call
	if pc.invalid != nil {
		res := game.Result{Err: &game.Error{Message: "invalid call, not executed: " + pc.invalid.Error()}}
		r.emit(Event{Type: EventResult, Call: &call, Result: &res})
		return res, "not executed: " + pc.invalid.Error() + "\nFix the call and send it again."
	}
	d := pc.decided
	if d.Decision == Veto {
		return game.Result{}, vetoText(d.Reason)
	}
	if d.Decision == Edit {
		call.Args = pc.args
	}
	r.emit(Event{Type: EventToolStart, Call: &call})
	res, err := r.reg.Call(r.ctx, pc.call.Tool, pc.args)
	if r.ctx.Err() != nil {
		// Left open in the journal on purpose: a resumed session reports it as unknown.
		return game.Result{Unknown: true}, ""
	}
	if err != nil {
		res = game.Result{Err: &game.Error{Message: "the game could not be asked: " + err.Error()}}
	}
	pc.ran = true
	r.emit(Event{Type: EventResult, Call: &call, Result: &res})
	if pc.tool.Kind == game.Act {
		r.saveState()
	}
	text := resultText(res)
	if d.Decision == Edit {
		text = "The person edited your arguments before running this call: " + argsDiff(pc.model.Args, pc.args) +
			".\nResult: " + text
	}
	return res, text
}

// countFailure tracks calls failing again and again; it returns why the turn must end,
// or "". A wait (rate limit, transit) is not the model's failure.
func (r *Runner) countFailure(pc *pendingCall, res game.Result) string {
	if pc.decided != nil && pc.decided.Decision == Veto {
		return ""
	}
	key := pc.call.Tool + "\x00" + string(compactJSON(pc.model.Args))
	failed := pc.invalid != nil || (res.Err != nil && res.Wait == nil)
	if !failed {
		delete(r.fails, key)
		return ""
	}
	r.fails[key]++
	if r.fails[key] < FailureLimit {
		return ""
	}
	delete(r.fails, key)
	why := pc.call.Tool + " failed " + fmt.Sprint(FailureLimit) + " times in a row with the same arguments"
	last := ""
	if pc.invalid != nil {
		last = pc.invalid.Error()
	} else {
		last = res.Err.Error()
	}
	r.emitError("%s; the turn is stopped. Last error: %s. Advise or resume to go on.", why, last)
	return why
}

// resultText is what the model reads of a result.
func resultText(res game.Result) string {
	var b strings.Builder
	switch {
	case res.Unknown:
		b.WriteString("outcome unknown: the response was lost; observe before acting")
	case res.Err != nil:
		b.WriteString(res.Err.Error())
		if len(res.Err.Data) > 0 {
			b.WriteString(" ")
			b.Write(compactJSON(res.Err.Data))
		}
	case res.Output == "":
		b.WriteString("ok")
	default:
		b.WriteString(res.Output)
	}
	if res.Wait != nil {
		fmt.Fprintf(&b, "\nThe game asks to wait until %s (%s); the runner waits before your next step.",
			res.Wait.Until.UTC().Format(time.RFC3339), res.Wait.Reason)
	}
	return b.String()
}

// uniqueID returns the brain's call id, or a fresh one when it is empty or was already
// used in this session (journal records are keyed by it).
func (r *Runner) uniqueID(id string, i int) string {
	for n := 0; ; n++ {
		cand := id
		if cand == "" || n > 0 {
			cand = fmt.Sprintf("call_s%d_%d", r.step, i)
			if n > 1 {
				cand += fmt.Sprintf("_%d", n)
			}
		}
		if !r.usedIDs[cand] {
			if recs, err := r.cfg.Session.CallRecords(cand); err != nil || len(recs) == 0 {
				r.usedIDs[cand] = true
				return cand
			}
		}
	}
}

// showArgs returns args as valid JSON for events: malformed arguments become a JSON
// string holding what the brain sent.
func showArgs(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(args) {
		return compactJSON(args)
	}
	s, _ := json.Marshal(string(args))
	return s
}

func compactJSON(v json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

// problemsOf lists a validation error's problems; an unknown tool is one problem.
func problemsOf(err error) []game.Problem {
	var ve *game.ValidationError
	var ue *game.UnknownToolError
	switch {
	case errors.As(err, &ve):
		return ve.Problems
	case errors.As(err, &ue):
		p := game.Problem{Path: "tool", Expected: "one of " + strings.Join(ue.Valid, ", "), Got: fmt.Sprintf("%q", ue.Name)}
		if len(ue.Near) > 0 {
			p.Hint = "did you mean " + strings.Join(ue.Near, " or ") + "?"
		}
		return []game.Problem{p}
	}
	return []game.Problem{{Path: "arguments", Expected: "a valid call", Got: err.Error()}}
}

// argsDiff says field by field what an edit changed: `field: old → new`.
func argsDiff(oldArgs, newArgs json.RawMessage) string {
	var o, n map[string]json.RawMessage
	if json.Unmarshal(oldArgs, &o) != nil {
		return fmt.Sprintf("arguments %s → %s", showArgs(oldArgs), compactJSON(newArgs))
	}
	if json.Unmarshal(newArgs, &n) != nil {
		return fmt.Sprintf("arguments %s → %s", compactJSON(oldArgs), showArgs(newArgs))
	}
	var changes []string
	for _, k := range sortedUnion(o, n) {
		ov, inO := o[k]
		nv, inN := n[k]
		os, ns := "(absent)", "(absent)"
		if inO {
			os = string(compactJSON(ov))
		}
		if inN {
			ns = string(compactJSON(nv))
		}
		if os != ns {
			changes = append(changes, fmt.Sprintf("%s: %s → %s", k, os, ns))
		}
	}
	if len(changes) == 0 {
		return "nothing changed"
	}
	return strings.Join(changes, "; ")
}
