package ui

import (
	"encoding/json"
	"errors"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// argsEditor is the edit dialog: a JSON editor on a pending call's arguments, checked
// against the tool's schema as they are typed. Submitting does not decide the call: it
// sends the arguments for review (agent.CmdRevise); the runner checks them, runs a new
// dry run and sends the call back (tool_updated), and the person approves it from the
// Pending pane. Submitting while something is wrong is refused in place.
type argsEditor struct {
	st      *styles
	km      *keymap.KeyMap
	tools   map[string]game.Tool
	call    agent.Call
	editor  textarea.Model
	probs   []string // what is wrong with the arguments as typed
	refused bool     // a submit was refused for those problems
}

// newArgsEditor opens the editor on call c's arguments, for a terminal of width×height.
func newArgsEditor(st *styles, km *keymap.KeyMap, tools map[string]game.Tool, c agent.Call, width, height int) (*argsEditor, tea.Cmd) {
	d := &argsEditor{st: st, km: km, tools: tools, call: c, editor: textarea.New()}
	d.editor.ShowLineNumbers = false
	d.editor.Prompt = ""
	d.editor.SetStyles(textarea.DefaultStyles(st.dark))
	d.editor.SetValue(prettyJSON(c.Args))
	d.resize(width, height)
	d.validate()
	return d, d.editor.Focus()
}

func (d *argsEditor) kind() dialogKind { return editDialog }
func (d *argsEditor) callID() string   { return d.call.ID }

func (d *argsEditor) hint() (string, []key.Binding) {
	return "edit the arguments:", []key.Binding{one(d.km.Submit, "send for review"), one(d.km.Cancel, "leave it as it was")}
}

// resize fits the editor to the terminal: as tall as the arguments, within reason.
func (d *argsEditor) resize(width, height int) {
	d.editor.SetWidth(max(min(width, 90)-4, 10))
	lines := strings.Count(d.editor.Value(), "\n") + 1
	d.editor.SetHeight(max(min(lines, height-12), 3))
}

// validate checks the editor's text against the tool's schema.
func (d *argsEditor) validate() {
	d.probs = editProblems(d.tools, d.call.Tool, d.editor.Value())
}

func (d *argsEditor) update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		d.resize(msg.Width, msg.Height)
		return nil, nil
	case tea.BackgroundColorMsg:
		d.editor.SetStyles(textarea.DefaultStyles(d.st.dark))
		return nil, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, d.km.Cancel):
			return nil, actClose
		case key.Matches(msg, d.km.Submit):
			d.validate()
			if len(d.probs) > 0 {
				d.refused = true
				return nil, nil
			}
			return nil, actRevise{id: d.call.ID, args: agent.CompactJSON(json.RawMessage(strings.TrimSpace(d.editor.Value())))}
		}
		d.refused = false
	}
	cmd := typed(&d.editor, msg)
	d.validate()
	return cmd, nil
}

func (d *argsEditor) view(w, h int) []string {
	st, km := d.st, d.km
	dw := min(w, 90)
	lines := wrapStyled("arguments (JSON), checked against the tool's schema as you type; "+
		firstKey(km.Submit)+" sends them for review (new dry run), then "+firstKey(km.Approve)+" approves", dw-2, st.muted, "")
	lines = append(lines, splitLines(d.editor.View())...)
	lines = append(lines, "")
	if len(d.probs) == 0 {
		lines = append(lines, st.good.Render("✓ valid"))
	}
	for _, p := range d.probs {
		lines = append(lines, wrapStyled(p, dw-2, st.bad, "✗ ")...)
	}
	if d.refused {
		lines = append(lines, st.warn.Render("! fix the problems above before submitting"))
	}
	lines = append(lines, helpLine(st, []key.Binding{km.Submit, km.Cancel}, dw-2))
	return box(st, "Edit "+d.call.Tool, lines, dw, min(len(lines)+2, h), frameFocus)
}

// editProblems lists what is wrong with args for tool; none means it can be sent.
// Without a schema for the tool only the JSON itself is checked.
func editProblems(tools map[string]game.Tool, tool, args string) []string {
	raw := json.RawMessage(args)
	if t, ok := tools[tool]; ok && t.Schema != nil {
		err := game.Validate(tool, t.Schema, raw)
		var ve *game.ValidationError
		if errors.As(err, &ve) {
			var out []string
			for _, p := range ve.Problems {
				out = append(out, p.String())
			}
			return out
		}
		if err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{"arguments: expected a JSON object, got invalid JSON (" + err.Error() + ")"}
	}
	return nil
}
