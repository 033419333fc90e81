package ui

import (
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
// else edits. Submitting does not decide the call: it sends the arguments for review
// (agent.CmdRevise); the runner checks them, runs a new dry run and sends the call
// back (tool_updated), and the person approves it from the pending pane.
func (m *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.closeDialog()
		return nil
	case key.Matches(msg, m.keys.Submit):
		m.validateEdit()
		if len(m.editProbs) > 0 {
			m.editRefused = true
			return nil
		}
		args := agent.CompactJSON(json.RawMessage(strings.TrimSpace(m.editor.Value())))
		m.closeDialog()
		m.revise(m.editCall.ID, args)
		return nil
	}
	cmd := typed(&m.editor, msg)
	m.editRefused = false
	m.validateEdit()
	return cmd
}

// revise sends edited arguments for review. Until the runner answers, the pending pane
// shows the new arguments with "the runner is checking it" and approving waits.
func (m *Model) revise(id string, args json.RawMessage) {
	for i := range m.pending {
		p := &m.pending[i]
		if p.call.ID != id {
			continue
		}
		if compactJSON(args) == compactJSON(p.call.Args) {
			m.hint = "the arguments are unchanged; nothing sent"
			return
		}
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdRevise, CallID: id, Args: args}); err != nil {
			m.log.add(kindError, "sending the edited arguments of "+p.call.Tool+": "+err.Error())
			m.hint = "the edit was not sent: " + err.Error() // seen whatever pane is shown
			return
		}
		before := p.call
		p.before = &before
		p.call.Args = args
		p.call.Simulation = nil
		p.call.Problems = nil
		p.revising, p.edited = true, true
		m.log.add(kindInfo, "edited "+p.call.Tool+" → "+spacedJSON(args)+" (for review: "+firstKey(m.keys.Approve)+" approves)")
		return
	}
}

// reviseRefused puts back the arguments of calls whose revision the runner refused
// (an error event while a revision was out).
func (m *Model) reviseRefused() {
	for i := range m.pending {
		p := &m.pending[i]
		if p.revising && p.before != nil {
			p.call = *p.before
			p.revising, p.edited, p.before = false, false, nil
			m.log.add(kindError, "the edit of "+p.call.Tool+" was not taken; its arguments are as before")
		}
	}
}
