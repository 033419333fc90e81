package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/keymap"
)

// quitPrompt is the quit dialog, opened when quitting would leave calls running or
// waiting: yes stops the agent (the session is kept), no goes back.
type quitPrompt struct {
	st   *styles
	km   *keymap.KeyMap
	busy func() int // the calls running or waiting, counted when drawn
}

func (d *quitPrompt) kind() dialogKind { return quitDialog }

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
	n := d.busy()
	lines := []string{
		fmt.Sprintf("%d call(s) running or waiting for a decision.", n),
		"Quit anyway? The session is kept; --resume continues it.",
		"",
		helpLine(d.st, []key.Binding{d.km.Yes, d.km.No}, 50),
	}
	return box(d.st, "Quit?", lines, min(w, 60), len(lines)+2, frameFocus)
}
