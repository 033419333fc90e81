package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/keymap"
)

// quitPrompt is the quit dialog, opened when quitting would leave calls running or
// waiting: yes stops the agent (the session is kept), no goes back. On a second screen
// (attach, SSH) it asks to detach, always: yes leaves the game playing on.
type quitPrompt struct {
	st     *styles
	km     *keymap.KeyMap
	busy   func() int // the calls running or waiting, counted when drawn
	detach bool       // a second screen: quitting detaches it
}

func (d *quitPrompt) kind() dialogKind { return quitDialog }

func (d *quitPrompt) hint() (string, []key.Binding) {
	if d.detach {
		return "detach this screen? the game plays on:", []key.Binding{one(d.km.Yes, "detach"), one(d.km.No, "stay")}
	}
	return "quit? the session is kept:", []key.Binding{one(d.km.Yes, "quit"), one(d.km.No, "stay")}
}

func (d *quitPrompt) update(msg tea.Msg) (tea.Cmd, action) {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(k, d.km.Yes):
		return nil, actQuit{}
	case key.Matches(k, d.km.No, d.km.Cancel):
		return nil, actClose
	}
	return nil, nil
}

func (d *quitPrompt) view(w, h int) []string {
	if d.detach {
		lines := []string{
			"Detach? The game plays on.",
			"This screen closes; the coplay that plays keeps playing,",
			"and coplay attach opens a screen on it again.",
			"",
			helpLine(d.st, []key.Binding{withDesc(d.km.Yes, "detach"), withDesc(d.km.No, "stay")}, 56),
		}
		return box(d.st, "Detach?", lines, min(w, 62), len(lines)+2, frameFocus)
	}
	n := d.busy()
	lines := []string{
		fmt.Sprintf("%d call(s) running or waiting for a decision.", n),
		"Quit anyway? The session is kept; --resume continues it.",
		"",
		helpLine(d.st, []key.Binding{d.km.Yes, d.km.No}, 50),
	}
	return box(d.st, "Quit?", lines, min(w, 60), len(lines)+2, frameFocus)
}
