package ui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
)

// The person plays too: their own moves (the move line, move.go), the wheel (T: while
// the person holds it the agent asks no model and takes no step) and questions (advice
// that starts with "?"). Everything goes to the runner as its commands: play,
// take_over, ask.

// PersonSeatModel is the model a league seat of the person's own is shown with
// (SeatInfo.Model): it has no agent, so the wheel is the person's for good.
const PersonSeatModel = "person"

// previewWait bounds how long the move line waits for a dry run.
const previewWait = 30 * time.Second

// openMove opens the move line for the focused seat.
func (m *Model) openMove() tea.Cmd {
	v := m.cur()
	d, cmd := newMoveLine(&m.st, m.keys, m.tools, v.rules.denySet(), v.Name, m.layout.width)
	m.open(d)
	return tea.Batch(cmd, m.do(d.check()))
}

// takeWheel takes the wheel of the focused seat, or hands it back; the runner's wheel
// event confirms it in the status bar and the log.
func (m *Model) takeWheel() {
	v := m.cur()
	on := v.run.plays != agent.PlaysPerson
	if err := m.tell(v, agent.Command{Cmd: agent.CmdTakeOver, On: on}); err != nil {
		v.log.add(kindError, "take the wheel: "+err.Error())
		m.hint = "not sent: " + err.Error()
	}
}

// play sends the person's move; the runner's tool_started and tool_result log it.
func (m *Model) play(a actPlay) {
	v := m.seats.viewOf(a.seat)
	if err := m.tell(v, agent.Command{Cmd: agent.CmdPlay, Tool: a.tool, Args: a.args, Force: a.force}); err != nil {
		m.hint = "the move was not played: " + err.Error()
		return
	}
	m.open(nil)
}

// preview asks the runner, off the screen's loop, for the dry run of a move as typed;
// the answer goes to the move line (previewMsg). A runner that cannot preview (a screen
// on another process's game) says nothing, and the line says the game cannot say.
func (m *Model) preview(a actPreview) tea.Cmd {
	p, ok := m.agent.(agent.Previewer)
	if !ok {
		return func() tea.Msg { return previewMsg{key: a.key} }
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), previewWait)
		defer cancel()
		return previewMsg{key: a.key, preview: p.Preview(ctx, a.seat, a.tool, a.args)}
	}
}

// ask sends a question ("?" typed in the advice line) to the focused seat; the
// runner's question and reply events log it and its answer.
func (m *Model) ask(text string) {
	v := m.cur()
	q := strings.TrimSpace(strings.TrimPrefix(text, "?"))
	if q == "" {
		m.hint = "no question after ?; nothing sent"
		return
	}
	if err := m.tell(v, agent.Command{Cmd: agent.CmdAsk, Text: q}); err != nil {
		v.log.add(kindError, "asking: "+err.Error())
		m.hint = "the question was not sent: " + err.Error()
		return
	}
	m.advice.input.Reset()
	m.advice.leave()
}

// denySet is the deny rules among the rules the dialog lists: those that refuse the
// person's move unless it is played twice.
func (b *ruleBook) denySet() rules.Set {
	var out rules.Set
	lines := make([]string, 0, len(b.fixed)+len(b.session))
	for _, f := range b.fixed {
		lines = append(lines, f.Line)
	}
	for _, l := range append(lines, b.session...) {
		if r, err := rules.Parse(l); err == nil && r.Action == rules.Deny {
			out = append(out, r)
		}
	}
	return out
}

// onWheel takes who plays, and logs it.
func onWheel(m *Model, v *seatView, ev agent.Event) {
	v.run.plays = ev.Plays
	v.log.add(kindInfo, ev.Text)
}

// onQuestion logs the person's question, naming where it was asked when not here.
func onQuestion(m *Model, v *seatView, ev agent.Event) {
	v.log.add(kindAdvice, whoSaid(m, ev.Via, "you asked", "asked")+": "+ev.Text)
}

// onReply ends the answer that streamed in, as the model's words.
func onReply(m *Model, v *seatView, ev agent.Event) {
	v.log.finishText("answer: " + ev.Text)
}

// whoSaid names who gave advice, asked or played: mine when it came from this screen
// (or an older journal), else the other screen, an attached one, ssh:KEY, stdin.
func whoSaid(m *Model, via, mine, verb string) string {
	switch {
	case via == "" || via == "screen" && !m.info.Attached:
		return mine
	case via == "screen":
		return verb + " (on the other screen)"
	case via == "attach":
		return verb + " (on an attached screen)"
	}
	return verb + " (on " + via + ")"
}
