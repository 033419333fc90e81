package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// vetoPrompt is the veto dialog: it asks why a call is vetoed. Send vetoes the call with
// the reason typed (none is fine); cancel leaves the call waiting.
type vetoPrompt struct {
	st    *styles
	km    *keymap.KeyMap
	call  agent.Call
	input textinput.Model
}

// newVetoPrompt opens the veto dialog on call c, for a terminal width columns wide.
func newVetoPrompt(st *styles, km *keymap.KeyMap, c agent.Call, width int) (*vetoPrompt, tea.Cmd) {
	d := &vetoPrompt{st: st, km: km, call: c, input: newInput("reason› ", "optional: why not (enter to veto)", st.dark)}
	d.resize(width)
	return d, d.input.Focus()
}

func (d *vetoPrompt) kind() dialogKind { return vetoDialog }
func (d *vetoPrompt) callID() string   { return d.call.ID }

func (d *vetoPrompt) hint() (string, []key.Binding) {
	return "why veto it (optional)?", []key.Binding{one(d.km.Send, "veto"), one(d.km.Cancel, "leave it waiting")}
}

func (d *vetoPrompt) resize(width int) {
	d.input.SetWidth(max(min(width, 76)-len(d.input.Prompt)-4, 10))
}

func (d *vetoPrompt) update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		d.resize(msg.Width)
		return nil, nil
	case tea.BackgroundColorMsg:
		d.input.SetStyles(textinput.DefaultStyles(d.st.dark))
		return nil, nil
	}
	cmd, out := lineKey(msg, d.km, &d.input)
	switch out {
	case lineCancel:
		return nil, actClose
	case lineSend:
		return nil, actDecide{Cmd: agent.CmdDecide, CallID: d.call.ID, Decision: agent.Veto, Reason: strings.TrimSpace(d.input.Value())}
	}
	return cmd, nil
}

func (d *vetoPrompt) view(w, h int) []string {
	st := d.st
	dw := min(w, 76)
	lines := wrapStyled(d.call.Tool+" "+spacedJSON(d.call.Args), dw-2, st.text, "")
	lines = append(lines, "", padLine(d.input.View(), dw-2), "",
		helpLine(st, []key.Binding{d.km.Send, d.km.Cancel}, dw-2))
	return box(st, "Veto "+d.call.Tool, lines, dw, len(lines)+2, frameFocus)
}
