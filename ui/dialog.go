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
	// view draws the dialog in at most w×h.
	view(w, h int) []string
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
)

// callDialog is a dialog about one pending call: it closes when the call is decided
// elsewhere (a rule, another screen).
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
