package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// What the Runner does with the person's moves and questions (person.go has the part
// that keeps them): each is taken at a safe point, where no game call or model request
// is in flight.

// playMoves plays the person's moves that came since the last safe point, in order,
// each through the same path as an approved call: the deny rules (a rule with a
// condition on the move's dry run), the spend caps, then execute (tool_started and
// tool_result marked By "person", journaled, an Act move durable before it runs); the
// world is observed after an Act move, and calls waiting for a decision get their dry
// run again on it, still waiting. The model reads each move at its next request.
func (r *Runner) playMoves() {
	for c, ok := r.person.nextMove(); ok; c, ok = r.person.nextMove() {
		if r.fatal != nil {
			return
		}
		if r.faults.stopping || r.ctx.Err() != nil {
			r.emitError("play %s: not played: the run stops", c.Tool)
			continue
		}
		pc := r.person.move(c, r.tools.registry(), r.calls.uniqueID(moveID(r.at.step, r.person.n+1), r.at.step, r.person.n))
		if pc.tool.DryRun && r.policy.conditional(pc.call.Tool) {
			pc.call.Simulation = r.simulate(pc)
		}
		// Approval rules do not gate the person's moves, but a deny rule is the person's
		// own word against this very move: it takes force to play it.
		if d := r.policy.decide(pc.call, pc.tool.Kind, pc.valid.Args()); d != nil && d.Decision == Veto && d.By == "rule" && !c.Force {
			r.emitError("play %s refused, nothing ran: the rule %q denies it (%s); send it again with \"force\": true to play it all the same",
				pc.call.Tool, d.Rule, d.Reason)
			continue
		}
		if capStop := r.play.capReached(); capStop != "" {
			r.emitError("play %s refused, nothing ran: %s", pc.call.Tool, capStop)
			continue
		}
		r.execute(pc)
		if !pc.ran {
			return // the journal failed or the run stopped while it ran
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
	}
}

// answerQuestions asks the brain each question the person asked since the last safe
// point: the conversation as it stands (the step whose calls are on their way too,
// with the results so far), then the question, with the same tools and the tool
// choice "none", so that the provider's cache serves the prefix. The answer is a reply
// event; a call in it is dropped, and the person told. The question and its answer stay
// in the conversation. Play does not resume: an idle, paused or waiting runner goes on
// waiting.
func (r *Runner) answerQuestions() {
	for q, ok := r.person.nextQuestion(); ok; q, ok = r.person.nextQuestion() {
		if r.faults.stopping || r.fatal != nil || r.ctx.Err() != nil {
			return
		}
		if capStop := r.play.capReached(); capStop != "" {
			r.emitError("ask: not asked: %s", capStop)
			continue
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
			continue
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

// personBrain stands in for the brain of a league seat of the person's own
// (Config.Person): the person holds the wheel for good, so it is never asked.
type personBrain struct{}

func (personBrain) Name() string { return "person" }

func (personBrain) Next(context.Context, Request) (Reply, error) {
	return Reply{}, fmt.Errorf("a seat of the person's own has no model to ask")
}
