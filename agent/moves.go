package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// What the Runner does with the person's moves and questions (person.go has the part
// that keeps them): each is taken at a safe point, where no game call or model request
// is in flight.

// servePerson takes what the person asked for since the last safe point: their moves,
// in order, and, when questions is set, their questions (a question that came while the
// model answered waits for the step boundary: not between the calls of a batch).
func (r *Runner) servePerson(questions bool) {
	for c, ok := r.person.nextMove(); ok; c, ok = r.person.nextMove() {
		if r.fatal != nil {
			r.person.dropped("") // the journal failed: nothing more is said or done
			return
		}
		if r.faults.stopping || r.ctx.Err() != nil {
			r.emitError("play %s: not played: the run stops", c.Tool)
			continue
		}
		if !playMove(r, c) {
			return
		}
	}
	for q, ok := r.person.nextQuestion(); questions && ok; q, ok = r.person.nextQuestion() {
		if r.faults.stopping || r.fatal != nil || r.ctx.Err() != nil {
			r.emitAll(r.person.dropped("the run stops")) // nothing waits on: the waits end too
			r.emitError("ask %q: not asked: the run stops", clip(oneLine(q), 60))
			return
		}
		answerQuestion(r, q)
	}
}

// playMove plays one of the person's moves through the same path as an approved call:
// the deny rules (a rule with a condition on the move's dry run), the spend caps, then
// execute (tool_started and tool_result marked By "person", journaled, an Act move
// durable before it runs); the world is observed after an Act move, and calls waiting
// for a decision get their dry run again on it, still waiting. The model reads the move
// at its next request. False when the run cannot go on (its journal failed, it stopped
// while the move ran).
func playMove(r *Runner, c command) bool {
	pc := r.person.move(c, r.tools.registry(), r.calls.uniqueID(moveID(r.at.step, r.person.n+1), r.at.step, r.person.n))
	if pc.tool.DryRun && r.policy.conditional(pc.call.Tool) {
		pc.call.Simulation = r.simulate(pc)
	}
	// Approval rules do not gate the person's moves, but a deny rule is the person's
	// own word against this very move: it takes force to play it.
	if d := r.policy.decide(pc.call, pc.tool.Kind, pc.valid.Args()); d != nil && d.Decision == Veto && d.By == "rule" && !c.Force {
		r.emitError("play %s refused, nothing ran: the rule %q denies it (%s); send it again with \"force\": true to play it all the same",
			pc.call.Tool, d.Rule, d.Reason)
		return true
	}
	if capStop := r.play.capReached(); capStop != "" {
		r.emitError("play %s refused, nothing ran: %s", pc.call.Tool, capStop)
		return true
	}
	r.execute(pc)
	if !pc.ran {
		return false // the journal failed or the run stopped while it ran
	}
	r.prompt.played(pc, r.person.holds())
	if pc.tool.Kind == game.Act {
		r.calls.loops.reset() // the world changed: a call the model repeated may now answer otherwise
		b := r.calls.batch
		if b == nil {
			b = &batch{}
		}
		r.repredict(b, true)
	}
	return true
}

// answerQuestion asks the brain the person's question q: the conversation as it stands
// (the step whose calls are on their way too, with the results so far), then the
// question, with the same tools and the tool choice "none", so that the provider's
// cache serves the prefix. The answer is a reply event; a call in it is dropped, and
// the person told. The question and its answer stay in the conversation. Play does not
// resume: an idle, paused or waiting runner goes on waiting.
func answerQuestion(r *Runner, q string) {
	if capStop := r.play.capReached(); capStop != "" {
		r.emitError("ask: not asked: %s", capStop)
		return
	}
	rec := r.prompt.question(r.at.step, r.scrub.text(q))
	var open *stepRecord
	if b := r.calls.batch; b != nil && r.prompt.open != nil {
		o := *r.prompt.open
		o.calls, o.results = b.history()
		for i := range o.results {
			if o.results[i].text == "" {
				o.results[i].text = brain.NotRunYet + b.calls[i].state()
			}
		}
		open = &o
	}
	msgs := r.prompt.ask(open, rec, r.tools.systemIndex())
	r.flush() // the question is on screen and on disk while the model thinks
	if r.fatal != nil {
		return
	}
	reply, err := r.cfg.Brain.Next(r.ctx, Request{Messages: msgs, Tools: r.tools.cat.Sent(),
		OnDelta: r.delta, ToolChoice: brain.ToolChoiceNone})
	if err != nil {
		r.prompt.giveBackMoves()
		if r.ctx.Err() == nil {
			r.emitError("the model (%s) could not answer the question: %v", r.cfg.Brain.Name(), r.scrub.text(err.Error()))
		}
		return
	}
	u := reply.Usage
	u.PromptChars = promptChars(msgs)
	r.emitAll([]Event{{Type: EventUsage, Usage: &u}})
	text := r.scrub.text(reply.Text)
	said, _ := replyEvents(Reply{Notices: reply.Notices, Thinking: reply.Thinking}, r.scrub)
	r.emitAll(said)
	if n := len(reply.Calls) + len(reply.Unread); n > 0 {
		r.emit(Event{Type: EventNotice, Text: droppedText(reply)})
	}
	if strings.TrimSpace(text) == "" {
		text = "(the model answered with no words)"
	}
	r.emit(Event{Type: EventReply, Text: text})
	rec.text = text
	rec.thinking = signedThinking(reply.Thinking)
	r.prompt.answered(rec, open != nil)
}

// droppedText tells the person that an answer to their question held calls, which
// were dropped: an answer to a question runs nothing.
func droppedText(reply Reply) string {
	var names []string
	for _, c := range reply.Calls {
		names = append(names, c.Tool)
	}
	if len(reply.Unread) > 0 {
		names = append(names, fmt.Sprintf("%d written as text", len(reply.Unread)))
	}
	return fmt.Sprintf("the answer to your question held %d tool call(s) (%s); they were dropped: an answer to a question runs nothing",
		len(reply.Calls)+len(reply.Unread), strings.Join(names, ", "))
}

// state says where a call of a batch stands, for a question asked while the batch
// waits: what the model reads in place of a result not there yet.
func (pc *pendingCall) state() string {
	switch {
	case pc.waiting():
		return "it waits for the person's decision"
	case pc.deferred:
		return "a rule decides it when its turn comes"
	case pc.decided != nil:
		return "it is decided and runs when its turn comes"
	}
	return "it waits for its turn"
}

// PersonBrain stands in for the brain of a league seat of the person's own
// (Config.Person): the person holds the wheel for good, so it is never asked.
type PersonBrain struct{}

// Name returns "person".
func (PersonBrain) Name() string { return "person" }

// Next refuses: nobody but the person plays this seat.
func (PersonBrain) Next(context.Context, Request) (Reply, error) {
	return Reply{}, fmt.Errorf("a seat of the person's own has no model to ask")
}

// MovePreview is the person's move checked and dry-run before it is played: what a
// screen's move line shows as it is typed.
type MovePreview struct {
	// Problems are why the move would be refused (its arguments, an unknown tool, one of
	// the runner's own tools); none when play would take it.
	Problems []game.Problem
	// Simulation is its dry run on the world as it is now; nil when the tool has none or
	// the game cannot say (a dry run that failed says so in its summary).
	Simulation *game.Simulation
}

// Previewer previews the person's moves: a runner, or a league (by seat).
type Previewer interface {
	Preview(ctx context.Context, seat, tool string, args json.RawMessage) MovePreview
}

var _ Previewer = (*Runner)(nil)

// Preview checks the move tool(args) as play would and dry-runs it on the world as it
// is, under the call deadline; nothing runs and nothing is journaled. It runs on the
// caller's goroutine, beside the Run goroutine: a game's dry run only reads its world,
// under the game's own lock (a league's seats read one world from several goroutines
// the same way). seat is a league's; a runner ignores it. The deny rules are the
// caller's to apply (the screen knows them: rules_changed and its Info).
func (r *Runner) Preview(ctx context.Context, _, tool string, args json.RawMessage) MovePreview {
	c, err := r.person.check(command{Command: Command{Cmd: CmdPlay, Tool: tool, Args: args}}, r.tools)
	if err != nil {
		return MovePreview{Problems: problemsOf(err)}
	}
	reg := r.tools.registry()
	if t, err := reg.Lookup(tool); err != nil || !t.DryRun {
		return MovePreview{}
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.callTimeout())
	defer cancel()
	s, ok, err := reg.SimulateValidated(ctx, c.valid)
	switch {
	case err != nil:
		return MovePreview{Simulation: &game.Simulation{Summary: r.scrub.text("dry run failed: " + err.Error())}}
	case !ok:
		return MovePreview{}
	}
	s.Summary, s.Warning = r.scrub.text(s.Summary), r.scrub.text(s.Warning)
	return MovePreview{Simulation: &s}
}
