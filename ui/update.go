package ui

import (
	"encoding/json"
	"fmt"
	"strings"

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
		for _, v := range m.seats.list {
			v.run.closed = true
			v.run.state = agent.Stopped
			v.log.add(kindInfo, "the agent has finished; press q to quit")
		}
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
	for _, v := range m.seats.list {
		v.rules.update(msg)
	}
	if _, rules := m.dlg.(*ruleBook); m.dlg != nil && !rules {
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
		cmd, a = m.dialogKey(msg)
	case m.cur().ask.editing:
		cmd, a, _ = m.cur().ask.update(msg)
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
		m.open(a.d)
	case actHint:
		m.hint = string(a)
	case actQuit:
		return m.stopAndQuit()
	case actDecide:
		m.open(nil)
		m.decide(m.seats.callView(a.CallID), agent.Command(a))
	case actRevise:
		m.open(nil)
		m.revise(m.seats.callView(a.id), a.id, a.args)
	case actRule:
		m.saveRule(m.rulesView(), a)
	case actUnrule:
		v := m.rulesView()
		if err := m.tell(v, agent.Command{Cmd: agent.CmdUnrule, Rule: string(a)}); err != nil {
			v.log.add(kindError, "removing the rule "+string(a)+": "+err.Error())
			break
		}
		// The runner's rules_changed puts "rule removed" in the log.
		v.rules.remove(string(a))
		v.rules.clampSel()
	case actAdvise:
		if strings.HasPrefix(string(a), "?") {
			m.ask(string(a)) // a question: answered in words
			break
		}
		m.seats.advise(m, string(a))
	case actPlay:
		m.play(a)
	case actPreview:
		return m.preview(a)
	case actAnswer:
		m.answer(a)
	}
	return nil
}

// screenKey handles the main screen's bindings, in this order: what the session does,
// a server's question, which pane is shown and where, the pending list, and the
// decisions on its call.
func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	if m.info.ReadOnly && key.Matches(msg, km.Approve, km.Veto, km.Edit, km.AlwaysAllow, km.ApproveAll, km.Advise, km.Pause, km.KeepPlaying,
		km.Move, km.TakeWheel) {
		m.hint = readOnlyHint // nothing that would steer opens, to be refused when sent
		return nil
	}
	if cmd, ok := m.sessionKey(msg); ok {
		return cmd
	}
	if !m.info.ReadOnly { // a server's question comes before the calls; a watcher cannot answer it
		if cmd, a, ok := m.cur().ask.update(msg); ok {
			return tea.Batch(cmd, m.do(a))
		}
	}
	if cmd, ok := m.seats.key(m, msg); ok { // a league's seats and whole queue
		return cmd
	}
	if m.paneKey(msg) || m.pendingKey(msg) {
		return nil
	}
	if key.Matches(msg, km.Approve, km.Veto, km.Edit, km.AlwaysAllow, km.ApproveAll) {
		return m.decisionKey(m.cur(), msg)
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
		m.open(&helpView{st: &m.st, km: km, league: m.seats.on(), watch: m.info.ReadOnly})
		return nil, true
	case key.Matches(msg, km.Advise):
		return m.advice.open(), true
	case key.Matches(msg, km.Pause):
		// Pause a running agent, or resume one that is paused or idle (its turn is
		// over): one key takes it out of either.
		v := m.cur()
		send, next := agent.Command{Cmd: agent.CmdPause}, agent.Paused
		if resumable(v.run.state) {
			send.Cmd, next = agent.CmdResume, agent.Running
		}
		if err := m.tell(v, send); err != nil {
			v.log.add(kindError, string(send.Cmd)+": "+err.Error())
		} else {
			v.run.state = next
		}
		return nil, true
	case key.Matches(msg, km.Move):
		return m.openMove(), true
	case key.Matches(msg, km.TakeWheel):
		m.takeWheel()
		return nil, true
	case key.Matches(msg, km.KeepPlaying):
		// Hand play over or take it back; the runner's keep_playing event confirms it
		// in the status bar and the log.
		v := m.cur()
		if err := m.tell(v, agent.Command{Cmd: agent.CmdKeepPlaying, On: !v.run.keepPlaying}); err != nil {
			v.log.add(kindError, "keep playing: "+err.Error())
		}
		return nil, true
	}
	return nil, false
}

// paneKey handles the keys that choose, scroll and filter the panes and open the rules;
// it says whether msg was one of them.
func (m *Model) paneKey(msg tea.KeyPressMsg) bool {
	km, v := m.keys, m.cur()
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
		v.log.offset = 0
		*tab = tabLog
	case key.Matches(msg, km.ToggleNotebook):
		v.log.toggleNotebook()
		if v.log.hideNotebook {
			m.hint = "notebook bookkeeping hidden from the log; " + firstKey(km.ToggleNotebook) + " shows it"
		}
	case key.Matches(msg, km.Rules):
		m.open(v.rules)
	case key.Matches(msg, km.Legend):
		var mp *game.Map
		if o := v.world.obs; o != nil {
			mp = o.Map
		}
		m.open(&legendView{st: &m.st, km: km, mp: mp})
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
	p, waits := m.seats.selected()
	switch {
	case m.replayStep != nil:
		d = stepDetail(m.replayStep)
	case waits && len(m.cur().ask.items) == 0:
		d = callDetail(p)
	default:
		if d = logDetail(&m.cur().log); d == nil {
			m.hint = "the log is empty"
			return
		}
	}
	d.st, d.km = &m.st, m.keys
	m.open(d)
}

// resumable says whether the pause key resumes the agent in state s rather than pausing
// it.
func resumable(s agent.State) bool { return s == agent.Paused || s == agent.Idle }

// pendingKey handles unfolding and moving along the pending list (or scrolling the
// pane when nothing waits); it says whether msg was one of them.
func (m *Model) pendingKey(msg tea.KeyPressMsg) bool {
	km, c := m.keys, &m.cur().calls
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

// decisionKey acts on view v's selected pending call, unless a call appeared too
// recently for the key to have been meant for it.
func (m *Model) decisionKey(v *seatView, msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	if len(v.calls.pending) == 0 {
		m.hint = "no call is waiting for a decision"
		return nil
	}
	if m.now().Sub(v.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a new call just appeared, look first", msg.String())
		return nil
	}
	if m.now().Sub(m.moved) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: the call you had selected was decided elsewhere, look first", msg.String())
		return nil
	}
	p := v.calls.pending[v.calls.sel]
	c := p.call
	if p.revising && key.Matches(msg, km.Approve, km.AlwaysAllow, km.ApproveAll) {
		m.hint = "the edited call is being checked; approve it once its new dry run shows"
		return nil
	}
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, km.Approve):
		m.decide(v, agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.Veto):
		var d *vetoPrompt
		d, cmd = newVetoPrompt(&m.st, km, c, m.layout.width)
		m.open(d)
	case key.Matches(msg, km.Edit):
		var d *argsEditor
		d, cmd = newArgsEditor(&m.st, km, m.tools, c, m.layout.width, m.layout.height)
		m.open(d)
	case key.Matches(msg, km.AlwaysAllow):
		line := "allow " + c.Tool
		if err := m.tell(v, agent.Command{Cmd: agent.CmdRule, Rule: line}); err != nil {
			v.log.add(kindError, "rule "+line+": "+err.Error())
			return nil
		}
		// The runner's rules_changed puts "rule added" in the log.
		m.hint = "rule added: " + line + " (" + firstKey(km.Rules) + " lists, edits and removes rules)"
		v.rules.add(line)
		m.decide(v, agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	case key.Matches(msg, km.ApproveAll):
		for _, p := range append([]pendingCall(nil), v.calls.pending...) {
			if p.revising {
				m.hint = "the edited " + p.call.Tool + " is still being checked; approve it once its new dry run shows"
				continue
			}
			if !m.decide(v, agent.Command{Cmd: agent.CmdDecide, CallID: p.call.ID, Decision: agent.Approve}) {
				break
			}
		}
	}
	return cmd
}

// decide sends a decision on one of view v's calls and drops the call from its pending
// list; on failure the call stays and the error is logged.
func (m *Model) decide(v *seatView, cmd agent.Command) bool {
	if err := m.agent.Send(cmd); err != nil {
		v.log.add(kindError, fmt.Sprintf("sending %s for %s: %v", cmd.Decision, v.calls.toolOf(cmd.CallID), err))
		m.hint = fmt.Sprintf("%s not sent: %v", cmd.Decision, err) // seen whatever pane is shown
		return false
	}
	v.calls.remove(cmd.CallID)
	return true
}

// takenElsewhere drops from view v's pending list a call that was decided or started
// without this screen: by another screen, the headless side or a rule. A dialog open on
// it stays open and says what became of it (what: "approved on the other screen"), and
// when it was the selected call, the decision keys wait a grace period, since the
// selection now rests on a call the person did not choose.
func (m *Model) takenElsewhere(v *seatView, id, what string) {
	selected := m.seats.selectedID() == id
	if !v.calls.remove(id) || m.replaying {
		return
	}
	m.settle(id, what)
	if selected && m.settled == "" {
		m.moved = m.now()
		m.hint = v.calls.toolOf(id) + " was " + what
	}
}

// waitFor adds a call that waits for the person to view v's pending list and starts its
// grace period; calls replayed from the journal do not wait.
func (m *Model) waitFor(v *seatView, c agent.Call) {
	if now := m.now(); !m.replaying && v.calls.wait(c, now) {
		v.lastArrival = now
	}
}

// revise sends edited arguments for review. Until the runner answers, the pending pane
// shows the new arguments with "the runner is checking it" and approving waits.
func (m *Model) revise(v *seatView, id string, args json.RawMessage) {
	p := v.calls.find(id)
	switch {
	case p == nil:
		return
	case compactJSON(args) == compactJSON(p.call.Args):
		m.hint = "the arguments are unchanged; nothing sent"
		return
	}
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdRevise, CallID: id, Args: args}); err != nil {
		v.log.add(kindError, "sending the edited arguments of "+p.call.Tool+": "+err.Error())
		m.hint = "the edit was not sent: " + err.Error() // seen whatever pane is shown
		return
	}
	v.calls.revised(p, args)
	v.log.add(kindInfo, "edited "+p.call.Tool+" → "+spacedJSON(args)+" (for review: "+firstKey(m.keys.Approve)+" approves)")
}

// rulesView is the view whose rules the rules dialog shows: the seat it names.
func (m *Model) rulesView() *seatView {
	if b, ok := m.dlg.(*ruleBook); ok {
		return m.seats.viewOf(b.seat)
	}
	return m.cur()
}

// saveRule sends a rule from view v's rules dialog; an edit removes the rule it
// replaces first. A failure stays in the dialog.
func (m *Model) saveRule(v *seatView, a actRule) {
	b := v.rules
	if a.replaces != "" {
		if err := m.tell(v, agent.Command{Cmd: agent.CmdUnrule, Rule: a.replaces}); err != nil {
			b.err = "replacing " + a.replaces + ": " + err.Error()
			return
		}
		b.remove(a.replaces)
	}
	if err := m.tell(v, agent.Command{Cmd: agent.CmdRule, Rule: a.line}); err != nil {
		b.err = err.Error()
		return
	}
	b.saved(a.line)
}

// answer sends the answer to a server's question, unless the question appeared too
// recently for the key to have been meant for it.
func (m *Model) answer(a actAnswer) {
	v := m.cur()
	if m.now().Sub(v.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a question just appeared, read it first", a.key.String())
		return
	}
	c, err := v.ask.answer(a.item, a.key)
	if err == nil {
		err = m.agent.Send(c)
	}
	if err != nil {
		m.hint = "not sent: " + err.Error()
	}
}

// logAdvice logs advice in view v and shows it in its notes until the model folds it in.
func (m *Model) logAdvice(v *seatView, text string) {
	v.log.add(kindAdvice, "you: "+text)
	v.notes.queued = append(v.notes.queued, text)
}

// quit asks first while a call runs or waits for a decision; a second screen always
// asks, to detach.
func (m *Model) quit() tea.Cmd {
	if m.info.Attached || m.seats.busy() > 0 {
		m.open(&quitPrompt{st: &m.st, km: m.keys, busy: m.seats.busy, detach: m.info.Attached})
		return nil
	}
	return m.stopAndQuit()
}

// stopAndQuit tells the agent to stop (the session is kept) and ends the program. A
// second screen only detaches: the game plays on.
func (m *Model) stopAndQuit() tea.Cmd {
	if m.agent != nil && !m.cur().run.closed && !m.info.Attached {
		_ = m.agent.Send(agent.Command{Cmd: agent.CmdStop})
	}
	return tea.Quit
}

// scrollPane scrolls pane p by n lines: down for positive n, up for negative.
func (m *Model) scrollPane(p, n int) {
	v := m.cur()
	switch p {
	case tabWorld:
		v.world.scroll.by(n)
	case tabNotes:
		v.notes.scroll.by(n)
	default:
		v.log.scroll(-n) // the log counts up from its end
	}
}

// pageOf is how far a page key scrolls pane p: its height as last drawn, less one.
func (m *Model) pageOf(p int) int {
	switch p {
	case tabWorld:
		return m.cur().world.scroll.page()
	case tabNotes:
		return m.cur().notes.scroll.page()
	}
	return max(m.layout.rects[tabLog].h-3, 1)
}
