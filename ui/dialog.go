package ui

import (
	"encoding/json"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// A dialog is the modal thing on top of the panes (veto reason, JSON editor, rules,
// help, quit). Each one is its own type in its own file and holds its own state: the
// Model routes every key to the open dialog, draws it over the panes, and does what the
// dialog's update returns (an action). A dialog never sends to the agent itself, so
// what reaches the runner is decided in one place (Model.do).
type dialog interface {
	// kind says which dialog this is, for the routing's few special cases and tests.
	kind() dialogKind
	// update handles a message (a key, a cursor blink, a resize, the background colour)
	// and says what the Model must do, if anything.
	update(msg tea.Msg) (tea.Cmd, action)
	// view draws the dialog in at most w×h. Its last line inside the box is its keys:
	// the Model puts there what became of a call decided elsewhere (openDialog).
	view(w, h int) []string
	// hint is what the line above the status bar says while the dialog is open: what
	// the person is doing in it, and the keys that finish it.
	hint() (lead string, keys []key.Binding)
}

// dialogKind names a dialog.
type dialogKind int

const (
	noDialog dialogKind = iota
	vetoDialog
	editDialog
	quitDialog
	helpDialog
	rulesDialog
	detailDialog // the whole view of a call or a log entry (detail.go)
	legendDialog // the map's legend (legend.go)
	moveDialog   // the person's own move (move.go)
)

// callDialog is a dialog about one pending call. When the call is decided or changed
// elsewhere (another screen, the headless side, a rule), the dialog stays open and says
// so, and takes no key but cancel until the person closes it (Model.settle).
type callDialog interface {
	dialog
	callID() string
}

// scroller is a dialog that the mouse wheel scrolls, rather than the pane under it.
type scroller interface {
	dialog
	scrollBy(n int)
}

// An action is what a dialog or the question pane asks the Model to do after a key.
type action any

type (
	// actOpen opens a dialog in place of the one shown; a nil dialog closes it.
	actOpen struct{ d dialog }
	// actHint shows a one-off message in the status line.
	actHint string
	// actLogError puts a problem in the log.
	actLogError string
	// actQuit stops the agent and ends the program.
	actQuit struct{}
	// actDecide sends a decision on a pending call.
	actDecide agent.Command
	// actRevise sends a pending call's edited arguments for review.
	actRevise struct {
		id   string
		args json.RawMessage
	}
	// actRule adds a session rule, replacing another one ("" for none).
	actRule struct{ line, replaces string }
	// actUnrule removes a session rule.
	actUnrule string
	// actAdvise sends advice.
	actAdvise string
	// actAnswer answers the question shown with the key pressed, after the grace period.
	actAnswer struct {
		item *askItem
		key  tea.KeyPressMsg
	}
)

// actClose closes the open dialog.
var actClose = actOpen{}

// openKind is the kind of the open dialog, noDialog when none is.
func (m *Model) openKind() dialogKind {
	if m.dlg == nil {
		return noDialog
	}
	return m.dlg.kind()
}

// The Model's dlg and settled fields are the one place that knows which dialog is open
// and whether what it is about was settled elsewhere: open is the only way they change,
// the keys go to the dialog through dialogKey, and the hint line reads dialogHint. A
// new dialog needs nothing here: its kind, update, view and hint, and callID if it is
// about one pending call.

// open shows d over the panes (nil closes the dialog shown).
func (m *Model) open(d dialog) {
	m.dlg, m.settled = d, ""
}

// settle marks the open dialog when it is about call id, which was decided or changed
// elsewhere: what says what became of it ("approved on the other screen"). The dialog
// stays open, says so, and sends nothing until it is closed.
func (m *Model) settle(id, what string) {
	if d, ok := m.dlg.(callDialog); ok && d.callID() == id && m.settled == "" {
		m.settled = what
	}
}

// dialogKey gives a key to the open dialog, unless its call was settled elsewhere: then
// only cancel closes it, and every other key is taken and dropped, so nothing typed for
// the old call reaches the next one.
func (m *Model) dialogKey(msg tea.KeyPressMsg) (tea.Cmd, action) {
	if m.settled == "" {
		return m.dlg.update(msg)
	}
	if key.Matches(msg, m.keys.Cancel) {
		return nil, actClose
	}
	m.hint = m.settled + ": nothing typed here is sent; " + firstKey(m.keys.Cancel) + " closes this"
	return nil, nil
}

// dialogView draws the open dialog in at most w×h; a settled one says what became of
// its call in place of its keys.
func (m *Model) dialogView(w, h int) []string {
	lines := m.dlg.view(w, h)
	if m.settled == "" || len(lines) < 3 {
		return lines
	}
	inner := widthOf(lines[0]) - 2
	side := m.st.focus.Render("│")
	note := m.st.warn.Render("! " + m.settled + " · " + firstKey(m.keys.Cancel) + " closes")
	lines[len(lines)-2] = side + padLine(note, inner) + side
	return lines
}

// dialogHint is the hint line while a dialog is open: the dialog's own, or what became
// of its call.
func (m *Model) dialogHint() (string, []key.Binding) {
	if m.settled != "" {
		return m.settled + "; nothing typed here is sent:", []key.Binding{one(m.keys.Cancel, "close")}
	}
	return m.dlg.hint()
}

// typed passes msg to a text input (a textinput or the textarea) and keeps what it
// becomes.
func typed[I interface{ Update(tea.Msg) (I, tea.Cmd) }](in *I, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*in, cmd = (*in).Update(msg)
	return cmd
}

// lineOutcome is what a key did to a one-line input.
type lineOutcome int

const (
	lineTyped lineOutcome = iota
	lineCancel
	lineSend
)

// lineKey handles a key in a one-line input (the advice, a veto's reason): cancel and
// send are said, anything else is typed into in.
func lineKey(msg tea.Msg, km *keymap.KeyMap, in *textinput.Model) (tea.Cmd, lineOutcome) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, km.Cancel):
			return nil, lineCancel
		case key.Matches(k, km.Send):
			return nil, lineSend
		}
	}
	return typed(in, msg), lineTyped
}

// newInput is a one-line input styled for the background.
func newInput(prompt, placeholder string, dark bool) textinput.Model {
	in := textinput.New()
	in.Prompt, in.Placeholder = prompt, placeholder
	in.SetStyles(textinput.DefaultStyles(dark))
	return in
}
