package agent

import (
	"errors"
	"fmt"
	"syscall"
)

// emit adds ev to the phase being built: it is journaled and sent to Events at the next
// flush, in one commit with the rest of the phase. Text deltas are the exception: they
// are not journaled and go to the reader at once, carrying the seq of the last journaled
// event (they are pieces of the text event that follows).
//
// Seq is the journal record's seq, so a consumer can find any event in the session
// later. A journal record's Data is the event's JSON, except for decision records, whose
// Data is the Decision itself: the notebook reads {"decision": "veto"|...} there to know
// whether a call may have run.
func (r *Runner) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = r.cfg.Now()
	}
	if ev.Step == 0 {
		ev.Step = r.at.step
	}
	if ev.Type == EventError || ev.Type == EventAdvice || ev.Type == EventQuestion {
		ev.Text = r.scrub.text(ev.Text) // a key pasted into advice or a question is not kept either
	}
	if r.fatal != nil {
		// After a journal failure nothing more is journaled, and nothing more is shown
		// as if it were: the reader hears only how the run ends, with seq 0 (no record).
		if ev.Type == EventError || ev.Type == EventState && ev.State == Stopped {
			ev.Seq = 0
			r.send1(ev)
		}
		return
	}
	if ev.Type == EventTextDelta {
		ev.Seq = r.jr.lastSeq
		r.send1(ev)
		return
	}
	r.jr.add(ev)
}

// flush commits the phase (its records, step number, usage and game state) in one
// transaction, then sends its events to the reader: every event a reader sees is in the
// journal. The runner flushes before anything that blocks or acts: asking the brain,
// waiting for a person or a timer, and running a call that changes anything (so a
// decision is durable before its call runs).
//
// A journal write that fails is fatal: the runner must not act without a record of its
// decisions. The error is sent to Events, and Run returns it.
func (r *Runner) flush() {
	if r.fatal != nil || r.jr.empty() {
		return
	}
	evs, err := r.jr.commit()
	if err != nil {
		r.failJournal(err)
		return
	}
	for _, ev := range evs {
		r.send1(ev)
	}
}

// failJournal makes a journal failure fatal and tells the reader; the events of the
// failed phase were dropped, since they are not in the journal. The error names the
// file, the cause and the way on; the event comes with seq 0, having no record.
func (r *Runner) failJournal(err error) {
	r.fatal = &JournalError{Session: r.cfg.Session.Name(), File: r.cfg.Session.Book().Path(), Err: err}
	r.send1(Event{Time: r.cfg.Now(), Type: EventError, Step: r.at.step, Text: r.scrub.text(r.fatal.Error())})
}

// JournalError is a journal write that failed: the run stops before any further model
// or game request, since nothing may be done without a record of it.
type JournalError struct {
	Session string // the session's name
	File    string // the notebook's file
	Err     error  // the cause ("no space left on device")
}

// Error names the file, the cause and the way on.
func (e *JournalError) Error() string {
	way := "fix that"
	if errors.Is(e.Err, syscall.ENOSPC) || errors.Is(e.Err, syscall.EDQUOT) {
		way = "free some space"
	}
	return fmt.Sprintf("the journal of session %s could not be written to %s: %v; the run stops here (nothing more is asked of the model or the game without a record): %s, then `coplay run --resume %s`",
		e.Session, e.File, e.Err, way, e.Session)
}

// Unwrap returns the cause.
func (e *JournalError) Unwrap() error { return e.Err }

// send1 hands an event to the reader, or drops it when ctx is done (nobody is reading
// any more once the caller cancelled).
func (r *Runner) send1(ev Event) {
	// What puts a call or a question to the person is kept with it, seq and all, for a
	// screen that attaches later (Waiting).
	switch {
	case (ev.Type == EventProposed || ev.Type == EventToolUpdated) && ev.Call != nil && ev.Call.NeedsOK:
		r.gate.shown(r.policy.seat, ev)
	case ev.Type == EventElicitation && ev.Elicitation != nil && ev.Elicitation.NeedsOK,
		ev.Type == EventSampling && ev.Sampling != nil && ev.Sampling.NeedsOK:
		r.asks.shown(ev)
	}
	select {
	case r.events <- ev:
		return
	default:
	}
	select {
	case r.events <- ev:
	case <-r.ctx.Done():
	}
}

// emitAll emits the events a part returned, in order. A state event sets the state
// (setState), a usage event counts the spend, a loop event pauses play (loop.go).
func (r *Runner) emitAll(evs []Event) {
	for _, ev := range evs {
		switch {
		case ev.Type == EventState:
			r.setState(ev.State, ev.Text)
		case ev.Type == EventUsage && ev.Usage != nil:
			// A model call's usage counts against the session's totals and this
			// run's caps.
			r.emit(ev)
			r.jr.spend(*ev.Usage)
			r.play.spend(*ev.Usage)
		case ev.Type == EventLoop:
			r.emit(ev)
			r.at.paused = true
		default:
			r.emit(ev)
		}
	}
}

// toolsSaid emits what the runner's own tools changed (the notes, the tools loaded),
// with the loaded tools for the phase's commit.
func (r *Runner) toolsSaid() {
	evs, loaded := r.tools.take()
	if loaded != nil {
		r.jr.loaded(loaded)
	}
	r.emitAll(evs)
}

// emitError reports a problem to the person.
func (r *Runner) emitError(format string, args ...any) {
	r.emit(Event{Type: EventError, Text: fmt.Sprintf(format, args...)})
}
