package ui

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// Events the runner may send that are newer than the screen; matched by name so the
// screen keeps building while the runner grows.
const (
	eventOutcomeUnknown agent.EventType = "outcome_unknown"
	eventRules          agent.EventType = "rules_changed"
)

// resultLines bounds how much of a result's output the log shows.
const resultLines = 6

// handleEvent folds one agent event into the screen's state.
func (m *Model) handleEvent(ev agent.Event) {
	// Every event carries its step: a resumed session shows where it is before its
	// first new step begins.
	m.step = max(m.step, ev.Step)
	switch ev.Type {
	case agent.EventStarted:
		if ev.Text != "" {
			m.log.add(kindInfo, ev.Text)
		}
	case agent.EventObservation:
		if ev.Observation != nil {
			m.world.observe(ev.Observation)
		}
	case agent.EventStep:
		m.step = ev.Step
		m.log.add(kindStep, fmt.Sprintf("step %d", ev.Step))
	case agent.EventTextDelta:
		m.log.delta(ev.Text)
	case agent.EventText:
		m.log.finishText(ev.Text)
	case agent.EventProposed:
		if ev.Call != nil {
			m.proposed(*ev.Call)
		}
	case agent.EventDecision:
		if d := ev.Decision; d != nil {
			tool := m.toolOf(d.CallID)
			m.removePending(d.CallID)
			m.log.add(decisionKind(d.Decision), describeDecision(d, tool))
		}
	case agent.EventToolStart:
		if ev.Call != nil {
			m.executing[ev.Call.ID] = ev.Call.Tool
			m.removePending(ev.Call.ID)
		}
	case agent.EventResult:
		tool := ""
		if ev.Call != nil {
			tool = ev.Call.Tool
			delete(m.executing, ev.Call.ID)
		}
		if ev.Result != nil {
			k, text := describeResult(tool, ev.Result)
			m.log.add(k, text)
		}
	case agent.EventAdvice:
		if n := m.sentAdvice[ev.Text]; n > 0 {
			// Already logged when sent.
			m.sentAdvice[ev.Text] = n - 1
		} else {
			m.log.add(kindAdvice, "you: "+ev.Text)
			m.notes.queued = append(m.notes.queued, ev.Text)
		}
	case agent.EventNotes:
		if ev.Notes != nil {
			m.notes.notes = *ev.Notes
			m.notes.queued = nil
		}
	case agent.EventWaiting:
		if ev.Wait == nil || ev.Wait.Until.IsZero() {
			m.wait = nil
			break
		}
		w := *ev.Wait
		m.wait = &w
		m.log.add(kindWait, fmt.Sprintf("waiting until %s (%s): %s", w.Until.Format("15:04:05"), countdown(w.Until.Sub(m.now())), w.Reason))
	case agent.EventUsage:
		if u := ev.Usage; u != nil {
			m.tokens += u.PromptTokens + u.CompletionTokens
			m.cost += u.Cost
		}
	case agent.EventError:
		m.log.add(kindError, ev.Text)
	case agent.EventTurnLimit:
		m.log.add(kindError, "turn limit: "+ev.Text)
	case agent.EventState:
		m.state = ev.State
		if ev.State == agent.Stopped {
			m.log.add(kindInfo, "the agent stopped")
		}
		if ev.Text != "" && ev.State != agent.Running {
			m.log.add(kindInfo, string(ev.State)+": "+ev.Text)
		}
	case eventOutcomeUnknown:
		if ev.Call != nil {
			delete(m.executing, ev.Call.ID)
			m.log.add(kindError, fmt.Sprintf("%s was running when coplay stopped; its outcome is unknown and it was not run again", ev.Call.Tool))
		}
	case eventRules:
		var tools []string
		for t, on := range ev.Rules {
			if on {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			m.log.add(kindInfo, "no tool is always allowed")
		} else {
			m.log.add(kindInfo, "always allowed: "+strings.Join(sortStrings(tools), ", "))
		}
	}
}

// proposed logs a call and, when it waits for a decision, adds it to the pending list
// and starts the grace period.
func (m *Model) proposed(c agent.Call) {
	text := c.Tool + " " + compactJSON(c.Args)
	if len(c.Problems) > 0 {
		var ps []string
		for _, p := range c.Problems {
			ps = append(ps, p.String())
		}
		text += "\ninvalid, not run: " + strings.Join(ps, "; ")
	}
	m.log.add(kindCall, text)
	m.callTools[c.ID] = c.Tool
	if !c.NeedsOK {
		return
	}
	for _, p := range m.pending {
		if p.call.ID == c.ID {
			return
		}
	}
	now := m.now()
	m.pending = append(m.pending, pendingCall{call: c, at: now})
	m.lastArrival = now
}

// removePending drops a decided call from the pending list.
func (m *Model) removePending(id string) {
	for i, p := range m.pending {
		if p.call.ID == id {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			if m.sel >= len(m.pending) {
				m.sel = max(len(m.pending)-1, 0)
			}
			if m.dialog != noDialog && m.dialog != helpDialog && m.dialog != quitDialog && m.dialogCallID() == id {
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
	switch d.Decision {
	case agent.Veto:
		s := "vetoed " + tool + by
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		return s
	case agent.Edit:
		return "edited " + tool + by + " → " + compactJSON(d.Args)
	case agent.Auto:
		return "auto " + tool + by
	}
	return "approved " + tool + by
}
