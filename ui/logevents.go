package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// How events read in the log: the log's own methods for the events that only write to
// it, and the words for states, decisions and progress.

// thinkingLines is how many lines of the model's reasoning the log shows; the rest is
// folded into a count.
const thinkingLines = 3

// thinking logs the model's reasoning dimmed and folded: it explains the step, but it
// is not what the model said.
func (l *logView) thinking(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if n := len(lines) - thinkingLines; n > 0 {
		lines = append(lines[:thinkingLines], fmt.Sprintf("… %d more lines of thinking", n))
	}
	l.addAside(kindThinking, "thinking: "+strings.Join(lines, "\n"), "thinking: "+text)
}

// trigger logs what happened in the game to wake the agent, with its own mark.
func (l *logView) trigger(ev agent.Event) {
	if ev.Trigger == nil {
		l.add(kindTrigger, ev.Text)
		return
	}
	l.add(kindTrigger, ev.Trigger.String())
}

// serverLog logs a server's log line, as a problem from warning up.
func (l *logView) serverLog(ev agent.Event) {
	k := kindInfo
	if sl := ev.ServerLog; sl != nil && (sl.Level == "error" || sl.Level == "critical" || sl.Level == "alert" || sl.Level == "emergency" || sl.Level == "warning") {
		k = kindError
	}
	l.add(k, ev.Text)
}

// progress draws the running call's progress as the log's last line, replaced while it
// stays last.
func (l *logView) progress(p *agent.Progress) {
	if p == nil || l.muted {
		return
	}
	text := progressBar(p)
	if n := len(l.entries); n > 0 && l.entries[n-1] == l.progEntry && l.progCall == p.CallID {
		e := l.progEntry
		e.text, e.width = text, -1
		return
	}
	e := &entry{kind: kindWait, text: text}
	l.addEntry(e)
	l.progEntry, l.progCall = e, p.CallID
}

// progressBar draws progress: "▕██████░░░░▏ 6/10 digging", or "… 6 digging" without a
// total.
func progressBar(p *agent.Progress) string {
	num := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	s := "… " + num
	if p.Total > 0 {
		const width = 20
		done := int(min(max(p.Progress/p.Total, 0), 1) * width)
		s = "▕" + strings.Repeat("█", done) + strings.Repeat("░", width-done) + "▏ " + num + "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Server != "" {
		s = p.Server + " " + s
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
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

func decisionKind(v agent.Verdict) kind {
	if v == agent.Veto {
		return kindVeto
	}
	return kindDecision
}

// settledText says what became of a call decided without this screen, for a dialog
// still open on it: "approved on the other screen", "vetoed on ssh:alice", "approved by
// a rule (allow dock_ship)".
func settledText(d *agent.Decision) string {
	verb := map[agent.Verdict]string{agent.Approve: "approved", agent.Veto: "vetoed", agent.Edit: "edited and approved",
		agent.Auto: "run without asking"}[d.Decision]
	if verb == "" {
		verb = "decided"
	}
	switch {
	case d.By == "rule" && d.Rule != "":
		return verb + " by a rule (" + d.Rule + ")"
	case d.By == "rule", d.By == "policy":
		return verb + " by the approval rules"
	case d.Via == "screen":
		return verb + " on the other screen"
	case d.Via == "attach":
		return verb + " on an attached screen"
	case d.Via == "stdin":
		return verb + " on the headless side (stdin)"
	case d.Via != "":
		return verb + " on " + d.Via // ssh:KEY
	}
	return verb + " elsewhere"
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
