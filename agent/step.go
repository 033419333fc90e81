package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
)

// MaxArgsBytes is the largest arguments object a call may carry (16 KiB). A bigger one
// is refused before the gate, like any invalid call, and the model is told the limit:
// no tool needs that much, and a runaway model must not fill the journal or the screen.
const MaxArgsBytes = 16 << 10

// stepOutcome is what the loop does after a step.
type stepOutcome struct {
	wait       *game.Wait // sleep, then go on with the turn
	endTurn    string     // non-empty: the turn is over, for this reason
	idleUntil  time.Time  // when the turn is over: the game has nothing to do until then
	idleReason string
	noCount    bool // the step did not get as far as the world (observation failed)
	prose      bool // the model answered without calls
}

// doStep runs one step: observe, reason, then the batch of calls through the pipeline.
// A step begins (gets its number, counts toward MaxSteps) once the world is observed:
// an observation that fails (after the game's own retries) ends the turn without one.
func (r *Runner) doStep() stepOutcome {
	r.setState(Running, "")
	obs, err := r.observe()
	if err != nil {
		if r.ctx.Err() == nil {
			r.emitError("observing %s: %v", r.cfg.Game.Info().Name, err)
		}
		return stepOutcome{endTurn: "the game could not be observed", noCount: true}
	}
	if r.drain(); r.at.paused || r.faults.stopping {
		// A pause or stop that came while the world was observed: the step has not
		// begun (no model call, no proposal), play stops at this boundary.
		return stepOutcome{noCount: true}
	}
	r.tools.refresh() // observing is when a game reads its catalogue again
	// The world the model is shown: a trigger from before it is in what the model reads.
	// (The world observed after a call or a move is the screen's, not the model's.)
	r.trig.saw(obs, r.cfg.Now())
	r.at.step++
	r.at.runSteps++
	r.jr.step(r.at.step)
	r.emit(Event{Type: EventStep, Text: fmt.Sprintf("step %d", r.at.step)})
	r.emit(Event{Type: EventObservation, Observation: &obs})
	r.saveState() // the world this step observed, for a fork from here (notes.Session.StateAt)
	if r.cfg.StepObserved != nil {
		r.cfg.StepObserved(r.at.step)
	}

	advice := r.prompt.takeAdvice()
	triggerText, triggers := r.trig.take()
	if len(advice)+len(triggers) > 0 {
		r.calls.loops.reset() // new input: a call repeated before it may now answer otherwise
	}
	// Advice, triggers and notes reach the model here: none of them carries a secret on.
	cur := stepRecord{n: r.at.step, advice: r.scrub.texts(advice)}
	cur.input, cur.full = r.prompt.input(r.at.step, obs, cur.advice, triggerText)
	cur.input, cur.full = r.scrub.text(cur.input), r.scrub.text(cur.full)
	cur.moves = len(r.prompt.sentMoves)
	msgs := r.prompt.prompt(cur, r.tools.systemIndex())
	chars := promptChars(msgs)
	if ib, ok := r.cfg.Brain.(InstantBrain); !ok || !ib.Instant() {
		r.flush() // the step and the world are on screen while the model thinks
		if r.fatal != nil {
			return stepOutcome{} // a journal that cannot be written spends no model call
		}
	}
	reply, err := r.cfg.Brain.Next(r.ctx, Request{
		Messages: msgs, Tools: r.tools.cat.Sent(), Observation: obs, OnDelta: r.delta,
	})
	if err != nil {
		// The advice and the triggers never reached the model: keep them for the next step.
		r.prompt.giveBack(advice)
		r.trig.giveBack(triggers)
		// The world and notes it was shown never reached it either: the next step
		// shows them whole.
		r.prompt.forget()
		if r.ctx.Err() == nil {
			r.emitError("the model (%s) failed: %v", r.cfg.Brain.Name(), err)
		}
		return stepOutcome{endTurn: "the model failed", idleUntil: obs.IdleUntil, idleReason: obs.IdleReason}
	}
	u := reply.Usage
	u.PromptChars = chars
	r.emitAll([]Event{{Type: EventUsage, Usage: &u}})
	reply.Text = r.scrub.text(reply.Text) // a secret the model wrote goes nowhere, the next request included
	said, unread := replyEvents(reply, r.scrub)
	for _, u := range unread {
		r.prompt.notice(unreadNotice + u)
	}
	r.emitAll(said)
	rec := cur
	rec.text = reply.Text
	rec.thinking = signedThinking(reply.Thinking)
	if len(reply.Calls) == 0 {
		r.prompt.done(rec)
		return stepOutcome{endTurn: "the model ended its turn", prose: true, idleUntil: obs.IdleUntil, idleReason: obs.IdleReason}
	}
	b := r.propose(reply.Calls)
	r.prompt.open = &rec // a question asked while the calls are on their way is answered after them
	if !r.runBatch(b) {
		r.prompt.open = nil
		return stepOutcome{}
	}
	rec.calls, rec.results = b.history()
	out, said, notices := r.calls.outcome(b)
	for _, n := range notices {
		r.prompt.notice(n)
	}
	r.emitAll(said)
	if r.at.paused { // a loop (loop.go) or the person: play pauses now, not after a wait
		out.wait, out.endTurn = nil, ""
	}
	r.prompt.done(rec)
	return out
}

// replyEvents is what the model's reply (its text already scrubbed) tells the reader:
// the brain's notices, the tool calls written as text that could not be read (also
// returned, for the model's next input), its thinking and its text.
func replyEvents(reply Reply, s scrubber) (evs []Event, unread []string) {
	for _, n := range reply.Notices {
		evs = append(evs, errorEvent("%s", s.text(n)))
	}
	for _, u := range reply.Unread {
		u = s.text(u)
		evs = append(evs, errorEvent("%s", u))
		unread = append(unread, u)
	}
	if t := s.text(thinkingText(reply.Thinking)); t != "" {
		evs = append(evs, Event{Type: EventThinking, Text: t})
	}
	if reply.Text != "" {
		evs = append(evs, Event{Type: EventText, Text: reply.Text})
	}
	return evs, unread
}

// observe asks the game for the world, under the call deadline, scrubbed of secrets.
func (r *Runner) observe() (game.Observation, error) {
	a := gameCall(r, r.cfg.Game.Observe)
	if !a.cut.none() {
		return game.Observation{}, errors.New(a.cut.why() + " (the game was asked to cancel)")
	}
	if a.err != nil {
		return a.v, errors.New(r.scrub.text(a.err.Error()))
	}
	return r.scrub.observation(a.v), nil
}

// delta forwards streamed text, scrubbed (a secret cut between two pieces is not
// caught here; the whole text event is scrubbed whole). An instant brain is asked before
// the step is committed: when it speaks before answering (the autopilot says what it
// waits for), the step goes out first, so that its words never come before the step they
// belong to.
func (r *Runner) delta(text string) {
	if text == "" {
		return
	}
	if ib, ok := r.cfg.Brain.(InstantBrain); ok && ib.Instant() && r.jr.pending() {
		r.flush()
	}
	r.emit(Event{Type: EventTextDelta, Text: r.scrub.text(text)})
}

// propose admits the model's calls, dry-runs those that wait for a person, and emits
// them (with the automatic decisions).
func (r *Runner) propose(calls []ToolCall) *batch {
	b := &batch{}
	for i, tc := range calls {
		id := r.calls.uniqueID(tc.ID, r.at.step, i)
		if tc.ID == "" {
			tc.ID = id
		}
		b.calls = append(b.calls, r.admit(id, tc, b.earlierToRun(len(b.calls)) == 0))
	}
	for i := range b.calls {
		if !b.calls[i].simulated {
			r.dryRun(b, i)
		}
	}
	for _, pc := range b.calls {
		call := pc.call
		r.emit(Event{Type: EventProposed, Call: &call})
		if pc.decided != nil {
			r.emit(Event{Type: EventDecision, Decision: pc.decided})
		}
	}
	return b
}

// admit validates a call once and gates it. An invalid call is marked so and never
// asks; a valid one gets its automatic decision or waits for a person (Send may then
// decide it). A call that a rule with a condition may cover is gated on its dry run:
// now when it is next to run (now), otherwise when its turn comes (deferred), so that
// the prediction is made on the world the earlier calls leave. Only a deny without a
// condition, which nothing overrides, decides a deferred call at once.
func (r *Runner) admit(id string, tc ToolCall, now bool) *pendingCall {
	pc := &pendingCall{model: tc, call: Call{ID: id, Tool: tc.Tool, Args: r.scrub.json(showArgs(tc.Args)), Kind: game.Unknown, FromText: tc.FromText, Why: r.scrub.text(tc.Why)}}
	pc.model.Args = r.scrub.json(tc.Args) // the model's own call, as the next request carries it
	if t, err := r.tools.registry().Lookup(tc.Tool); err == nil {
		pc.tool = t
		pc.call.Kind = t.Kind
	}
	v, err := r.tools.validate(tc.Tool, tc.Args)
	if note := r.tools.deferredNote(tc.Tool, err != nil); note != "" && err != nil {
		err = fmt.Errorf("%w\n%s", err, note)
	}
	r.toolsSaid()
	if err != nil {
		pc.invalid = err
		pc.call.Problems = problemsOf(err)
		return pc
	}
	pc.valid = v
	pc.call.Args = v.Args()
	r.gate.open(r.policy.seat, pc.call, pc.tool)
	if pc.tool.DryRun && r.policy.conditional(pc.call.Tool) {
		if !now {
			if d := r.policy.decide(pc.call, pc.tool.Kind, pc.valid.Args()); d != nil && d.Decision == Veto {
				r.settle(pc, d, nil)
				return pc
			}
			pc.deferred = true
			pc.call.Deferred = true
			return pc
		}
		pc.call.Simulation = r.simulate(pc)
		pc.simulated = true
	}
	if d := r.policy.decide(pc.call, pc.tool.Kind, pc.valid.Args()); d != nil {
		r.settle(pc, d, nil)
		return pc
	}
	pc.call.NeedsOK = true
	r.gate.ask(r.policy.seat, pc.call, r.cfg.Now())
	return pc
}

// settle decides pc through the gate, the one place a call is settled: false, said to
// the person, when another decision came first. A person's decision comes with the
// claim it made when it was sent (settleAsSent); a rule's or the policy's with none.
func (r *Runner) settle(pc *pendingCall, d *Decision, claim *Decision) bool {
	if err := r.gate.settle(r.policy.seat, *d, claim); err != nil {
		r.emitError("decide: %v", err)
		return false
	}
	pc.decided = d
	return true
}

// dryRun refreshes the dry run of b.calls[i] if it waits for a person and its tool can
// be simulated, and reports whether the prediction changed. It predicts on the world as
// it is now, after the calls that already ran. While an earlier Act call of the batch
// has not run yet (undecided, or approved and queued), a predicted failure is shown as
// a warning: that call may remove the cause, and the dry run is repeated once it ran.
func (r *Runner) dryRun(b *batch, i int) bool {
	pc := b.calls[i]
	if !pc.waiting() || !pc.tool.DryRun || pc.invalid != nil {
		return false
	}
	sim := r.simulate(pc)
	if sim != nil && sim.Fails {
		if n := b.earlierToRun(i); n > 0 {
			sim.Fails = false
			sim.Warning = fmt.Sprintf("as things stand now this would fail; %d earlier call(s) of this step have not run yet and may change that (the dry run is repeated after each)", n)
		}
	}
	if sameSim(sim, pc.call.Simulation) {
		return false
	}
	pc.call.Simulation = sim
	return true
}

// simulate is pc's dry run on the world as it is now, scrubbed: nil when the tool has
// none or the game cannot say; a dry run that could not be made says so in its summary
// (and predicts neither success nor failure).
func (r *Runner) simulate(pc *pendingCall) *game.Simulation {
	if !pc.tool.DryRun || pc.invalid != nil {
		return nil
	}
	reg := r.tools.registry()
	a := gameCall(r, func(ctx context.Context) (simulated, error) {
		s, ok, err := reg.SimulateValidated(ctx, pc.valid)
		return simulated{s, ok}, err
	})
	s, ok, err := a.v.sim, a.v.ok, a.err
	switch {
	case !a.cut.none():
		return &game.Simulation{Summary: "dry run failed: " + a.cut.why()}
	case err != nil:
		return &game.Simulation{Summary: r.scrub.text("dry run failed: " + err.Error())}
	case ok:
		s.Summary, s.Warning = r.scrub.text(s.Summary), r.scrub.text(s.Warning)
		s.Effects = maps.Clone(s.Effects)
		return &s
	}
	return nil
}

// simulated is a dry run's answer, as gameCall carries it.
type simulated struct {
	sim game.Simulation
	ok  bool
}

func sameSim(a, b *game.Simulation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Summary == b.Summary && a.Fails == b.Fails && a.Warning == b.Warning && maps.Equal(a.Effects, b.Effects)
}

// runBatch takes b's calls in the model's order: each runs as soon as it and every
// call before it are decided (vetoed and invalid calls are answered without running).
// After each Act call that ran, the world is observed again and the calls still waiting
// get a fresh dry run (tool_updated when it changed). Decisions on later calls are taken
// while an earlier one waits. It returns false when the runner stops (or fails) first:
// approved calls that did not run are then closed as not executed, undecided ones stay
// pending for the next run. A stop also keeps approved calls that have not run from
// running.
func (r *Runner) runBatch(b *batch) bool {
	r.calls.batch = b
	defer func() {
		r.calls.batch = nil
		r.gate.close(r.policy.seat)
	}()
	r.afterCall() // commands that came during the dry runs of the proposal
	for _, pc := range b.calls {
		r.drain()            // decisions already sent (the screen's approve-all) count before the next call
		r.servePerson(false) // a question waits for the step boundary
		if pc.deferred && pc.invalid == nil && r.ctx.Err() == nil && !r.faults.stopping {
			// Every call before it has run or been answered: gate it now, on a fresh
			// dry run; a rule decides it (decision), or it is put to the person
			// (tool_updated with needs_ok).
			pc.deferred, pc.call.Deferred = false, false
			pc.call.Simulation, pc.simulated = r.simulate(pc), true
			if d := r.policy.decide(pc.call, pc.tool.Kind, pc.valid.Args()); d != nil {
				if r.settle(pc, d, nil) {
					r.emit(Event{Type: EventDecision, Decision: d})
				}
			} else {
				pc.call.NeedsOK = true
				r.gate.ask(r.policy.seat, pc.call, r.cfg.Now())
				call := pc.call
				r.emit(Event{Type: EventToolUpdated, Call: &call})
			}
		}
		if pc.waiting() {
			why := fmt.Sprintf("%d call(s) wait for a decision", b.open())
			if t := r.policy.failSafeText(); t != "" {
				why += " (" + t + ")"
			}
			r.setState(Deciding, why)
			r.waitFor(time.Time{}, func() bool { return !pc.waiting() })
		}
		if r.faults.stopping || r.fatal != nil || r.ctx.Err() != nil {
			r.emitAll(b.abandon())
			return false
		}
		r.setState(Running, "")
		r.execute(pc)
		if r.fatal != nil || r.ctx.Err() != nil {
			return false
		}
		if r.faults.stopping { // stopped while the call ran: the calls after it do not run
			r.emitAll(b.abandon())
			return false
		}
		switch {
		case pc.ran && pc.tool.Kind == game.Act:
			r.repredict(b, true)
		case pc.tool.Kind == game.Act && pc.decided != nil && pc.decided.Decision == Veto:
			// Nothing changed in the world, but the calls after it no longer wait for it:
			// a failure it might have removed is now a plain predicted failure.
			r.repredict(b, false)
		}
	}
	return true
}

// repredict dry-runs again the calls of b still waiting and sends tool_updated for each
// whose prediction changed. After an Act call that ran (afterAct), it first shows the
// world as the call left it; when it cannot be observed, nothing is predicted again.
func (r *Runner) repredict(b *batch, afterAct bool) {
	if afterAct {
		r.saveState()
		obs, err := r.observe()
		if err != nil {
			if r.ctx.Err() == nil {
				r.emitError("observing %s after a call: %v", r.cfg.Game.Info().Name, err)
			}
			return
		}
		r.emit(Event{Type: EventObservation, Observation: &obs})
		r.drain() // a call decided meanwhile needs no new dry run
	}
	for i, pc := range b.calls {
		if r.dryRun(b, i) {
			call := pc.call
			r.emit(Event{Type: EventToolUpdated, Call: &call})
		}
	}
}

// decide applies a person's decision to a waiting call. An edit's arguments were
// validated by Send (c.valid); approving a revised call is an edit with the revised
// arguments, so the model is told what changed.
func (r *Runner) decide(c command) {
	pc, _ := r.calls.waitingCall(c.CallID)
	if pc != nil && c.Decision == Edit && c.valid.Args() == nil {
		r.gate.release(r.policy.seat, c.CallID, c.claim)
		r.emitError("decide: edit of call %q came without validated arguments; nothing changed", c.CallID)
		return
	}
	d := &Decision{CallID: c.CallID, Decision: c.Decision, Reason: c.Reason, By: "person", Via: c.Via}
	switch {
	case pc == nil:
		r.emitError("decide: %v", r.gate.refusal(r.policy.seat, c.CallID))
		return
	case c.Decision == Edit:
		d.Args = c.valid.Args()
	case c.Decision == Approve && pc.revised:
		d.Decision = Edit
		d.Args = pc.call.Args
	}
	if !r.settle(pc, d, c.claim) {
		return
	}
	if c.Decision == Edit {
		pc.valid = c.valid
		pc.call.Args = c.valid.Args()
	}
	r.emit(Event{Type: EventDecision, Decision: d})
}

// revise replaces a waiting call's arguments (validated by Send) without deciding it,
// dry-runs it again and tells the reader with tool_updated.
func (r *Runner) revise(c command) {
	pc, i := r.calls.waitingCall(c.CallID)
	if pc == nil || c.valid.Args() == nil {
		r.emitError("revise: no call %q is waiting for a decision", c.CallID)
		return
	}
	pc.valid = c.valid
	pc.call.Args = c.valid.Args()
	pc.revised = true
	pc.call.Simulation = nil
	r.dryRun(r.calls.batch, i)
	r.gate.ask(r.policy.seat, pc.call, r.cfg.Now())
	call := pc.call
	r.emit(Event{Type: EventToolUpdated, Call: &call})
}

// execute runs an approved call, or answers a vetoed or invalid one, and sets pc.res
// (scrubbed) and the text the model reads. A call that changes anything runs only once its
// decision is durable: when the decision is still in the phase being built, the phase is
// committed first (with tool_started). Once it is durable, as for the later calls of an
// auto-approved batch, the call runs at once and its tool_started rides with the next
// commit: a crash then leaves a durable decision without a result, which resume reports
// as an unknown outcome and never replays. A Read call changes nothing and never waits
// for a commit.
func (r *Runner) execute(pc *pendingCall) {
	call := pc.call
	o := outcome{invalid: pc.invalid, decision: pc.decided, modelArgs: pc.model.Args}
	switch {
	case pc.invalid != nil:
		pc.res = game.Result{Err: &game.Error{Message: "invalid call, not executed: " + pc.invalid.Error()}}
		r.emit(Event{Type: EventResult, Call: &call, Result: &pc.res})
	case pc.decided.Decision == Veto:
	default:
		start := Event{Type: EventToolStart, Call: &call}
		if call.By == ByPerson {
			start.Via = pc.decided.Via // where the person played it
		}
		r.emit(start)
		// An Act call's start is durable before it runs: a crash during it is then
		// reported as "outcome unknown" (it may have happened), never as "not executed".
		// A note call changes only the notebook, whose edits are committed with the
		// phase that holds its decision: a crash loses both or neither. It waits for a
		// commit only when a person decided it, so that their decision is never lost;
		// a rule's or the policy's rides with the next commit (issue 48: one commit a
		// step fewer for the notes a model writes before it acts).
		if pc.tool.Kind == game.Act || (pc.tool.Kind != game.Read && r.jr.personDecisionPending(pc.call.ID)) {
			r.flush()
			if r.fatal != nil {
				return
			}
		}
		// A game's call runs under the call deadline (gameCall); one cut short (the
		// deadline, a stop, an interrupt) is an unknown outcome saying why, journaled so
		// that a resumed session never runs it again. The runner's own tools (the
		// notebook's, wait, load_tools) run here, on the Run goroutine.
		reg := r.tools.registry()
		a := answer[game.Result]{}
		if reg.FromGame(pc.call.Tool) {
			a = gameCall(r, func(ctx context.Context) (game.Result, error) { return reg.CallValidated(ctx, pc.valid) })
		} else {
			a.v, a.err = reg.CallValidated(r.ctx, pc.valid)
		}
		switch {
		case !a.cut.none():
			pc.res = a.cut.result()
		case a.err != nil:
			pc.res = r.scrub.result(game.Result{Err: &game.Error{Message: "the game could not be asked: " + a.err.Error()}})
		default:
			pc.res = r.scrub.result(a.v)
		}
		r.toolsSaid()
		if r.fatal != nil {
			return // nothing more is journaled: a resumed session reports it as unknown
		}
		pc.ran = true
		r.emit(Event{Type: EventResult, Call: &call, Result: &pc.res})
		if pc.res.Unknown {
			r.emit(pc.unknownEvent())
		}
		o.result = &pc.res
	}
	pc.text = o.text()
}

// showArgs returns args as valid JSON for events: malformed arguments become a JSON
// string holding what the brain sent.
func showArgs(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(args) {
		return CompactJSON(args)
	}
	s, _ := json.Marshal(string(args))
	return s
}

// CompactJSON writes JSON on one line without insignificant space; anything that is
// not one JSON value (an empty string included) is returned as it is.
func CompactJSON(v json.RawMessage) json.RawMessage {
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
	var se *SecretError
	switch {
	case errors.As(err, &se):
		return []game.Problem{se.problem()}
	case errors.As(err, &ve):
		return ve.Problems
	case errors.As(err, &ue):
		p := game.Problem{Path: "tool", Expected: ue.Expected(), Got: fmt.Sprintf("%q", ue.Name)}
		if len(ue.Near) > 0 {
			p.Hint = "did you mean " + strings.Join(ue.Near, " or ") + "?"
		}
		return []game.Problem{p}
	}
	return []game.Problem{{Path: "arguments", Expected: "a valid call", Got: err.Error()}}
}
