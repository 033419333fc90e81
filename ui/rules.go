package ui

import (
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// The rules dialog lists the tools that are always allowed (from the runner's
// rules_changed events, and the person's own "always allow" before the runner
// confirms it) and revokes them: a revoked tool asks again from its next call on.

// addRule records a tool as always allowed.
func (m *Model) addRule(tool string) {
	for _, t := range m.rules {
		if t == tool {
			return
		}
	}
	m.rules = append(m.rules, tool)
	sort.Strings(m.rules)
}

// rulesKey handles the rules dialog: move, revoke, close.
func (m *Model) rulesKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
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
		m.rulesSel = min(m.rulesSel+1, max(len(m.rules)-1, 0))
	case key.Matches(msg, km.Revoke):
		if len(m.rules) == 0 {
			return nil
		}
		tool := m.rules[m.rulesSel]
		if err := m.agent.Send(agent.Command{Cmd: agent.CmdAllow, Tool: tool, Allow: false}); err != nil {
			m.log.add(kindError, "revoking always allow for "+tool+": "+err.Error())
			return nil
		}
		m.rules = append(m.rules[:m.rulesSel], m.rules[m.rulesSel+1:]...)
		m.rulesSel = min(m.rulesSel, max(len(m.rules)-1, 0))
		m.log.add(kindInfo, tool+" asks again from its next call on (always allow revoked)")
	}
	return nil
}

// renderRules draws the rules dialog.
func (m *Model) renderRules(w, h int) []string {
	st := &m.st
	dw := min(w, 64)
	var lines []string
	if len(m.rules) == 0 {
		lines = append(lines, st.muted.Render("No tool is always allowed: every action asks."),
			st.muted.Render("Press "+firstKey(m.keys.AlwaysAllow)+" on a pending call to always allow its tool."))
	} else {
		lines = append(lines, st.muted.Render("These tools run without asking:"))
		for i, t := range m.rules {
			if i == m.rulesSel {
				lines = append(lines, st.selected.Render("▸ "+t))
			} else {
				lines = append(lines, "  "+t)
			}
		}
	}
	hint := func(b key.Binding, desc string) string {
		return st.key.Render(b.Help().Key) + " " + st.muted.Render(desc)
	}
	sep := st.muted.Render(" · ")
	lines = append(lines, "", padLine(hint(m.keys.Revoke, "revoke")+sep+hint(m.keys.Up, "up")+sep+hint(m.keys.Down, "down")+sep+hint(m.keys.Cancel, "close"), dw-2))
	return box(st, "Always allowed", lines, dw, min(len(lines)+2, h), frameFocus)
}
