package ui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/keymap"
)

// adviceInput is the advice line under the panes. While it has the focus it takes every
// key: send asks for the advice to be sent, cancel goes back to the decisions. Advice
// this screen sent is logged at once, so the runner's echo of it is not logged again.
type adviceInput struct {
	st    *styles
	km    *keymap.KeyMap
	input textinput.Model
	focus bool
	sent  map[string]int // advice sent and not yet echoed by the agent
}

func newAdviceInput(st *styles, km *keymap.KeyMap) adviceInput {
	return adviceInput{st: st, km: km, sent: map[string]int{},
		input: newInput("advice› ", "type advice for the agent, enter to send", st.dark)}
}

// open gives the input the focus.
func (a *adviceInput) open() tea.Cmd {
	a.focus = true
	return a.input.Focus()
}

// leave takes the focus from the input, back to the decisions.
func (a *adviceInput) leave() {
	a.focus = false
	a.input.Blur()
}

// update handles a key or a blink while the input has the focus.
func (a *adviceInput) update(msg tea.Msg) (tea.Cmd, action) {
	cmd, out := lineKey(msg, a.km, &a.input)
	switch out {
	case lineCancel:
		a.leave()
	case lineSend:
		if text := strings.TrimSpace(a.input.Value()); text != "" {
			return nil, actAdvise(text)
		}
	}
	return cmd, nil
}

// sentOK clears the input after text was sent, and goes back to the decisions: the next
// "a" approves rather than starting more advice.
func (a *adviceInput) sentOK(text string) {
	a.sent[text]++
	a.input.Reset()
	a.leave()
}

// echoed says whether the agent's advice event is the echo of advice this screen sent
// (and logged) itself.
func (a *adviceInput) echoed(text string) bool {
	if n := a.sent[text]; n > 0 {
		a.sent[text] = n - 1
		return true
	}
	return false
}

func (a *adviceInput) restyle() { a.input.SetStyles(textinput.DefaultStyles(a.st.dark)) }

// view is the input when it has the focus, else the one-off hint.
func (a *adviceInput) view(w int, hint string) string {
	if a.focus {
		a.input.SetWidth(max(w-len(a.input.Prompt)-1, 1))
		return padLine(a.input.View(), w)
	}
	return padLine(a.st.warn.Render("! "+hint), w)
}
