package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// openEditor opens the JSON editor on a call's arguments.
func (m *Model) openEditor(c agent.Call) tea.Cmd {
	m.dialog = editDialog
	m.editCall = c
	m.editRefused = false
	m.editor.SetValue(prettyJSON(c.Args))
	m.resizeWidgets()
	m.validateEdit()
	return m.editor.Focus()
}

// validateEdit checks the editor's text against the tool's schema, as typed.
func (m *Model) validateEdit() {
	m.editProbs = editProblems(m.tools, m.editCall.Tool, m.editor.Value())
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

// editKey handles the JSON editor: submit only when valid, esc cancels, anything
// else edits.
func (m *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.dialog = noDialog
		m.editor.Blur()
		return nil
	case key.Matches(msg, m.keys.Submit):
		m.validateEdit()
		if len(m.editProbs) > 0 {
			m.editRefused = true
			return nil
		}
		var b bytes.Buffer
		args := json.RawMessage(strings.TrimSpace(m.editor.Value()))
		if json.Compact(&b, args) == nil {
			args = json.RawMessage(b.String())
		}
		m.dialog = noDialog
		m.editor.Blur()
		m.decide(agent.Command{Cmd: agent.CmdDecide, CallID: m.editCall.ID, Decision: agent.Edit, Args: args})
		return nil
	}
	var cmd tea.Cmd
	m.editor, cmd = m.editor.Update(msg)
	m.editRefused = false
	m.validateEdit()
	return cmd
}
