package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// handleEvent folds one agent event into the screen's state: the table below hands it
// to the parts it changes (the log, the calls, the world, the notes, the spend, the
// questions), each of which keeps its own state.
func (m *Model) handleEvent(v *seatView, ev agent.Event) {
	// Every event carries its step: a resumed session shows where it is before its
	// first new step begins.
	v.run.step = max(v.run.step, ev.Step)
	// A resumed runner shows calls still waiting again with their original seq: they
	// are already in the log from the journal, so only their state is taken.
	logged := v.log.muted
	v.log.muted = ev.Seq > 0 && ev.Seq <= v.seq
	defer func() { v.log.muted = logged }()
	if on, ok := eventHandlers[ev.Type]; ok {
		on(m, v, ev)
	}
}

// eventHandlers says how each type of event is folded into the screen. A type not
// listed changes nothing but the step.
var eventHandlers = map[agent.EventType]func(*Model, *seatView, agent.Event){
	// the session
	agent.EventStarted:     logInfo,
	agent.EventNotice:      logInfo,
	agent.EventState:       onState,
	agent.EventRules:       onRules,
	agent.EventError:       onError,
	agent.EventTurnLimit:   func(m *Model, v *seatView, ev agent.Event) { v.log.add(kindError, "turn limit: "+ev.Text) },
	agent.EventLoop:        func(m *Model, v *seatView, ev agent.Event) { v.log.add(kindError, "loop: "+ev.Text) }, // a call repeated, answered the same
	agent.EventKeepPlaying: func(m *Model, v *seatView, ev agent.Event) { v.run.keepPlayingNow(ev, &v.log) },
	agent.EventCatalog:     func(m *Model, v *seatView, ev agent.Event) { v.run.catalogNow(ev, &v.log) },
	agent.EventWheel:       onWheel,
	agent.EventQuestion:    onQuestion,
	agent.EventReply:       onReply,
	// the model's turn
	agent.EventStep:      onStep,
	agent.EventTextDelta: func(m *Model, v *seatView, ev agent.Event) { v.log.delta(ev.Text) },
	agent.EventText:      onText,
	agent.EventThinking:  func(m *Model, v *seatView, ev agent.Event) { v.log.thinking(ev.Text) },
	agent.EventUsage:     func(m *Model, v *seatView, ev agent.Event) { v.spend.add(ev.Usage) },
	// calls
	agent.EventProposed:       onProposed,
	agent.EventToolUpdated:    onToolUpdated,
	agent.EventDecision:       onDecision,
	agent.EventToolStart:      onToolStart,
	agent.EventResult:         func(m *Model, v *seatView, ev agent.Event) { v.calls.finished(&v.log, ev.Call, ev.Result) },
	agent.EventOutcomeUnknown: onOutcomeUnknown,
	// the world and the notebook
	agent.EventNotes:       func(m *Model, v *seatView, ev agent.Event) { v.notes.take(ev.Notes) },
	agent.EventTrigger:     func(m *Model, v *seatView, ev agent.Event) { v.log.trigger(ev) },
	agent.EventObservation: onObservation,
	agent.EventWaiting:     onWaiting,
	agent.EventAdvice:      onAdvice,
	// a game server's questions, requests, progress and log (elicit.go)
	agent.EventElicitation: onAsk,
	agent.EventSampling:    onAsk,
	agent.EventAnswered:    onAnswered,
	agent.EventSampled:     onAnswered,
	agent.EventProgress:    func(m *Model, v *seatView, ev agent.Event) { v.log.progress(ev.Progress) },
	agent.EventServerLog:   func(m *Model, v *seatView, ev agent.Event) { v.log.serverLog(ev) },
}

// logInfo logs with which brain and game the runner started, or a notice.
func logInfo(m *Model, v *seatView, ev agent.Event) {
	if ev.Text != "" {
		v.log.add(kindInfo, ev.Text)
	}
}

// onState takes the runner's state and logs why it is not running.
func onState(m *Model, v *seatView, ev agent.Event) {
	v.run.state = ev.State
	if ev.State == agent.Stopped {
		v.log.add(kindInfo, "the agent stopped")
	}
	if ev.Text != "" && ev.State != agent.Running {
		text := stateText(ev.State, ev.Text)
		if resumable(ev.State) && !m.replaying {
			// Say which key does what the runner waits for.
			text += " (" + firstKey(m.keys.Pause) + " resumes, " + firstKey(m.keys.Advise) + " gives advice)"
		}
		v.log.add(kindInfo, text)
	}
}

// onRules takes the session's rules and logs them, or what changed.
func onRules(m *Model, v *seatView, ev agent.Event) {
	v.rules.set(ev.Rules)
	switch {
	case ev.Text != "":
		v.log.add(kindInfo, ev.Text)
	case len(v.rules.session) == 0:
		v.log.add(kindInfo, "the session has no rules")
	default:
		v.log.add(kindInfo, "rules: "+strings.Join(v.rules.session, "; "))
	}
}

// onError logs a problem; a live one may be the refusal of an edit being checked.
func onError(m *Model, v *seatView, ev agent.Event) {
	v.log.add(kindError, ev.Text)
	if !m.replaying {
		v.calls.refused(&v.log)
	}
}

// onStep begins a step: the model's words of the last one no longer apply.
func onStep(m *Model, v *seatView, ev agent.Event) {
	v.run.step = ev.Step
	v.calls.reason = ""
	v.log.endStream()
	v.log.add(kindStep, fmt.Sprintf("step %d", ev.Step))
}

// onText takes the model's whole message, the why of this step's calls.
func onText(m *Model, v *seatView, ev agent.Event) {
	v.calls.reason = strings.TrimSpace(ev.Text)
	v.log.finishText(ev.Text)
}

// onProposed logs a call and, when it waits for a decision, adds it to the pending list
// with the model's words of this step and starts the grace period.
func onProposed(m *Model, v *seatView, ev agent.Event) {
	if ev.Call != nil {
		v.calls.propose(&v.log, *ev.Call)
		m.waitFor(v, *ev.Call)
	}
}

// onToolUpdated takes a waiting call's new arguments and dry run; a dry run that now
// predicts a different outcome, or arguments edited elsewhere, restart the grace
// period, and a dialog open on a call edited elsewhere says so. A deferred call that no
// rule decided when its turn came now waits for the person.
func onToolUpdated(m *Model, v *seatView, ev agent.Event) {
	if ev.Call == nil {
		return
	}
	// Arguments that change while this screen has no edit out are another screen's edit
	// (or the headless side's).
	p := v.calls.find(ev.Call.ID)
	editedElsewhere := p != nil && !p.revising && len(ev.Call.Args) > 0 && compactJSON(ev.Call.Args) != compactJSON(p.call.Args)
	changed, found := v.calls.updated(&v.log, *ev.Call)
	switch {
	case editedElsewhere && !m.replaying:
		m.settle(ev.Call.ID, "edited elsewhere: its arguments changed (see the Pending pane)")
		v.lastArrival = m.now()
	case changed:
		v.lastArrival = m.now()
	case !found:
		m.waitFor(v, *ev.Call)
	}
}

// onDecision drops a decided call from the pending list and logs the decision.
func onDecision(m *Model, v *seatView, ev agent.Event) {
	if d := ev.Decision; d != nil {
		tool := v.calls.toolOf(d.CallID)
		m.takenElsewhere(v, d.CallID, settledText(d))
		v.calls.logCall(&v.log, d.CallID, decisionKind(d.Decision), describeDecision(d, tool))
	}
}

// onToolStart moves a call from pending to running; the person's own move is logged as
// theirs as it starts.
func onToolStart(m *Model, v *seatView, ev agent.Event) {
	if c := ev.Call; c != nil && c.By == agent.ByPerson {
		v.calls.tools[c.ID] = c.Tool
		v.calls.executing[c.ID] = c.Tool
		v.calls.logCall(&v.log, c.ID, kindAdvice, whoSaid(m, ev.Via, "you play", "played")+": "+c.Tool+" "+readableJSON(c.Args))
		return
	}
	if ev.Call != nil {
		v.calls.executing[ev.Call.ID] = ev.Call.Tool
		m.takenElsewhere(v, ev.Call.ID, "started running")
	}
}

// onOutcomeUnknown ends a call that was running when coplay stopped last time.
func onOutcomeUnknown(m *Model, v *seatView, ev agent.Event) {
	if ev.Call != nil {
		delete(v.calls.executing, ev.Call.ID)
		v.log.add(kindError, fmt.Sprintf("%s was running when coplay stopped; its outcome is unknown and it was not run again", ev.Call.Tool))
	}
}

func onObservation(m *Model, v *seatView, ev agent.Event) {
	if ev.Observation != nil {
		v.world.observe(ev.Observation)
	}
}

// onWaiting starts a wait's countdown, or ends it when Until is zero.
func onWaiting(m *Model, v *seatView, ev agent.Event) {
	if ev.Wait == nil || ev.Wait.Until.IsZero() {
		v.run.wait = nil
		return
	}
	w := *ev.Wait
	v.run.wait = &w
	v.log.add(kindWait, fmt.Sprintf("waiting until %s (%s): %s", w.Until.Format("15:04:05"), countdown(w.Until.Sub(m.now())), w.Reason))
}

// onAdvice logs advice and queues it in the notes, unless this screen sent it and
// logged it already. Advice given elsewhere names where, as a decision does ("advice
// (on ssh:alice): …").
func onAdvice(m *Model, v *seatView, ev agent.Event) {
	if m.advice.echoed(ev.Text) {
		return
	}
	v.log.add(kindAdvice, whoSaid(m, ev.Via, "you", "advice")+": "+ev.Text)
	v.notes.queued = append(v.notes.queued, ev.Text)
}

// onAsk logs a server's question or request and, when it waits for the person and is
// not replayed from the journal, puts it in the Pending pane.
func onAsk(m *Model, v *seatView, ev agent.Event) {
	if ev.Elicitation == nil && ev.Sampling == nil {
		return
	}
	v.log.add(kindCall, "? "+ev.Text)
	if it := askOf(ev); it != nil && !m.replaying {
		v.ask.add(it)
		v.lastArrival = m.now()
	}
}

// onAnswered takes a question or request off the pane and logs its answer.
func onAnswered(m *Model, v *seatView, ev agent.Event) {
	v.ask.answered(ev)
	v.log.add(kindDecision, ev.Text)
}

// replayHistory puts a resumed session's journaled events into the log, between two
// rules, without making anything pending or running: the runner shows what still
// waits again itself. A league's journal goes to each seat's log.
func (m *Model) replayHistory(evs []agent.Event) {
	if len(evs) == 0 {
		return
	}
	for _, v := range m.seats.list {
		v.log.add(kindStep, "earlier in this session (from the journal)")
	}
	m.replaying = true
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventToolStart && ev.Call != nil && ev.Call.By == agent.ByPerson:
			// the person's own move: its start is where the log says it was theirs
		case ev.Type == agent.EventToolStart, ev.Type == agent.EventUsage, ev.Type == agent.EventWaiting, ev.Type == agent.EventTextDelta:
			continue // state of a run that is over
		}
		ev = clean(ev)
		v := m.seats.viewOf(ev.Seat)
		if ev.Type == agent.EventState {
			if ev.Text != "" && ev.State != agent.Running {
				v.log.add(kindInfo, stateText(ev.State, ev.Text))
			}
			continue
		}
		m.handleEvent(v, ev)
		v.seq = max(v.seq, ev.Seq)
	}
	m.replaying = false
	for _, v := range m.seats.list {
		v.calls.executing = map[string]string{}
		v.run.wait = nil
		v.log.add(kindStep, "resumed")
	}
}
