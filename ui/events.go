package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// handleEvent folds one agent event into the screen's state: the table below hands it
// to the parts it changes (the log, the calls, the world, the notes, the spend, the
// questions), each of which keeps its own state.
func (m *Model) handleEvent(ev agent.Event) {
	// Every event carries its step: a resumed session shows where it is before its
	// first new step begins.
	m.run.step = max(m.run.step, ev.Step)
	// A resumed runner shows calls still waiting again with their original seq: they
	// are already in the log from the journal, so only their state is taken.
	logged := m.log.muted
	m.log.muted = ev.Seq > 0 && ev.Seq <= m.history.seq
	defer func() { m.log.muted = logged }()
	if on, ok := eventHandlers[ev.Type]; ok {
		on(m, ev)
	}
}

// eventHandlers says how each type of event is folded into the screen. A type not
// listed changes nothing but the step.
var eventHandlers = map[agent.EventType]func(*Model, agent.Event){
	// the session
	agent.EventStarted:     logInfo,
	agent.EventNotice:      logInfo,
	agent.EventState:       onState,
	agent.EventRules:       onRules,
	agent.EventError:       onError,
	agent.EventTurnLimit:   func(m *Model, ev agent.Event) { m.log.add(kindError, "turn limit: "+ev.Text) },
	agent.EventLoop:        func(m *Model, ev agent.Event) { m.log.add(kindError, "loop: "+ev.Text) }, // a call repeated, answered the same
	agent.EventKeepPlaying: func(m *Model, ev agent.Event) { m.run.keepPlayingNow(ev, &m.log) },
	agent.EventCatalog:     func(m *Model, ev agent.Event) { m.run.catalogNow(ev, &m.log) },
	// the model's turn
	agent.EventStep:      onStep,
	agent.EventTextDelta: func(m *Model, ev agent.Event) { m.log.delta(ev.Text) },
	agent.EventText:      onText,
	agent.EventThinking:  func(m *Model, ev agent.Event) { m.log.thinking(ev.Text) },
	agent.EventUsage:     func(m *Model, ev agent.Event) { m.spend.add(ev.Usage) },
	// calls
	agent.EventProposed:       onProposed,
	agent.EventToolUpdated:    onToolUpdated,
	agent.EventDecision:       onDecision,
	agent.EventToolStart:      onToolStart,
	agent.EventResult:         func(m *Model, ev agent.Event) { m.calls.finished(&m.log, ev.Call, ev.Result) },
	agent.EventOutcomeUnknown: onOutcomeUnknown,
	// the world and the notebook
	agent.EventNotes:       func(m *Model, ev agent.Event) { m.notes.take(ev.Notes) },
	agent.EventTrigger:     func(m *Model, ev agent.Event) { m.log.trigger(ev) },
	agent.EventObservation: onObservation,
	agent.EventWaiting:     onWaiting,
	agent.EventAdvice:      onAdvice,
	// a game server's questions, requests, progress and log (elicit.go)
	agent.EventElicitation: onAsk,
	agent.EventSampling:    onAsk,
	agent.EventAnswered:    onAnswered,
	agent.EventSampled:     onAnswered,
	agent.EventProgress:    func(m *Model, ev agent.Event) { m.log.progress(ev.Progress) },
	agent.EventServerLog:   func(m *Model, ev agent.Event) { m.log.serverLog(ev) },
}

// logInfo logs with which brain and game the runner started, or a notice.
func logInfo(m *Model, ev agent.Event) {
	if ev.Text != "" {
		m.log.add(kindInfo, ev.Text)
	}
}

// onState takes the runner's state and logs why it is not running.
func onState(m *Model, ev agent.Event) {
	m.run.state = ev.State
	if ev.State == agent.Stopped {
		m.log.add(kindInfo, "the agent stopped")
	}
	if ev.Text != "" && ev.State != agent.Running {
		text := stateText(ev.State, ev.Text)
		if resumable(ev.State) && !m.history.replaying {
			// Say which key does what the runner waits for.
			text += " (" + firstKey(m.keys.Pause) + " resumes, " + firstKey(m.keys.Advise) + " gives advice)"
		}
		m.log.add(kindInfo, text)
	}
}

// onRules takes the session's rules and logs them, or what changed.
func onRules(m *Model, ev agent.Event) {
	m.rules.set(ev.Rules)
	switch {
	case ev.Text != "":
		m.log.add(kindInfo, ev.Text)
	case len(m.rules.session) == 0:
		m.log.add(kindInfo, "the session has no rules")
	default:
		m.log.add(kindInfo, "rules: "+strings.Join(m.rules.session, "; "))
	}
}

// onError logs a problem; a live one may be the refusal of an edit being checked.
func onError(m *Model, ev agent.Event) {
	m.log.add(kindError, ev.Text)
	if !m.history.replaying {
		m.calls.refused(&m.log)
	}
}

// onStep begins a step: the model's words of the last one no longer apply.
func onStep(m *Model, ev agent.Event) {
	m.run.step = ev.Step
	m.calls.reason = ""
	m.log.endStream()
	m.log.add(kindStep, fmt.Sprintf("step %d", ev.Step))
}

// onText takes the model's whole message, the why of this step's calls.
func onText(m *Model, ev agent.Event) {
	m.calls.reason = strings.TrimSpace(ev.Text)
	m.log.finishText(ev.Text)
}

// onProposed logs a call and, when it waits for a decision, adds it to the pending list
// with the model's words of this step and starts the grace period.
func onProposed(m *Model, ev agent.Event) {
	if ev.Call != nil {
		m.calls.propose(&m.log, *ev.Call)
		m.waitFor(*ev.Call)
	}
}

// onToolUpdated takes a waiting call's new arguments and dry run; a dry run that now
// predicts a different outcome restarts the grace period. A deferred call that no rule
// decided when its turn came now waits for the person.
func onToolUpdated(m *Model, ev agent.Event) {
	if ev.Call == nil {
		return
	}
	changed, found := m.calls.updated(&m.log, *ev.Call)
	switch {
	case changed:
		m.lastArrival = m.now()
	case !found:
		m.waitFor(*ev.Call)
	}
}

// onDecision drops a decided call from the pending list and logs the decision.
func onDecision(m *Model, ev agent.Event) {
	if d := ev.Decision; d != nil {
		tool := m.calls.toolOf(d.CallID)
		m.dropPending(d.CallID)
		m.calls.logCall(&m.log, d.CallID, decisionKind(d.Decision), describeDecision(d, tool))
	}
}

// onToolStart moves a call from pending to running.
func onToolStart(m *Model, ev agent.Event) {
	if ev.Call != nil {
		m.calls.executing[ev.Call.ID] = ev.Call.Tool
		m.dropPending(ev.Call.ID)
	}
}

// onOutcomeUnknown ends a call that was running when coplay stopped last time.
func onOutcomeUnknown(m *Model, ev agent.Event) {
	if ev.Call != nil {
		delete(m.calls.executing, ev.Call.ID)
		m.log.add(kindError, fmt.Sprintf("%s was running when coplay stopped; its outcome is unknown and it was not run again", ev.Call.Tool))
	}
}

func onObservation(m *Model, ev agent.Event) {
	if ev.Observation != nil {
		m.world.observe(ev.Observation)
	}
}

// onWaiting starts a wait's countdown, or ends it when Until is zero.
func onWaiting(m *Model, ev agent.Event) {
	if ev.Wait == nil || ev.Wait.Until.IsZero() {
		m.run.wait = nil
		return
	}
	w := *ev.Wait
	m.run.wait = &w
	m.log.add(kindWait, fmt.Sprintf("waiting until %s (%s): %s", w.Until.Format("15:04:05"), countdown(w.Until.Sub(m.now())), w.Reason))
}

// onAdvice logs advice and queues it in the notes, unless this screen sent it and
// logged it already.
func onAdvice(m *Model, ev agent.Event) {
	if !m.advice.echoed(ev.Text) {
		m.logAdvice(ev.Text)
	}
}

// onAsk logs a server's question or request and, when it waits for the person and is
// not replayed from the journal, puts it in the Pending pane.
func onAsk(m *Model, ev agent.Event) {
	if ev.Elicitation == nil && ev.Sampling == nil {
		return
	}
	m.log.add(kindCall, "? "+ev.Text)
	if it := askOf(ev); it != nil && !m.history.replaying {
		m.ask.add(it)
		m.lastArrival = m.now()
	}
}

// onAnswered takes a question or request off the pane and logs its answer.
func onAnswered(m *Model, ev agent.Event) {
	m.ask.answered(ev)
	m.log.add(kindDecision, ev.Text)
}

// history is a resumed session's journal as the screen took it.
type history struct {
	replaying bool   // putting a resumed session's journal into the log
	seq       uint64 // the last seq from the journal: later copies are not logged twice
}

// replayHistory puts a resumed session's journaled events into the log, between two
// rules, without making anything pending or running: the runner shows what still
// waits again itself.
func (m *Model) replayHistory(evs []agent.Event) {
	if len(evs) == 0 {
		return
	}
	m.log.add(kindStep, "earlier in this session (from the journal)")
	m.history.replaying = true
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventToolStart, agent.EventUsage, agent.EventWaiting, agent.EventTextDelta:
			continue // state of a run that is over
		}
		m.seats.with(m, ev.Seat, func() { // a league's journal goes to each seat's log
			if ev.Type == agent.EventState {
				if ev.Text != "" && ev.State != agent.Running {
					m.log.add(kindInfo, stateText(ev.State, ev.Text))
				}
				return
			}
			m.handleEvent(ev)
			m.history.seq = max(m.history.seq, ev.Seq)
		})
	}
	m.history.replaying = false
	m.seats.each(m, func() {
		m.calls.executing = map[string]string{}
		m.run.wait = nil
	})
	m.log.add(kindStep, "resumed")
}
