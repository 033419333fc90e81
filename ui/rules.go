package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/rules"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// ruleBook is the rules dialog, and the session's rules it lists. It lists every
// approval rule: the ones from config.toml and the profile first (marked with where they
// come from; they cannot be changed here), then the session's (from the runner's
// rules_changed events, and the person's own before the runner confirms them). A session
// rule can be added, edited (the edit replaces it) and removed; a new or edited rule is
// checked with the rule parser as it is typed, and the runner checks it again when it
// arrives. It lives as long as the Model, so the selection stays between openings.
type ruleBook struct {
	st      *styles
	km      *keymap.KeyMap
	fixed   []agent.FixedRule // from config.toml and the profile
	tools   []game.Tool       // the catalogue, for checking a rule's tool and arguments
	session []string          // the session's rules, canonical, in the runner's order
	sel     int               // over rows: the fixed rules, then the session's
	input   textinput.Model
	editing bool   // the rule input is open
	orig    string // the session rule being edited ("" when adding)
	err     string // what is wrong with the typed rule
	width   int    // the terminal's width, for the input
	seat    string // in a league, the seat whose rules these are: its title says so
	watch   bool   // the screen may only watch: the rules are listed, not changed
}

func newRuleBook(st *styles, km *keymap.KeyMap, info Info) *ruleBook {
	b := &ruleBook{st: st, km: km, fixed: info.Rules, tools: info.Tools, watch: info.ReadOnly,
		input: newInput("rule› ", "allow navigate_ship if fuel <= 100", st.dark)}
	b.input.CharLimit = 1000
	return b
}

func (b *ruleBook) kind() dialogKind { return rulesDialog }

func (b *ruleBook) hint() (string, []key.Binding) {
	km := b.km
	if b.editing {
		return "type a rule:", []key.Binding{one(km.Send, "save"), one(km.Cancel, "back to the list")}
	}
	if b.watch {
		return "approval rules, read-only:", []key.Binding{one(km.Down, "down"), one(km.Up, "up"), one(km.Cancel, "close")}
	}
	return "approval rules:", []key.Binding{one(km.AddRule, "add"), one(km.EditRule, "edit"), one(km.Revoke, "remove"),
		one(km.Cancel, "close"), one(km.Help, "all keys")}
}

// restyle hands the current palette to the rule input.
func (b *ruleBook) restyle() { b.input.SetStyles(textinput.DefaultStyles(b.st.dark)) }

// ruleRow is one line of the rules dialog.
type ruleRow struct {
	line string
	from string // "" for a session rule
}

// rows is every rule in the dialog's order.
func (b *ruleBook) rows() []ruleRow {
	rows := make([]ruleRow, 0, len(b.fixed)+len(b.session))
	for _, f := range b.fixed {
		line := f.Line
		if r, err := rules.Parse(f.Line); err == nil {
			line = r.String()
		}
		rows = append(rows, ruleRow{line: line, from: f.From})
	}
	for _, l := range b.session {
		rows = append(rows, ruleRow{line: l})
	}
	return rows
}

// set takes the session's rules from the runner.
func (b *ruleBook) set(lines []string) {
	b.session = append([]string(nil), lines...)
	b.clampSel()
}

func (b *ruleBook) clampSel() { b.sel = min(b.sel, max(len(b.rows())-1, 0)) }

// add records a session rule (canonical line) the person just sent.
func (b *ruleBook) add(line string) {
	if !slices.Contains(b.session, line) {
		b.session = append(b.session, line)
	}
}

// remove drops a session rule the person just removed.
func (b *ruleBook) remove(line string) {
	b.session = slices.DeleteFunc(b.session, func(l string) bool { return l == line })
}

// check parses a rule as typed and, when the screen knows the catalogue, checks its
// tool and arguments: the error says at which column and what was expected.
func (b *ruleBook) check(text string) (rules.Rule, error) {
	if len(b.tools) == 0 {
		return rules.Parse(text)
	}
	return rules.ParseChecked(text, b.tools)
}

// openInput opens the one-line rule input, empty to add or prefilled to edit.
func (b *ruleBook) openInput(orig string) tea.Cmd {
	b.editing = true
	b.orig = orig
	b.input.SetValue(orig)
	b.input.CursorEnd()
	b.input.SetWidth(max(min(b.width, 90)-len(b.input.Prompt)-4, 10))
	b.validate()
	return b.input.Focus()
}

// validate re-checks the rule input.
func (b *ruleBook) validate() {
	b.err = ""
	if text := b.input.Value(); text != "" {
		if _, err := b.check(text); err != nil {
			b.err = err.Error()
		}
	}
}

// update handles the rules dialog: move, add, edit, remove, close; while a rule is
// typed, the input takes every key but send and cancel.
func (b *ruleBook) update(msg tea.Msg) (tea.Cmd, action) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		b.width = msg.Width
		return nil, nil
	case tea.KeyPressMsg:
		if !b.editing {
			return b.listKey(msg)
		}
		switch {
		case key.Matches(msg, b.km.Cancel):
			b.editing = false
			b.input.Blur()
			return nil, nil
		case key.Matches(msg, b.km.Send):
			return nil, b.submit()
		}
	}
	if !b.editing {
		return nil, nil
	}
	cmd := typed(&b.input, msg)
	b.validate()
	return cmd, nil
}

// listKey handles a key while the list, not the input, has the focus.
func (b *ruleBook) listKey(msg tea.KeyPressMsg) (tea.Cmd, action) {
	km := b.km
	rows := b.rows()
	switch {
	case key.Matches(msg, km.Cancel, km.Rules) || (key.Matches(msg, km.Quit) && msg.Text != ""):
		return nil, actClose
	case key.Matches(msg, km.Help):
		return nil, actOpen{&helpView{st: b.st, km: km, back: b, watch: b.watch}}
	case key.Matches(msg, km.Up):
		b.sel = max(b.sel-1, 0)
	case key.Matches(msg, km.Down):
		b.sel = min(b.sel+1, max(len(rows)-1, 0))
	case b.watch && key.Matches(msg, km.AddRule, km.EditRule, km.Revoke):
		return nil, actHint(readOnlyHint)
	case key.Matches(msg, km.AddRule):
		return b.openInput(""), nil
	case key.Matches(msg, km.EditRule):
		row, hint := b.selected(rows)
		if hint != "" {
			return nil, hint
		}
		return b.openInput(row.line), nil
	case key.Matches(msg, km.Revoke):
		if row, hint := b.selected(rows); hint != "" {
			return nil, hint
		} else {
			return nil, actUnrule(row.line)
		}
	}
	return nil, nil
}

// selected returns the selected rule when it is the session's; else a hint: a rule from
// the config file or the profile says where to change it instead.
func (b *ruleBook) selected(rows []ruleRow) (ruleRow, actHint) {
	if b.sel >= len(rows) {
		return ruleRow{}, "no rule selected"
	}
	row := rows[b.sel]
	if row.from != "" {
		return ruleRow{}, actHint("this rule comes from " + row.from + ": change it there")
	}
	return row, ""
}

// submit asks for the typed rule to be sent when it reads; an edit replaces the rule it
// was opened on.
func (b *ruleBook) submit() action {
	r, err := b.check(b.input.Value())
	if err != nil {
		b.err = err.Error()
		return nil
	}
	line := r.String()
	replaces := ""
	if b.orig != "" && b.orig != line {
		replaces = b.orig
	}
	return actRule{line: line, replaces: replaces}
}

// saved closes the input once the rule was sent, and selects it.
func (b *ruleBook) saved(line string) {
	b.add(line)
	b.editing = false
	b.input.Blur()
	if i := slices.Index(b.rows(), ruleRow{line: line}); i >= 0 {
		b.sel = i
	}
}

// view draws the rules dialog.
func (b *ruleBook) view(w, h int) []string {
	st, km := b.st, b.km
	dw := min(w, 90)
	rows := b.rows()
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
			case i == b.sel && !b.editing:
				prefix, style = "▸ ", st.selected
			case r.from != "":
				style = st.muted
			}
			lines = append(lines, wrapStyled(text, dw-2, style, prefix)...)
		}
	}
	hint := func(k key.Binding, desc string) string {
		return st.key.Render(k.Help().Key) + " " + st.muted.Render(desc)
	}
	sep := st.muted.Render(" · ")
	lines = append(lines, "")
	if b.editing {
		title := "new rule"
		if b.orig != "" {
			title = "edit rule (replaces it)"
		}
		lines = append(lines, st.muted.Render(title+": allow|ask|deny TOOL[(field=glob, ...)] [if effect <= N [and ...]] [: reason]"),
			padLine(b.input.View(), dw-2))
		switch {
		case b.err != "":
			lines = append(lines, wrapStyled(b.err, dw-2, st.bad, "✗ ")...)
		case b.input.Value() != "":
			lines = append(lines, st.good.Render("✓ valid"))
		}
		lines = append(lines, padLine(hint(km.Send, "save")+sep+hint(km.Cancel, "cancel"), dw-2))
	} else {
		switch {
		case b.watch:
			lines = append(lines, padLine(st.muted.Render("read-only: rules need a steering key")+sep+
				hint(km.Up, "up")+sep+hint(km.Down, "down")+sep+hint(km.Cancel, "close"), dw-2))
		default:
			if len(rows) == 0 {
				lines = append(lines, st.muted.Render("Press "+firstKey(km.AlwaysAllow)+" on a pending call to allow its tool."))
			}
			lines = append(lines, padLine(hint(km.AddRule, "add")+sep+hint(km.EditRule, "edit")+sep+hint(km.Revoke, "remove")+sep+
				hint(km.Up, "up")+sep+hint(km.Down, "down")+sep+hint(km.Cancel, "close"), dw-2))
		}
	}
	title := "Approval rules"
	if b.seat != "" {
		title += " of " + b.seat + " (this seat only)"
	}
	return box(st, title, lines, dw, min(len(lines)+2, h), frameFocus)
}
