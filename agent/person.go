package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// The person plays too. Three commands let them: play (their own move, run through the
// same path as an approved call: validated once, journaled, shown, with no proposal and
// no decision, its tool_started and tool_result marked By "person"), take_over (the
// wheel: while the person holds it no model request is made and no autopilot step is
// taken) and ask (a question the model answers in words, with the same tools and the
// tool choice "none", so that its prompt cache serves the conversation).
//
// Nothing runs in the middle of something else: a move or a question waits for the
// next safe point (the runner waiting for a person, a timer or a trigger, the step
// boundary, or the turn of the next call of a batch). A call in flight is never
// interrupted, and calls waiting for a decision stay waiting.
//
// The model learns of the moves at its next request, in that request's last message
// (prompt.go's moves), worded as the person's and never as its own calls: the prompt
// stays append-only.

// personDesk is what the person asked for that has not happened yet, and who holds the
// wheel. It emits nothing and runs nothing: the Runner plays its moves (playMoves) and
// asks its questions (answerQuestions). Owned by the Run goroutine, except seat, which
// is fixed at New and read by Send.
type personDesk struct {
	seat      bool      // a league seat of the person's (Config.Person): no brain, the wheel held for good
	wheel     bool      // the person holds the wheel
	moves     []command // moves waiting for the next safe point
	questions []string  // questions waiting for the next safe point
	n         int       // moves played this run, for their ids
}

// runnerOwnTools are the runner's tools that are no move in the game: the agent's pace
// and its view of the catalogue.
var runnerOwnTools = map[string]bool{ToolWait: true, ToolLoadTools: true, ToolFindTools: true}

// check is Send's check of a person's command: a move's arguments are validated once
// here, with the validator every call and edit goes through (refused with every
// problem, and nothing runs); a person's seat has no agent to ask or hand the wheel to.
func (p *personDesk) check(c command, tb *toolbox) (command, error) {
	switch c.Cmd {
	case CmdAsk:
		if p.seat {
			return c, errors.New("ask: this seat is the person's own: there is no agent to ask")
		}
	case CmdTakeOver:
		if p.seat && !c.On {
			return c, errors.New("take_over: this seat is the person's own: there is no agent to hand the wheel to")
		}
	case CmdPlay:
		if runnerOwnTools[c.Tool] {
			return c, fmt.Errorf("play %s refused: it is the agent's own tool (its pace or its catalogue), not a move in the game", c.Tool)
		}
		args := c.Args
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		v, err := tb.validate(c.Tool, args)
		if err != nil {
			return c, fmt.Errorf("play %s refused, nothing ran: %w", c.Tool, err)
		}
		c.valid = v
	}
	return c, nil
}

// take applies a person's command that changes who plays or waits for a safe point,
// and returns the events that say so; wake is true when the agent must stop waiting
// (the wheel changed hands: an idle turn ends and shows who plays now).
func (p *personDesk) take(c command) (evs []Event, wake bool) {
	switch c.Cmd {
	case CmdPlay:
		p.moves = append(p.moves, c)
	case CmdAsk:
		p.questions = append(p.questions, c.Text)
		evs = append(evs, Event{Type: EventQuestion, Text: c.Text, Via: c.Via})
	case CmdTakeOver:
		if c.On == p.wheel {
			return nil, false
		}
		p.wheel = c.On
		evs = append(evs, wheelEvent(c.On))
		wake = true
	}
	return evs, wake
}

// wheelEvent says who plays now.
func wheelEvent(person bool) Event {
	if person {
		return Event{Type: EventWheel, Plays: PlaysPerson,
			Text: "the person holds the wheel: the agent makes no model request and takes no step until it is handed back; moves and questions go on"}
	}
	return Event{Type: EventWheel, Plays: PlaysAgent,
		Text: "the wheel is handed back: the agent plays, and its next request carries every move the person made meanwhile"}
}

// holds reports whether the person holds the wheel (for good, on their own seat).
func (p *personDesk) holds() bool { return p.wheel || p.seat }

// nextMove returns the oldest move waiting, if any.
func (p *personDesk) nextMove() (command, bool) {
	if len(p.moves) == 0 {
		return command{}, false
	}
	c := p.moves[0]
	p.moves = p.moves[1:]
	return c, true
}

// nextQuestion returns the oldest question waiting, if any.
func (p *personDesk) nextQuestion() (string, bool) {
	if len(p.questions) == 0 {
		return "", false
	}
	q := p.questions[0]
	p.questions = p.questions[1:]
	return q, true
}

// waiting reports whether a move or a question waits for the next safe point.
func (p *personDesk) waiting() bool { return len(p.moves)+len(p.questions) > 0 }

// dropped says what became of the moves and questions still waiting when the run
// stops, and forgets them.
func (p *personDesk) dropped(why string) []Event {
	var evs []Event
	for _, c := range p.moves {
		evs = append(evs, errorEvent("play %s: not played: %s", c.Tool, why))
	}
	for _, q := range p.questions {
		evs = append(evs, errorEvent("ask %q: not asked: %s", clip(oneLine(q), 60), why))
	}
	p.moves, p.questions = nil, nil
	return evs
}

// move makes the person's move c a call on its way through the pipeline: valid (Send
// validated it), decided by its being played, and marked as the person's.
func (p *personDesk) move(c command, reg *game.Registry, id string) *pendingCall {
	p.n++
	pc := &pendingCall{
		call:  Call{ID: id, Tool: c.Tool, Args: c.valid.Args(), Kind: game.Unknown, By: ByPerson},
		model: ToolCall{ID: id, Tool: c.Tool, Args: c.valid.Args()},
		valid: c.valid,
	}
	if t, err := reg.Lookup(c.Tool); err == nil {
		pc.tool = t
		pc.call.Kind = t.Kind
	}
	pc.decided = &Decision{CallID: id, Decision: Approve, By: ByPerson, Via: c.Via}
	return pc
}

// moveID is the candidate id of the person's n-th move of this run at step (the
// pipeline makes it unique in the session).
func moveID(step, n int) string { return fmt.Sprintf("move_s%d_%d", step, n) }

// playedMove is one of the person's moves as the model reads it at its next request.
type playedMove struct {
	tool string
	args json.RawMessage
	text string // the outcome, as the model reads a call's outcome (outcome.go)
	held bool   // played while the person held the wheel
}

// Bounds of the moves one request carries: a long time at the wheel must not flood the
// prompt.
const (
	maxMovesShown    = 30
	maxMoveTextChars = 1000
)

// movesText is the section of the model's next input that tells it what the person
// played since its last request: each move with its result, worded as the person's
// (they are not the model's calls, and are never sent as such).
func movesText(moves []playedMove) string {
	if len(moves) == 0 {
		return ""
	}
	held := false
	for _, m := range moves {
		held = held || m.held
	}
	var b strings.Builder
	b.WriteString("## Moves the person played\n\n")
	if held {
		b.WriteString("The person took the wheel and played these moves themselves while you did not play; they have handed the wheel back to you. These were not your calls; each result is what the game answered:\n")
	} else {
		b.WriteString("The person played these moves themselves since your last answer. These were not your calls; each result is what the game answered:\n")
	}
	if n := len(moves) - maxMovesShown; n > 0 {
		fmt.Fprintf(&b, "(%d earlier moves are not listed)\n", n)
		moves = moves[n:]
	}
	for i, m := range moves {
		fmt.Fprintf(&b, "%d. %s %s → %s\n", i+1, m.tool, clipArgs(m.args), cutText(m.text, maxMoveTextChars, "this result"))
	}
	return strings.TrimRight(b.String(), "\n")
}

// askingText is the user message that asks the model the person's question: the
// moves since its last request first (they are delivered with it), then the question,
// then how to answer.
func askingText(moves []playedMove, q string) string {
	var b strings.Builder
	b.WriteString("# A question from the person\n\n")
	if m := movesText(moves); m != "" {
		b.WriteString(m)
		b.WriteString("\n\n")
	}
	for _, l := range strings.Split(strings.TrimSpace(clip(q, maxAdviceChars)), "\n") {
		b.WriteString("> ")
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString("\nAnswer the person in words: what you are doing and why, as they ask. This answer calls no tool; play goes on from where it stood once you have answered.")
	return b.String()
}

// personPlaysText is the person_plays state's text.
func personPlaysText(seat bool) string {
	if seat {
		return "this seat is the person's own: play your moves"
	}
	return "the person holds the wheel: no model request until it is handed back"
}
