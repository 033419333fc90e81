package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
)

// The rules dialog lists every approval rule: the ones from config.toml and the profile
// first (marked with where they come from; they cannot be changed here), then the
// session's (from the runner's rules_changed events, and the person's own before the
// runner confirms them). A session rule can be added, edited (the edit replaces it) and
// removed; a new or edited rule is checked with the rule parser as it is typed, and the
// runner checks it again when it arrives.

// ruleRow is one line of the rules dialog.
type ruleRow struct {
	line string
	from string // "" for a session rule
}

// ruleRows is every rule in the dialog's order.
func (m *Model) ruleRows() []ruleRow {
	rows := make([]ruleRow, 0, len(m.info.Rules)+len(m.rules))
	for _, f := range m.info.Rules {
		line := f.Line
		if r, err := rules.Parse(f.Line); err == nil {
			line = r.String()
		}
		rows = append(rows, ruleRow{line: line, from: f.From})
	}
	for _, l := range m.rules {
		rows = append(rows, ruleRow{line: l})
	}
	return rows
}

// addRule records a session rule (canonical line) the person just sent.
func (m *Model) addRule(line string) {
	if !slices.Contains(m.rules, line) {
		m.rules = append(m.rules, line)
	}
}

// checkRule parses a rule as typed and, when the screen knows the catalogue, checks its
// tool and arguments: the error says at which column and what was expected.
func (m *Model) checkRule(text string) (rules.Rule, error) {
	if len(m.info.Tools) == 0 {
		return rules.Parse(text)
	}
	return rules.ParseChecked(text, m.info.Tools)
}

// openRuleInput opens the one-line rule input, empty to add or prefilled to edit.
func (m *Model) openRuleInput(orig string) tea.Cmd {
	m.ruleEditing = true
	m.ruleOrig = orig
	m.ruleInput.SetValue(orig)
	m.ruleInput.CursorEnd()
	m.ruleInput.SetWidth(max(min(m.width, 90)-len(m.ruleInput.Prompt)-4, 10))
	m.validateRule()
	return m.ruleInput.Focus()
}

// validateRule re-checks the rule input.
func (m *Model) validateRule() {
	m.ruleErr = ""
	if text := m.ruleInput.Value(); text != "" {
		if _, err := m.checkRule(text); err != nil {
			m.ruleErr = err.Error()
		}
	}
}

// rulesKey handles the rules dialog: move, add, edit, remove, close; while a rule is
// typed, the input takes every key but send and cancel.
func (m *Model) rulesKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	if m.ruleEditing {
		switch {
		case key.Matches(msg, km.Cancel):
			m.ruleEditing = false
			m.ruleInput.Blur()
		case key.Matches(msg, km.Send):
			m.submitRule()
		default:
			cmd := typed(&m.ruleInput, msg)
			m.validateRule()
			return cmd
		}
		return nil
	}
	rows := m.ruleRows()
	switch {
	case key.Matches(msg, km.Cancel, km.Rules) || (key.Matches(msg, km.Quit) && msg.Text != ""):
		m.dialog = noDialog
	case key.Matches(msg, km.Help):
		m.returnTo = rulesDialog
		m.dialog = helpDialog
		m.helpScroll = paneScroll{}
	case key.Matches(msg, km.Up):
		m.rulesSel = max(m.rulesSel-1, 0)
	case key.Matches(msg, km.Down):
		m.rulesSel = min(m.rulesSel+1, max(len(rows)-1, 0))
	case key.Matches(msg, km.AddRule):
		return m.openRuleInput("")
	case key.Matches(msg, km.EditRule):
		if row, ok := m.selectedRule(rows); ok {
			return m.openRuleInput(row.line)
		}
	case key.Matches(msg, km.Revoke):
		row, ok := m.selectedRule(rows)
		if !ok {
			return nil
		}
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdUnrule, Rule: row.line}); err != nil {
			m.log.add(kindError, "removing the rule "+row.line+": "+err.Error())
			return nil
		}
		m.rules = slices.DeleteFunc(m.rules, func(l string) bool { return l == row.line })
		m.rulesSel = min(m.rulesSel, max(len(m.ruleRows())-1, 0))
		// The runner's rules_changed puts "rule removed" in the log.
	}
	return nil
}

// selectedRule returns the selected rule when it is the session's; a rule from the
// config file or the profile says where to change it instead.
func (m *Model) selectedRule(rows []ruleRow) (ruleRow, bool) {
	if m.rulesSel >= len(rows) {
		m.hint = "no rule selected"
		return ruleRow{}, false
	}
	row := rows[m.rulesSel]
	if row.from != "" {
		m.hint = "this rule comes from " + row.from + ": change it there"
		return ruleRow{}, false
	}
	return row, true
}

// submitRule sends the typed rule when it reads; an edit removes the old one first.
func (m *Model) submitRule() {
	r, err := m.checkRule(m.ruleInput.Value())
	if err != nil {
		m.ruleErr = err.Error()
		return
	}
	line := r.String()
	if m.ruleOrig != "" && m.ruleOrig != line {
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdUnrule, Rule: m.ruleOrig}); err != nil {
			m.ruleErr = "replacing " + m.ruleOrig + ": " + err.Error()
			return
		}
		m.rules = slices.DeleteFunc(m.rules, func(l string) bool { return l == m.ruleOrig })
	}
	if err := m.agent.Send(agent.Command{Cmd: agent.CmdRule, Rule: line}); err != nil {
		m.ruleErr = err.Error()
		return
	}
	m.addRule(line)
	m.ruleEditing = false
	m.ruleInput.Blur()
	if i := slices.Index(m.ruleRows(), ruleRow{line: line}); i >= 0 {
		m.rulesSel = i
	}
}

// renderRules draws the rules dialog.
func (m *Model) renderRules(w, h int) []string {
	st := &m.st
	dw := min(w, 90)
	rows := m.ruleRows()
	var lines []string
	if len(rows) == 0 {
		lines = append(lines, st.muted.Render("No rules: every action asks."))
	} else {
		lines = append(lines, st.muted.Render("deny beats ask beats allow; a call no rule covers asks."))
		for i, r := range rows {
			text := r.line
			if r.from != "" {
				text += "  [" + r.from + "]"
			}
			prefix := "  "
			style := st.text
			switch {
			case i == m.rulesSel && !m.ruleEditing:
				prefix, style = "▸ ", st.selected
			case r.from != "":
				style = st.muted
			}
			lines = append(lines, wrapStyled(text, dw-2, style, prefix)...)
		}
	}
	hint := func(b key.Binding, desc string) string {
		return st.key.Render(b.Help().Key) + " " + st.muted.Render(desc)
	}
	sep := st.muted.Render(" · ")
	lines = append(lines, "")
	if m.ruleEditing {
		title := "new rule"
		if m.ruleOrig != "" {
			title = "edit rule (replaces it)"
		}
		lines = append(lines, st.muted.Render(title+": allow|ask|deny TOOL[(field=glob, ...)] [if effect <= N [and ...]] [: reason]"),
			padLine(m.ruleInput.View(), dw-2))
		switch {
		case m.ruleErr != "":
			lines = append(lines, wrapStyled(m.ruleErr, dw-2, st.bad, "✗ ")...)
		case m.ruleInput.Value() != "":
			lines = append(lines, st.good.Render("✓ valid"))
		}
		lines = append(lines, padLine(hint(m.keys.Send, "save")+sep+hint(m.keys.Cancel, "cancel"), dw-2))
	} else {
		if len(rows) == 0 {
			lines = append(lines, st.muted.Render("Press "+firstKey(m.keys.AlwaysAllow)+" on a pending call to allow its tool."))
		}
		lines = append(lines, padLine(hint(m.keys.AddRule, "add")+sep+hint(m.keys.EditRule, "edit")+sep+hint(m.keys.Revoke, "remove")+sep+
			hint(m.keys.Up, "up")+sep+hint(m.keys.Down, "down")+sep+hint(m.keys.Cancel, "close"), dw-2))
	}
	return box(st, "Approval rules", lines, dw, min(len(lines)+2, h), frameFocus)
}
