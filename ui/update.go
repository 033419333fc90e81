package ui

import (
	"encoding/json"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// Update handles one message: an agent event, a key, the mouse, a resize, a tick.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case eventMsg:
		m.seats.event(m, agent.Event(msg))
		return m, tea.Batch(m.nextEvent(), m.notify.need(m.needed()))
	case tea.FocusMsg:
		return m, m.notify.focused(true)
	case tea.BlurMsg:
		return m, m.notify.focused(false)
	case closedMsg:
		m.seats.each(m, func() {
			m.run.closed = true
			m.run.state = agent.Stopped
			m.log.add(kindInfo, "the agent has finished; press q to quit")
		})
		return m, nil
	case tickMsg:
		return m, tick()
	case tea.WindowSizeMsg:
		m.layout.width, m.layout.height = msg.Width, msg.Height
		m.toDialogs(msg)
		return m, nil
	case tea.BackgroundColorMsg:
		m.st = newStyles(msg.IsDark())
		m.applyStyles()
		m.toDialogs(msg)
		return m, nil
	case tea.MouseWheelMsg:
		n := map[tea.MouseButton]int{tea.MouseWheelUp: -3, tea.MouseWheelDown: 3}[msg.Button]
		if s, ok := m.dlg.(scroller); ok { // a view over the panes scrolls, not what is under it
			s.scrollBy(n)
			return m, nil
		}
		pane := m.layout.tab
		for p, r := range m.layout.rects {
			if r.has(msg.X, msg.Y) {
				pane = p
			}
		}
		m.scrollPane(pane, n)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	// Anything else (cursor blinks) goes to the input that has focus.
	return m, m.updateFocused(msg)
}

// toDialogs tells the rules dialog, which lives as long as the Model, and the open
// dialog of a new size or palette.
func (m *Model) toDialogs(msg tea.Msg) {
	m.seats.each(m, func() { m.rules.update(msg) })
	if m.dlg != nil && m.dlg != dialog(m.rules) {
		m.dlg.update(msg)
	}
}

// updateFocused passes msg to the open dialog, or to the advice input when it has the
// focus and the dialog took nothing.
func (m *Model) updateFocused(msg tea.Msg) tea.Cmd {
	if m.dlg != nil {
		if cmd, a := m.dlg.update(msg); cmd != nil || a != nil {
			return tea.Batch(cmd, m.do(a))
		}
	}
	if m.advice.focus {
		cmd, a := m.advice.update(msg)
		return tea.Batch(cmd, m.do(a))
	}
	return nil
}

// handleKey routes a key: the open dialog first, then a question's field being typed,
// then the advice input, then the screen's own bindings. A key typed into an input
// never reaches a decision binding.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	m.hint = ""
	// Quit keys that cannot be typed (ctrl+c) work everywhere.
	if key.Matches(msg, m.keys.Quit) && msg.Text == "" && m.openKind() != quitDialog {
		return m.quit()
	}
	var cmd tea.Cmd
	var a action
	switch {
	case m.dlg != nil:
		cmd, a = m.dlg.update(msg)
	case m.ask.editing:
		cmd, a, _ = m.ask.update(msg)
	case m.advice.focus:
		cmd, a = m.advice.update(msg)
	default:
		return m.screenKey(msg)
	}
	return tea.Batch(cmd, m.do(a))
}

// do does what a dialog, the question pane or the advice input asked for: every command
// the screen sends to the agent on their behalf is sent here.
func (m *Model) do(a action) tea.Cmd {
	switch a := a.(type) {
	case actOpen:
		m.dlg = a.d
	case actHint:
		m.hint = string(a)
	case actQuit:
		return m.stopAndQuit()
	case actDecide:
		m.dlg = nil
		m.seats.with(m, m.seats.seatOf(a.CallID), func() { m.decide(agent.Command(a)) })
	case actRevise:
		m.dlg = nil
		m.seats.with(m, m.seats.seatOf(a.id), func() { m.revise(a.id, a.args) })
	case actRule:
		m.saveRule(a)
	case actUnrule:
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdUnrule, Rule: string(a)}); err != nil {
			m.log.add(kindError, "removing the rule "+string(a)+": "+err.Error())
			break
		}
		// The runner's rules_changed puts "rule removed" in the log.
		m.rules.remove(string(a))
		m.rules.clampSel()
	case actAdvise:
		m.seats.advise(m, string(a))
	case actAnswer:
		m.answer(a)
	}
	return nil
}

// screenKey handles the main screen's bindings, in this order: what the session does,
// a server's question, which pane is shown and where, the pending list, and the
// decisions on its call.
func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.sessionKey(msg); ok {
		return cmd
	}
	if cmd, a, ok := m.ask.update(msg); ok { // a server's question comes before the calls
		return tea.Batch(cmd, m.do(a))
	}
	if cmd, ok := m.seats.key(m, msg); ok { // a league's seats and whole queue
		return cmd
	}
	if m.paneKey(msg) || m.pendingKey(msg) {
		return nil
	}
	km := m.keys
	if key.Matches(msg, km.Approve, km.Veto, km.Edit, km.AlwaysAllow, km.ApproveAll) {
		return m.decisionKey(msg)
	}
	return nil
}

// sessionKey handles quit, help, advice, pause and handing play over; ok says whether
// msg was one of them.
func (m *Model) sessionKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	km := m.keys
	switch {
	case key.Matches(msg, km.Quit):
		return m.quit(), true
	case key.Matches(msg, km.Help):
		m.dlg = &helpView{st: &m.st, km: km, league: m.seats.on()}
		return nil, true
	case key.Matches(msg, km.Advise):
		return m.advice.open(), true
	case key.Matches(msg, km.Pause):
		// Pause a running agent, or resume one that is paused or idle (its turn is
		// over): one key takes it out of either.
		send, next := agent.Command{Cmd: agent.CmdPause}, agent.Paused
		if resumable(m.run.state) {
			send.Cmd, next = agent.CmdResume, agent.Running
		}
		if err := m.agent.Send(send); err != nil {
			m.log.add(kindError, string(send.Cmd)+": "+err.Error())
		} else {
			m.run.state = next
		}
		return nil, true
	case key.Matches(msg, km.KeepPlaying):
		// Hand play over or take it back; the runner's keep_playing event confirms it
		// in the status bar and the log.
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdKeepPlaying, On: !m.run.keepPlaying}); err != nil {
			m.log.add(kindError, "keep playing: "+err.Error())
		}
		return nil, true
	}
	return nil, false
}

// paneKey handles the keys that choose, scroll and filter the panes and open the rules;
// it says whether msg was one of them.
func (m *Model) paneKey(msg tea.KeyPressMsg) bool {
	km := m.keys
	tab := &m.layout.tab
	switch {
	case key.Matches(msg, km.NextTab):
		*tab = (*tab + 1) % numTabs
	case key.Matches(msg, km.PrevTab):
		*tab = (*tab + numTabs - 1) % numTabs
	case key.Matches(msg, km.FocusWorld):
		*tab = tabWorld
	case key.Matches(msg, km.FocusNotes):
		*tab = tabNotes
	case key.Matches(msg, km.FocusLog):
		*tab = tabLog
	case key.Matches(msg, km.ScrollUp):
		m.scrollPane(*tab, -m.pageOf(*tab))
	case key.Matches(msg, km.ScrollDown):
		m.scrollPane(*tab, m.pageOf(*tab))
	case key.Matches(msg, km.Follow):
		m.log.offset = 0
		*tab = tabLog
	case key.Matches(msg, km.ToggleNotebook):
		m.log.toggleNotebook()
		if m.log.hideNotebook {
			m.hint = "notebook bookkeeping hidden from the log; " + firstKey(km.ToggleNotebook) + " shows it"
		}
	case key.Matches(msg, km.Rules):
		m.dlg = m.rules
	case key.Matches(msg, km.Legend):
		var mp *game.Map
		if o := m.world.obs; o != nil {
			mp = o.Map
		}
		m.dlg = &legendView{st: &m.st, km: km, mp: mp}
	case key.Matches(msg, km.Details):
		m.openDetail()
	default:
		return false
	}
	return true
}

// openDetail opens the whole view on what is selected: the step's calls on the replay
// screen, the selected call while calls wait, else the log entry at the bottom of the
// log.
func (m *Model) openDetail() {
	var d *detailView
	p, waits := m.seats.selected(m)
	switch {
	case m.replayStep != nil:
		d = stepDetail(m.replayStep)
	case waits && len(m.ask.items) == 0:
		d = callDetail(p)
	default:
		if d = logDetail(&m.log); d == nil {
			m.hint = "the log is empty"
			return
		}
	}
	d.st, d.km = &m.st, m.keys
	m.dlg = d
}

// resumable says whether the pause key resumes the agent in state s rather than pausing
// it.
func resumable(s agent.State) bool { return s == agent.Paused || s == agent.Idle }

// pendingKey handles unfolding and moving along the pending list (or scrolling the
// pane when nothing waits); it says whether msg was one of them.
func (m *Model) pendingKey(msg tea.KeyPressMsg) bool {
	km, c := m.keys, &m.calls
	switch {
	case key.Matches(msg, km.Unfold):
		if len(c.pending) == 0 {
			m.hint = "no call is waiting for a decision"
			return true
		}
		c.unfold = !c.unfold
	case key.Matches(msg, km.Up):
		if len(c.pending) == 0 {
			m.scrollPane(m.layout.tab, -1)
		} else if c.sel > 0 {
			c.sel--
		}
	case key.Matches(msg, km.Down):
		if len(c.pending) == 0 {
			m.scrollPane(m.layout.tab, 1)
		} else if c.sel < len(c.pending)-1 {
			c.sel++
		}
	default:
		return false
	}
	return true
}

// decisionKey acts on the selected pending call, unless a call appeared too recently
// for the key to have been meant for it.
func (m *Model) decisionKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	if len(m.calls.pending) == 0 {
		m.hint = "no call is waiting for a decision"
		return nil
	}
	if m.now().Sub(m.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a new call just appeared, look first", msg.String())
		return nil
	}
	p := m.calls.pending[m.calls.sel]
	c := p.call
	if p.revising && key.Matches(msg, km.Approve, km.AlwaysAllow, km.ApproveAll) {
		m.hint = "the edited call is being checked; approve it once its new dry run shows"
		return nil
	}
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, km.Approve):
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.Veto):
		m.dlg, cmd = newVetoPrompt(&m.st, km, c, m.layout.width)
	case key.Matches(msg, km.Edit):
		m.dlg, cmd = newArgsEditor(&m.st, km, m.tools, c, m.layout.width, m.layout.height)
	case key.Matches(msg, km.AlwaysAllow):
		line := "allow " + c.Tool
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdRule, Rule: line}); err != nil {
			m.log.add(kindError, "rule "+line+": "+err.Error())
			return nil
		}
		// The runner's rules_changed puts "rule added" in the log.
		m.hint = "rule added: " + line + " (" + firstKey(km.Rules) + " lists, edits and removes rules)"
		m.rules.add(line)
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.ApproveAll):
		for _, p := range append([]pendingCall(nil), m.calls.pending...) {
			if p.revising {
				m.hint = "the edited " + p.call.Tool + " is still being checked; approve it once its new dry run shows"
				continue
			}
			if !m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: p.call.ID, Decision: agent.Approve}) {
				break
			}
		}
	}
	return cmd
}

// decide sends a decision and drops the call from the pending list; on failure the
// call stays and the error is logged.
func (m *Model) decide(cmd agent.Command) bool {
	if err := m.agent.Send(cmd); err != nil {
		m.log.add(kindError, fmt.Sprintf("sending %s for %s: %v", cmd.Decision, m.calls.toolOf(cmd.CallID), err))
		m.hint = fmt.Sprintf("%s not sent: %v", cmd.Decision, err) // seen whatever pane is shown
		return false
	}
	m.dropPending(cmd.CallID)
	return true
}

// dropPending drops a decided call from the pending list, closing the veto or edit
// dialog open on it.
func (m *Model) dropPending(id string) {
	dropped := false
	m.seats.with(m, m.seats.seatOf(id), func() { dropped = m.calls.remove(id) })
	if !dropped {
		return
	}
	if d, ok := m.dlg.(callDialog); ok && d.callID() == id {
		m.dlg = nil
	}
}

// waitFor adds a call that waits for the person to the pending list and starts the
// grace period; calls replayed from the journal do not wait.
func (m *Model) waitFor(c agent.Call) {
	if now := m.now(); !m.history.replaying && m.calls.wait(c, now) {
		m.lastArrival = now
	}
}

// revise sends edited arguments for review. Until the runner answers, the pending pane
// shows the new arguments with "the runner is checking it" and approving waits.
func (m *Model) revise(id string, args json.RawMessage) {
	p := m.calls.find(id)
	switch {
	case p == nil:
		return
	case compactJSON(args) == compactJSON(p.call.Args):
		m.hint = "the arguments are unchanged; nothing sent"
		return
	}
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdRevise, CallID: id, Args: args}); err != nil {
		m.log.add(kindError, "sending the edited arguments of "+p.call.Tool+": "+err.Error())
		m.hint = "the edit was not sent: " + err.Error() // seen whatever pane is shown
		return
	}
	m.calls.revised(p, args)
	m.log.add(kindInfo, "edited "+p.call.Tool+" → "+spacedJSON(args)+" (for review: "+firstKey(m.keys.Approve)+" approves)")
}

// saveRule sends a rule from the rules dialog; an edit removes the rule it replaces
// first. A failure stays in the dialog.
func (m *Model) saveRule(a actRule) {
	if a.replaces != "" {
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdUnrule, Rule: a.replaces}); err != nil {
			m.rules.err = "replacing " + a.replaces + ": " + err.Error()
			return
		}
		m.rules.remove(a.replaces)
	}
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdRule, Rule: a.line}); err != nil {
		m.rules.err = err.Error()
		return
	}
	m.rules.saved(a.line)
}

// answer sends the answer to a server's question, unless the question appeared too
// recently for the key to have been meant for it.
func (m *Model) answer(a actAnswer) {
	if m.now().Sub(m.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a question just appeared, read it first", a.key.String())
		return
	}
	c, err := m.ask.answer(a.item, a.key)
	if err == nil {
		err = m.agent.Send(c)
	}
	if err != nil {
		m.hint = "not sent: " + err.Error()
	}
}

// logAdvice logs advice and shows it in the notes until the model folds it in.
func (m *Model) logAdvice(text string) {
	m.log.add(kindAdvice, "you: "+text)
	m.notes.queued = append(m.notes.queued, text)
}

// quit asks first while a call runs or waits for a decision.
func (m *Model) quit() tea.Cmd {
	if m.seats.busy(m) > 0 {
		m.dlg = &quitPrompt{st: &m.st, km: m.keys, busy: func() int { return m.seats.busy(m) }}
		return nil
	}
	return m.stopAndQuit()
}

// stopAndQuit tells the agent to stop (the session is kept) and ends the program.
func (m *Model) stopAndQuit() tea.Cmd {
	if m.agent != nil && !m.run.closed {
		_ = m.agent.Send(agent.Command{Cmd: agent.CmdStop})
	}
	return tea.Quit
}

// scrollPane scrolls pane p by n lines: down for positive n, up for negative.
func (m *Model) scrollPane(p, n int) {
	switch p {
	case tabWorld:
		m.world.scroll.by(n)
	case tabNotes:
		m.notes.scroll.by(n)
	default:
		m.log.scroll(-n) // the log counts up from its end
	}
}

// pageOf is how far a page key scrolls pane p: its height as last drawn, less one.
func (m *Model) pageOf(p int) int {
	switch p {
	case tabWorld:
		return m.world.scroll.page()
	case tabNotes:
		return m.notes.scroll.page()
	}
	return max(m.layout.rects[tabLog].h-3, 1)
}
