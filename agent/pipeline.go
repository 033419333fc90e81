package agent

import (
	"fmt"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// The pipeline: the calls of a step on their way from the model's reply to their
// results, validate once (admit) → gate → decide → execute → the text for the model
// (step.go drives them). What is here keeps the calls' state and answers questions
// about it; it emits nothing.

// CallJournal is what the pipeline reads of the journal: the records of a call id, so
// that ids stay unique in a session. *notes.Session satisfies it.
type CallJournal interface {
	CallRecords(callID string) ([]notes.Record, error)
}

// pipeline is the calls on their way: the batch now running, the calls failing again
// and again in this turn, and the call ids used in this session. Owned by the Run
// goroutine.
type pipeline struct {
	batch   *batch // the calls on their way through the pipeline; nil between batches
	fails   map[string]int
	loops   loopWatch // identical calls and results since the world changed (loop.go)
	used    map[string]bool
	journal CallJournal
}

func newPipeline(j CallJournal) *pipeline {
	return &pipeline{fails: map[string]int{}, used: map[string]bool{}, journal: j}
}

// pendingCall is one call of a batch on its way through the pipeline:
// validate once (admit) → gate → decide → execute → the text for the model.
type pendingCall struct {
	call    Call     // as the person sees it (Call.ID is unique in the session)
	model   ToolCall // as the brain sent it; its ID answers the brain
	tool    game.Tool
	valid   game.ValidCall // the validated arguments: what runs (an edit or revise replaces it)
	invalid error          // validation failure: never runs, never asks
	revised bool           // a revise command replaced the arguments: approving it is an edit
	// deferred: a rule with a condition may decide it on the world as it is when its
	// turn comes; it is gated then (runBatch), and is not put to the person before.
	deferred  bool
	simulated bool      // its dry run ran when it was gated: propose need not repeat it
	decided   *Decision // nil while waiting
	ran       bool
	res       game.Result
	text      string // what the model reads about the outcome
}

// batch is the calls of one step (or the calls recovered from before a restart).
type batch struct {
	calls []*pendingCall
}

// waiting reports whether pc still waits for a person's decision.
func (pc *pendingCall) waiting() bool { return pc.call.NeedsOK && pc.decided == nil }

// earlierToRun counts the Act calls before i that may still run.
func (b *batch) earlierToRun(i int) int {
	n := 0
	for _, p := range b.calls[:i] {
		if p.invalid == nil && p.tool.Kind == game.Act && !p.ran && (p.decided == nil || p.decided.Decision != Veto) {
			n++
		}
	}
	return n
}

// open counts b's calls waiting for a person.
func (b *batch) open() int {
	n := 0
	for _, pc := range b.calls {
		if pc.waiting() {
			n++
		}
	}
	return n
}

// waitingCall returns the call of the current batch with this id that waits for a
// decision, or nil.
func (p *pipeline) waitingCall(id string) (*pendingCall, int) {
	if p.batch != nil {
		for i, p := range p.batch.calls {
			if p.call.ID == id && p.waiting() {
				return p, i
			}
		}
	}
	return nil, -1
}

// running is the id of the call of the batch now running, if one is: calls run in
// the model's order, so it is the first one decided to run that has not finished.
func (p *pipeline) running() string {
	if p.batch == nil {
		return ""
	}
	for _, pc := range p.batch.calls {
		if pc.ran || pc.invalid != nil || pc.decided != nil && pc.decided.Decision == Veto {
			continue
		}
		if pc.decided != nil {
			return pc.call.ID
		}
		return ""
	}
	return ""
}

// unknownEvent tells the person of a call whose outcome is unknown for a reason the
// runner or the game gave (a deadline, a stop, a lost answer, a server that died).
func (pc *pendingCall) unknownEvent() Event {
	text := pc.res.Output
	if text == "" {
		text = "the response was lost"
	}
	return errorEvent("call %s (%s): %s", pc.call.ID, pc.call.Tool, text)
}

// outcome is what the loop does after batch b ran: sleep until the latest wait a call
// asked for, or end the turn when a call failed FailureLimit times in a row (the person
// then decides what comes next). It returns the events that tell the person (a call
// failing again and again, a loop: the loop event pauses play) and the notices for the
// model's next step (a call it repeats).
func (p *pipeline) outcome(b *batch) (out stepOutcome, said []Event, notices []string) {
	for _, pc := range b.calls {
		if w := pc.res.Wait; w != nil && (out.wait == nil || w.Until.After(out.wait.Until)) {
			wc := *w
			out.wait = &wc
		}
		why, text := p.countFailure(pc)
		if why != "" {
			said = append(said, errorEvent("%s", text))
		}
		if why != "" && out.endTurn == "" {
			out.endTurn = why
		}
		notice, loop := p.watchLoop(pc)
		if notice != "" {
			notices = append(notices, notice)
		}
		if loop != nil {
			said = append(said, *loop)
		}
	}
	if out.endTurn != "" {
		out.wait = nil
	}
	return out, said, notices
}

// abandon returns the results that close, in the journal, calls that were allowed to run but did not because
// the runner stopped, so that a resumed session does not think they may have run.
// Calls still waiting for a decision stay pending: they are asked again on resume.
func (b *batch) abandon() []Event {
	var evs []Event
	for _, pc := range b.calls {
		if pc.decided != nil && pc.decided.Decision != Veto && pc.invalid == nil && !pc.ran {
			call := pc.call
			res := game.Result{Err: &game.Error{Message: notRunText}}
			evs = append(evs, Event{Type: EventResult, Call: &call, Result: &res})
		}
	}
	return evs
}

// history returns the batch as the model's conversation keeps it.
func (b *batch) history() ([]ToolCall, []toolResult) {
	calls := make([]ToolCall, 0, len(b.calls))
	results := make([]toolResult, 0, len(b.calls))
	for _, pc := range b.calls {
		vetoed := pc.decided != nil && pc.decided.Decision == Veto
		calls = append(calls, pc.model)
		results = append(results, toolResult{tool: pc.call.Tool, args: pc.call.Args, text: pc.text,
			ok: pc.invalid == nil && !vetoed && pc.ran && pc.res.OK(), vetoed: vetoed})
	}
	return calls, results
}

// countFailure tracks calls failing again and again; it returns why the turn must end
// and what to tell the person, or "". A wait (rate limit, transit) is not the model's failure.
func (p *pipeline) countFailure(pc *pendingCall) (why, text string) {
	if pc.decided != nil && pc.decided.Decision == Veto {
		return "", ""
	}
	res := pc.res
	key := pc.call.Tool + "\x00" + string(CompactJSON(pc.model.Args))
	failed := pc.invalid != nil || (res.Err != nil && res.Wait == nil)
	if !failed {
		delete(p.fails, key)
		return "", ""
	}
	p.fails[key]++
	if p.fails[key] < FailureLimit {
		return "", ""
	}
	delete(p.fails, key)
	why = pc.call.Tool + " failed " + fmt.Sprint(FailureLimit) + " times in a row with the same arguments"
	last := ""
	if pc.invalid != nil {
		last = pc.invalid.Error()
	} else {
		last = res.Err.Error()
	}
	return why, fmt.Sprintf("%s; the turn is stopped. Last error: %s. Advise or resume to go on.", why, last)
}

// uniqueID returns the brain's call id, or a fresh one when it is empty or was already
// used in this session (journal records are keyed by it).
func (p *pipeline) uniqueID(id string, step, i int) string {
	for n := 0; ; n++ {
		cand := id
		if cand == "" || n > 0 {
			cand = fmt.Sprintf("call_s%d_%d", step, i)
			if n > 1 {
				cand += fmt.Sprintf("_%d", n)
			}
		}
		if !p.used[cand] {
			if recs, err := p.journal.CallRecords(cand); err != nil || len(recs) == 0 {
				p.used[cand] = true
				return cand
			}
		}
	}
}
