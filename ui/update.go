package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// Update handles one message: an agent event, a key, the mouse, a resize, a tick.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case eventMsg:
		ev := agent.Event(msg)
		m.handleEvent(ev)
		if ev.Type == agent.EventState {
			m.notify.stateText = ev.Text
		}
		return m, tea.Batch(m.nextEvent(), m.notify.need(m.needed()))
	case tea.FocusMsg:
		return m, m.notify.focused(true)
	case tea.BlurMsg:
		return m, m.notify.focused(false)
	case closedMsg:
		m.closed = true
		m.state = agent.Stopped
		m.log.add(kindInfo, "the agent has finished; press q to quit")
		return m, nil
	case tickMsg:
		return m, tick()
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resizeWidgets()
		return m, nil
	case tea.BackgroundColorMsg:
		m.st = newStyles(msg.IsDark())
		m.applyStyles()
		return m, nil
	case tea.MouseWheelMsg:
		n := map[tea.MouseButton]int{tea.MouseWheelUp: -3, tea.MouseWheelDown: 3}[msg.Button]
		switch {
		case m.detail != nil: // a view over the panes scrolls, not what is under it
			m.detail.scroll.by(n)
		case m.legend != nil:
			m.legend.scroll.by(n)
		default:
			pane := m.tab
			for p, r := range m.rects {
				if r.has(msg.X, msg.Y) {
					pane = p
				}
			}
			m.scrollPane(pane, n)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	// Anything else (cursor blinks) goes to the input that has focus.
	return m, m.updateFocused(msg)
}

// updateFocused passes msg to whichever text input has focus.
func (m *Model) updateFocused(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case m.dialog == vetoDialog:
		cmd = typed(&m.vetoInput, msg)
	case m.dialog == rulesDialog && m.ruleEditing:
		cmd = typed(&m.ruleInput, msg)
	case m.dialog == editDialog:
		cmd = typed(&m.editor, msg)
		m.validateEdit()
	case m.adviceFocus:
		cmd = typed(&m.advice, msg)
	}
	return cmd
}

// typed passes msg to a text input (a textinput or the textarea) and keeps what it
// becomes.
func typed[I interface{ Update(tea.Msg) (I, tea.Cmd) }](in *I, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*in, cmd = (*in).Update(msg)
	return cmd
}

// closeDialog closes the veto or edit dialog, taking the focus from its input.
func (m *Model) closeDialog() {
	switch m.dialog {
	case vetoDialog:
		m.vetoInput.Blur()
	case editDialog:
		m.editor.Blur()
	}
	m.dialog = noDialog
}

// leaveAdvice takes the focus from the advice input, back to the decisions.
func (m *Model) leaveAdvice() {
	m.adviceFocus = false
	m.advice.Blur()
}

// handleKey routes a key: dialogs first, then the advice input, then the screen's
// own bindings. A key typed into an input never reaches a decision binding.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	m.hint = ""
	// Quit keys that cannot be typed (ctrl+c) work everywhere.
	if key.Matches(msg, m.keys.Quit) && msg.Text == "" && m.dialog != quitDialog {
		return m.quit()
	}
	if m.detail != nil {
		cmd, closed := m.detail.Update(msg, m.keys)
		if closed {
			m.detail = nil
		}
		return cmd
	}
	if m.legend != nil {
		if m.legend.Update(msg, m.keys) {
			m.legend = nil
		}
		return nil
	}
	switch m.dialog {
	case helpDialog:
		m.helpKey(msg)
		return nil
	case quitDialog:
		return m.quitKey(msg)
	case vetoDialog:
		return m.vetoKey(msg)
	case editDialog:
		return m.editKey(msg)
	case rulesDialog:
		return m.rulesKey(msg)
	}
	if m.ask.editing {
		return m.askInputKey(msg)
	}
	if m.adviceFocus {
		return m.adviceKey(msg)
	}
	return m.screenKey(msg)
}

// helpKey closes or scrolls the help.
func (m *Model) helpKey(msg tea.KeyPressMsg) {
	km := m.keys
	switch {
	case key.Matches(msg, km.Help, km.Cancel) || (key.Matches(msg, km.Quit) && !m.adviceFocus):
		m.dialog = m.returnTo
		m.returnTo = noDialog
	default:
		scrollKey(&m.helpScroll, km, msg)
	}
}

// quitKey answers the quit question.
func (m *Model) quitKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Yes):
		return m.stopAndQuit()
	case key.Matches(msg, m.keys.No, m.keys.Cancel):
		m.dialog = noDialog
	}
	return nil
}

// adviceKey handles the advice input: cancel leaves it, send sends it, anything else
// is typed into it.
func (m *Model) adviceKey(msg tea.KeyPressMsg) tea.Cmd {
	return m.lineKey(msg, &m.advice, m.leaveAdvice, m.sendAdvice)
}

// lineKey handles a one-line input (the advice, a veto's reason): cancel calls leave,
// send calls send, anything else is typed into in.
func (m *Model) lineKey(msg tea.KeyPressMsg, in *textinput.Model, leave, send func()) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		leave()
		return nil
	case key.Matches(msg, m.keys.Send):
		send()
		return nil
	}
	return typed(in, msg)
}

// screenKey handles the main screen's bindings, in this order: what the session does,
// which pane is shown and where, the pending list, and the decisions on its call.
func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.sessionKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.formKey(msg); ok { // a server's question comes before the calls
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
		m.dialog = helpDialog
		m.helpScroll = paneScroll{}
	case key.Matches(msg, km.Advise):
		m.adviceFocus = true
		return m.advice.Focus(), true
	case key.Matches(msg, km.Pause):
		m.togglePause()
	case key.Matches(msg, km.KeepPlaying):
		m.toggleKeepPlaying()
	default:
		return nil, false
	}
	return nil, true
}

// paneKey handles the keys that choose, scroll and filter the panes and open the rules;
// it says whether msg was one of them.
func (m *Model) paneKey(msg tea.KeyPressMsg) bool {
	km := m.keys
	switch {
	case key.Matches(msg, km.NextTab):
		m.tab = (m.tab + 1) % numTabs
	case key.Matches(msg, km.PrevTab):
		m.tab = (m.tab + numTabs - 1) % numTabs
	case key.Matches(msg, km.FocusWorld):
		m.tab = tabWorld
	case key.Matches(msg, km.FocusNotes):
		m.tab = tabNotes
	case key.Matches(msg, km.FocusLog):
		m.tab = tabLog
	case key.Matches(msg, km.ScrollUp):
		m.scrollPane(m.tab, -m.pageOf(m.tab))
	case key.Matches(msg, km.ScrollDown):
		m.scrollPane(m.tab, m.pageOf(m.tab))
	case key.Matches(msg, km.Follow):
		m.log.offset = 0
		m.tab = tabLog
	case key.Matches(msg, km.ToggleNotebook):
		m.log.toggleNotebook()
		if m.log.hideNotebook {
			m.hint = "notebook bookkeeping hidden from the log; " + firstKey(km.ToggleNotebook) + " shows it"
		}
	case key.Matches(msg, km.Rules):
		m.dialog = rulesDialog
	case key.Matches(msg, km.Legend):
		var mp *game.Map
		if o := m.world.obs; o != nil {
			mp = o.Map
		}
		m.legend = &legendView{mp: mp}
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
	switch {
	case m.replayStep != nil:
		m.detail = stepDetail(m.replayStep)
	case len(m.pending) > 0 && len(m.ask.items) == 0:
		m.detail = callDetail(m.pending[min(m.sel, len(m.pending)-1)])
	default:
		m.detail = logDetail(&m.log)
		if m.detail == nil {
			m.hint = "the log is empty"
		}
	}
}

// pendingKey handles unfolding and moving along the pending list (or scrolling the
// pane when nothing waits); it says whether msg was one of them.
func (m *Model) pendingKey(msg tea.KeyPressMsg) bool {
	km := m.keys
	switch {
	case key.Matches(msg, km.Unfold):
		if len(m.pending) == 0 {
			m.hint = "no call is waiting for a decision"
			return true
		}
		m.unfold = !m.unfold
	case key.Matches(msg, km.Up):
		if len(m.pending) == 0 {
			m.scrollPane(m.tab, -1)
		} else if m.sel > 0 {
			m.sel--
		}
	case key.Matches(msg, km.Down):
		if len(m.pending) == 0 {
			m.scrollPane(m.tab, 1)
		} else if m.sel < len(m.pending)-1 {
			m.sel++
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
	if len(m.pending) == 0 {
		m.hint = "no call is waiting for a decision"
		return nil
	}
	if m.now().Sub(m.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a new call just appeared, look first", msg.String())
		return nil
	}
	c := m.pending[m.sel].call
	if m.pending[m.sel].revising && key.Matches(msg, km.Approve, km.AlwaysAllow, km.ApproveAll) {
		m.hint = "the edited call is being checked; approve it once its new dry run shows"
		return nil
	}
	switch {
	case key.Matches(msg, km.Approve):
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.Veto):
		m.dialog = vetoDialog
		m.editCall = c
		m.vetoInput.Reset()
		return m.vetoInput.Focus()
	case key.Matches(msg, km.Edit):
		return m.openEditor(c)
	case key.Matches(msg, km.AlwaysAllow):
		line := "allow " + c.Tool
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdRule, Rule: line}); err != nil {
			m.log.add(kindError, "rule "+line+": "+err.Error())
			return nil
		}
		// The runner's rules_changed puts "rule added" in the log.
		m.hint = "rule added: " + line + " (" + firstKey(km.Rules) + " lists, edits and removes rules)"
		m.addRule(line)
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.ApproveAll):
		for _, p := range append([]pendingCall(nil), m.pending...) {
			if p.revising {
				m.hint = "the edited " + p.call.Tool + " is still being checked; approve it once its new dry run shows"
				continue
			}
			if !m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: p.call.ID, Decision: agent.Approve}) {
				break
			}
		}
	}
	return nil
}

// decide sends a decision and drops the call from the pending list; on failure the
// call stays and the error is logged.
func (m *Model) decide(cmd agent.Command) bool {
	if err := m.agent.Send(cmd); err != nil {
		m.log.add(kindError, fmt.Sprintf("sending %s for %s: %v", cmd.Decision, m.toolOf(cmd.CallID), err))
		m.hint = fmt.Sprintf("%s not sent: %v", cmd.Decision, err) // seen whatever pane is shown
		return false
	}
	m.removePending(cmd.CallID)
	return true
}

// vetoKey handles the veto reason prompt.
func (m *Model) vetoKey(msg tea.KeyPressMsg) tea.Cmd {
	return m.lineKey(msg, &m.vetoInput, m.closeDialog, func() {
		m.closeDialog()
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: m.editCall.ID, Decision: agent.Veto, Reason: strings.TrimSpace(m.vetoInput.Value())})
	})
}

// sendAdvice sends the advice input's text; it is logged and shown in the notes
// until the model folds it in.
func (m *Model) sendAdvice() {
	text := strings.TrimSpace(m.advice.Value())
	if text == "" {
		return
	}
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdAdvise, Text: text}); err != nil {
		m.log.add(kindError, "sending advice: "+err.Error())
		return
	}
	m.sentAdvice[text]++
	m.log.add(kindAdvice, "you: "+text)
	m.notes.queued = append(m.notes.queued, text)
	m.advice.Reset()
	// Back to the decisions: the next "a" approves rather than starting more advice.
	m.leaveAdvice()
}

// togglePause pauses a running agent, or resumes one that is paused or idle (its turn
// is over): one key takes it out of either.
func (m *Model) togglePause() {
	cmd, next := agent.CmdPause, agent.Paused
	if resumable(m.state) {
		cmd, next = agent.CmdResume, agent.Running
	}
	if err := m.agent.Send(agent.Command{Cmd: cmd}); err != nil {
		m.log.add(kindError, string(cmd)+": "+err.Error())
		return
	}
	m.state = next
}

// resumable says whether the pause key resumes the agent in state s rather than pausing
// it.
func resumable(s agent.State) bool { return s == agent.Paused || s == agent.Idle }

// toggleKeepPlaying hands play over to the agent or takes it back; the runner's
// keep_playing event confirms it in the status bar and the log.
func (m *Model) toggleKeepPlaying() {
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdKeepPlaying, On: !m.keepPlaying}); err != nil {
		m.log.add(kindError, "keep playing: "+err.Error())
	}
}

// quit asks first while a call runs or waits for a decision.
func (m *Model) quit() tea.Cmd {
	if len(m.executing) > 0 || len(m.pending) > 0 {
		m.dialog = quitDialog
		return nil
	}
	return m.stopAndQuit()
}

// stopAndQuit tells the agent to stop (the session is kept) and ends the program.
func (m *Model) stopAndQuit() tea.Cmd {
	if m.agent != nil && !m.closed {
		_ = m.agent.Send(agent.Command{Cmd: agent.CmdStop})
	}
	return tea.Quit
}

// dialogCallID is the call the open veto or edit dialog is about.
func (m *Model) dialogCallID() string { return m.editCall.ID }

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
	return max(m.rects[tabLog].h-3, 1)
}
