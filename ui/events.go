package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// resultLines bounds how much of a result's output the log shows.
const resultLines = 6

// handleEvent folds one agent event into the screen's state.
func (m *Model) handleEvent(ev agent.Event) {
	// Every event carries its step: a resumed session shows where it is before its
	// first new step begins.
	m.step = max(m.step, ev.Step)
	// A resumed runner shows calls still waiting again with their original seq: they
	// are already in the log from the journal, so only their state is taken.
	logged := m.log.muted
	m.log.muted = ev.Seq > 0 && ev.Seq <= m.historySeq
	defer func() { m.log.muted = logged }()
	if on, ok := eventHandlers[ev.Type]; ok {
		on(m, ev)
	}
}

// eventHandlers says which method folds each type of event into the screen. A type
// not listed changes nothing but the step.
var eventHandlers = map[agent.EventType]func(*Model, agent.Event){
	// the session
	agent.EventStarted:     (*Model).onStarted,
	agent.EventNotice:      (*Model).onStarted,
	agent.EventState:       (*Model).onState,
	agent.EventRules:       (*Model).onRules,
	agent.EventError:       (*Model).onError,
	agent.EventTurnLimit:   (*Model).onTurnLimit,
	agent.EventKeepPlaying: (*Model).onKeepPlaying,
	agent.EventCatalog:     (*Model).onCatalog,
	// the model's turn
	agent.EventStep:      (*Model).onStep,
	agent.EventTextDelta: (*Model).onTextDelta,
	agent.EventText:      (*Model).onText,
	agent.EventThinking:  (*Model).onThinking,
	agent.EventUsage:     (*Model).onUsage,
	// calls
	agent.EventProposed:       (*Model).onProposed,
	agent.EventToolUpdated:    (*Model).onToolUpdated,
	agent.EventDecision:       (*Model).onDecision,
	agent.EventToolStart:      (*Model).onToolStart,
	agent.EventResult:         (*Model).onResult,
	agent.EventOutcomeUnknown: (*Model).onOutcomeUnknown,
	// the world and the notebook
	agent.EventObservation: (*Model).onObservation,
	agent.EventWaiting:     (*Model).onWaiting,
	agent.EventAdvice:      (*Model).onAdvice,
	agent.EventNotes:       (*Model).onNotes,
	agent.EventTrigger:     (*Model).onTrigger,
	// a game server's questions, requests, progress and log (elicit.go)
	agent.EventElicitation: (*Model).onElicitation,
	agent.EventAnswered:    (*Model).onAnswered,
	agent.EventSampling:    (*Model).onSampling,
	agent.EventSampled:     (*Model).onAnswered,
	agent.EventProgress:    (*Model).onProgress,
	agent.EventServerLog:   (*Model).onServerLog,
}

// onStarted logs with which brain and game the runner started.
func (m *Model) onStarted(ev agent.Event) {
	if ev.Text != "" {
		m.log.add(kindInfo, ev.Text)
	}
}

// onState takes the runner's state and logs why it is not running.
func (m *Model) onState(ev agent.Event) {
	m.state = ev.State
	if ev.State == agent.Stopped {
		m.log.add(kindInfo, "the agent stopped")
	}
	if ev.Text != "" && ev.State != agent.Running {
		text := stateText(ev.State, ev.Text)
		if resumable(ev.State) && !m.replaying {
			// Say which key does what the runner waits for.
			text += " (" + firstKey(m.keys.Pause) + " resumes, " + firstKey(m.keys.Advise) + " gives advice)"
		}
		m.log.add(kindInfo, text)
	}
}

// onRules takes the session's rules and logs them, or what changed.
func (m *Model) onRules(ev agent.Event) {
	m.rules = append([]string(nil), ev.Rules...)
	m.rulesSel = min(m.rulesSel, max(len(m.ruleRows())-1, 0))
	switch {
	case ev.Text != "":
		m.log.add(kindInfo, ev.Text)
	case len(m.rules) == 0:
		m.log.add(kindInfo, "the session has no rules")
	default:
		m.log.add(kindInfo, "rules: "+strings.Join(m.rules, "; "))
	}
}

// onError logs a problem; a live one may be the refusal of an edit being checked.
func (m *Model) onError(ev agent.Event) {
	m.log.add(kindError, ev.Text)
	if !m.replaying {
		m.reviseRefused()
	}
}

func (m *Model) onTurnLimit(ev agent.Event) {
	m.log.add(kindError, "turn limit: "+ev.Text)
}

// onKeepPlaying takes whether play is handed over.
func (m *Model) onKeepPlaying(ev agent.Event) {
	if ev.KeepPlaying != nil {
		m.keepPlaying = *ev.KeepPlaying
	}
	m.log.add(kindInfo, ev.Text)
}

// onCatalog takes how much of the catalogue the model is sent.
func (m *Model) onCatalog(ev agent.Event) {
	if ev.Catalog != nil {
		c := *ev.Catalog
		m.catalog = &c
	}
	m.log.add(kindInfo, ev.Text)
}

// onStep begins a step: the model's words of the last one no longer apply.
func (m *Model) onStep(ev agent.Event) {
	m.step = ev.Step
	m.reason = ""
	m.log.endStream()
	m.log.add(kindStep, fmt.Sprintf("step %d", ev.Step))
}

func (m *Model) onTextDelta(ev agent.Event) { m.log.delta(ev.Text) }

// onText takes the model's whole message, the why of this step's calls.
func (m *Model) onText(ev agent.Event) {
	m.reason = strings.TrimSpace(ev.Text)
	m.log.finishText(ev.Text)
}

// thinkingLines is how many lines of the model's reasoning the log shows; the rest is
// folded into a count.
const thinkingLines = 3

// onThinking logs the model's reasoning dimmed and folded: it explains the step, but
// it is not what the model said.
func (m *Model) onThinking(ev agent.Event) {
	text := strings.TrimSpace(ev.Text)
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if n := len(lines) - thinkingLines; n > 0 {
		lines = append(lines[:thinkingLines], fmt.Sprintf("… %d more lines of thinking", n))
	}
	m.log.addAside(kindThinking, "thinking: "+strings.Join(lines, "\n"), "thinking: "+text)
}

func (m *Model) onUsage(ev agent.Event) { m.addUsage(ev.Usage) }

func (m *Model) onProposed(ev agent.Event) {
	if ev.Call != nil {
		m.proposed(*ev.Call)
	}
}

func (m *Model) onToolUpdated(ev agent.Event) {
	if ev.Call != nil {
		m.updated(*ev.Call)
	}
}

// onDecision drops a decided call from the pending list and logs the decision.
func (m *Model) onDecision(ev agent.Event) {
	if d := ev.Decision; d != nil {
		tool := m.toolOf(d.CallID)
		m.removePending(d.CallID)
		m.logCall(d.CallID, decisionKind(d.Decision), describeDecision(d, tool))
	}
}

// onToolStart moves a call from pending to running.
func (m *Model) onToolStart(ev agent.Event) {
	if ev.Call != nil {
		m.executing[ev.Call.ID] = ev.Call.Tool
		m.removePending(ev.Call.ID)
	}
}

// onResult ends a running call and logs its outcome.
func (m *Model) onResult(ev agent.Event) {
	tool, id := "", ""
	if ev.Call != nil {
		tool, id = ev.Call.Tool, ev.Call.ID
		delete(m.executing, ev.Call.ID)
		if ev.Call.Kind == game.Note {
			m.noteCalls[id] = true
		}
	}
	if ev.Result != nil {
		k, text, full := describeResult(tool, ev.Result)
		if e := m.logCall(id, k, text); e != nil && full != text {
			e.full = full
		}
	}
}

// onOutcomeUnknown ends a call that was running when coplay stopped last time.
func (m *Model) onOutcomeUnknown(ev agent.Event) {
	if ev.Call != nil {
		delete(m.executing, ev.Call.ID)
		m.log.add(kindError, fmt.Sprintf("%s was running when coplay stopped; its outcome is unknown and it was not run again", ev.Call.Tool))
	}
}

func (m *Model) onObservation(ev agent.Event) {
	if ev.Observation != nil {
		m.world.observe(ev.Observation)
	}
}

// onWaiting starts a wait's countdown, or ends it when Until is zero.
func (m *Model) onWaiting(ev agent.Event) {
	if ev.Wait == nil || ev.Wait.Until.IsZero() {
		m.wait = nil
		return
	}
	w := *ev.Wait
	m.wait = &w
	m.log.add(kindWait, fmt.Sprintf("waiting until %s (%s): %s", w.Until.Format("15:04:05"), countdown(w.Until.Sub(m.now())), w.Reason))
}

// onTrigger logs what happened in the game to wake the agent, with its own mark.
func (m *Model) onTrigger(ev agent.Event) {
	if ev.Trigger == nil {
		m.log.add(kindTrigger, ev.Text)
		return
	}
	m.log.add(kindTrigger, ev.Trigger.String())
}

// onAdvice logs advice and queues it in the notes, unless this screen sent it and
// logged it already.
func (m *Model) onAdvice(ev agent.Event) {
	if n := m.sentAdvice[ev.Text]; n > 0 {
		m.sentAdvice[ev.Text] = n - 1
		return
	}
	m.log.add(kindAdvice, "you: "+ev.Text)
	m.notes.queued = append(m.notes.queued, ev.Text)
}

// onNotes takes the notebook after a change: the queued advice is in it now.
func (m *Model) onNotes(ev agent.Event) {
	if ev.Notes != nil {
		m.notes.notes = *ev.Notes
		m.notes.queued = nil
	}
}

// stateText is the log line for a state with a reason, without saying the state twice
// when the reason already starts with it ("paused: resume to go on").
func stateText(s agent.State, text string) string {
	name := strings.ReplaceAll(string(s), "_", " ")
	if strings.HasPrefix(strings.ToLower(text), string(s)) || strings.HasPrefix(strings.ToLower(text), name) {
		return text
	}
	return name + ": " + text
}

// logCall adds a log entry about call id, as notebook bookkeeping when the call is a
// note tool's, and returns it (nil when the log is muted).
func (m *Model) logCall(id string, k kind, text string) *entry {
	if m.noteCalls[id] {
		return m.log.addNotebook(k, text)
	}
	return m.log.add(k, text)
}

// isNoteCall says whether c is the notebook's bookkeeping rather than a move in the game.
func isNoteCall(c agent.Call) bool {
	if c.Kind == game.Note {
		return true
	}
	switch c.Tool {
	case agent.ToolUpdateNotes, agent.ToolSetPlan, agent.ToolUpdateStep:
		return true
	}
	return false
}

// proposed logs a call and, when it waits for a decision, adds it to the pending list
// with the model's words of this step and starts the grace period.
func (m *Model) proposed(c agent.Call) {
	text := c.Tool + " " + readableJSON(c.Args)
	if len(c.Problems) > 0 {
		var ps []string
		for _, p := range c.Problems {
			ps = append(ps, p.String())
		}
		text += "\ninvalid, not run: " + strings.Join(ps, "; ")
	}
	if c.FromText {
		text += "\nread from the model's text (the server returned no tool call)"
	}
	if c.Deferred {
		text += "\ndecided when its turn comes: a rule with a condition needs the world the earlier calls leave"
	}
	m.callTools[c.ID] = c.Tool
	if isNoteCall(c) {
		m.noteCalls[c.ID] = true
	}
	m.logCall(c.ID, kindCall, text)
	m.addPending(c)
}

// addPending adds a call waiting for a decision to the pending list (once) and starts
// the grace period.
func (m *Model) addPending(c agent.Call) {
	if !c.NeedsOK || m.replaying {
		return
	}
	for _, p := range m.pending {
		if p.call.ID == c.ID {
			return
		}
	}
	now := m.now()
	why := m.reason // the model's words of this step: the why of all its calls
	if c.Why != "" {
		why = c.Why // the brain gave this call a reason of its own (the autopilot)
	}
	m.pending = append(m.pending, pendingCall{call: c, at: now, reason: why})
	m.lastArrival = now
}

// updated takes a waiting call's new arguments and dry run (the world changed, or a
// revision was applied). A dry run that now predicts a different outcome restarts the
// grace period, so a key meant for the old prediction does not decide the new one.
func (m *Model) updated(c agent.Call) {
	for i := range m.pending {
		p := &m.pending[i]
		if p.call.ID != c.ID {
			continue
		}
		if len(c.Args) > 0 && compactJSON(c.Args) != compactJSON(p.call.Args) {
			p.call.Args = c.Args
			m.log.add(kindInfo, fmt.Sprintf("%s now has arguments %s", p.call.Tool, spacedJSON(c.Args)))
		}
		if fails(p.call.Simulation) != fails(c.Simulation) {
			m.lastArrival = m.now()
		}
		p.call.Simulation = c.Simulation
		p.call.Problems = c.Problems
		p.revising = false
		return
	}
	// A deferred call that no rule decided when its turn came now waits for the person.
	m.addPending(c)
}

// fails says whether a dry run predicts the call fails.
func fails(s *game.Simulation) bool { return s != nil && s.Fails }

// removePending drops a decided call from the pending list.
func (m *Model) removePending(id string) {
	for i, p := range m.pending {
		if p.call.ID == id {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			if m.sel >= len(m.pending) {
				m.sel = max(len(m.pending)-1, 0)
			}
			if (m.dialog == vetoDialog || m.dialog == editDialog) && m.dialogCallID() == id {
				m.dialog = noDialog
			}
			return
		}
	}
}

// toolOf finds the tool of a call the screen has seen pending or running.
func (m *Model) toolOf(id string) string {
	for _, p := range m.pending {
		if p.call.ID == id {
			return p.call.Tool
		}
	}
	if t, ok := m.executing[id]; ok {
		return t
	}
	if t, ok := m.callTools[id]; ok {
		return t
	}
	return id
}

func decisionKind(v agent.Verdict) kind {
	if v == agent.Veto {
		return kindVeto
	}
	return kindDecision
}

func describeDecision(d *agent.Decision, tool string) string {
	by := ""
	if d.By != "" && d.By != "person" {
		by = " (" + d.By + ")"
	}
	if d.Via != "" && d.Via != "screen" {
		by = " (on " + d.Via + ")" // decided on another screen: attach, ssh:KEY, stdin
	}
	if d.By == "rule" && d.Rule != "" {
		rule := d.Rule
		if !strings.Contains(rule, tool) {
			rule += " (" + tool + ")" // a glob over tool names
		}
		switch d.Decision {
		case agent.Veto:
			return "denied by rule: " + rule
		case agent.Approve:
			return "by rule: " + rule
		}
	}
	switch d.Decision {
	case agent.Veto:
		s := "vetoed " + tool + by
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		return s
	case agent.Edit:
		return "edited " + tool + by + " → " + spacedJSON(d.Args)
	case agent.Auto:
		return "auto " + tool + by
	}
	return "approved " + tool + by
}

// replayHistory puts a resumed session's journaled events into the log, between two
// rules, without making anything pending or running: the runner shows what still
// waits again itself.
func (m *Model) replayHistory(evs []agent.Event) {
	if len(evs) == 0 {
		return
	}
	m.log.add(kindStep, "earlier in this session (from the journal)")
	m.replaying = true
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventToolStart, agent.EventUsage, agent.EventWaiting, agent.EventTextDelta:
			continue // state of a run that is over
		case agent.EventState:
			if ev.Text != "" && ev.State != agent.Running {
				m.log.add(kindInfo, stateText(ev.State, ev.Text))
			}
			continue
		}
		m.handleEvent(ev)
		m.historySeq = max(m.historySeq, ev.Seq)
	}
	m.replaying = false
	m.executing = map[string]string{}
	m.wait = nil
	m.log.add(kindStep, "resumed")
}
