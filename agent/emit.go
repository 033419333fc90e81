package agent

import (
	"fmt"
)

// emit journals ev (everything but text deltas) and sends it to Events.
//
// Seq is the journal record's seq, so a consumer can find any event in the session
// later. Text deltas are not journaled: they carry the seq of the last journaled event
// (they are pieces of the text event that follows). A journal record's Data is the
// event's JSON, except for decision records, whose Data is the Decision itself: the
// notebook reads {"decision": "veto"|...} there to know whether a call may have run.
//
// A journal write that fails is fatal: the runner must not act without a record of its
// decisions. The error is still sent to Events, and Run returns it.
func (r *Runner) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = r.cfg.Now()
	}
	if ev.Step == 0 {
		ev.Step = r.step
	}
	if ev.Type != EventTextDelta && r.fatal == nil {
		if err := r.journal(&ev); err != nil {
			r.fatal = fmt.Errorf("agent: writing the journal of session %q: %w", r.cfg.Session.Name(), err)
			r.send1(Event{Seq: r.lastSeq, Time: ev.Time, Type: EventError, Step: ev.Step, Text: r.fatal.Error()})
		}
	}
	ev.Seq = r.lastSeq
	r.send1(ev)
}

// send1 hands an event to the reader, or drops it when ctx is done (nobody is reading
// any more once the caller cancelled).
func (r *Runner) send1(ev Event) {
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

// emitError reports a problem to the person.
func (r *Runner) emitError(format string, args ...any) {
	r.emit(Event{Type: EventError, Text: fmt.Sprintf(format, args...)})
}
