package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
)

// A game server's question (elicitation) or request to use the model (sampling) waits in
// the Pending pane before any call: it is what the running call waits for. A question in
// form mode is a form (form.go). Accept sends it (the runner checks it against the
// schema again), decline and cancel say no. A URL question shows the page and opens it
// on a key.

// askPane is the questions waiting, the first one shown in the Pending pane; it takes
// the keys of the question shown before the pending calls do.
type askPane struct {
	st      *styles
	km      *keymap.KeyMap
	items   []*askItem
	watch   bool // the screen may only watch: the question is shown, not answered
	editing bool // the selected field's value is being typed in input
	input   textinput.Model
	// gone says, while a field is typed, that its question was answered elsewhere: the
	// input takes no key but cancel until it is closed, so nothing typed reaches the
	// screen's keys.
	gone string
}

// add puts a question in the pane.
func (p *askPane) add(it *askItem) { p.items = append(p.items, it) }

// answered takes a question or request off the pane.
func (p *askPane) answered(ev agent.Event) {
	id := ""
	switch {
	case ev.Elicitation != nil:
		id = ev.Elicitation.ID
	case ev.Sampling != nil:
		id = ev.Sampling.ID
	}
	for i, a := range p.items {
		if a.id() == id {
			p.items = append(p.items[:i], p.items[i+1:]...)
			if i == 0 && p.editing { // the question being typed into (this screen's own answers wait for the input to close)
				p.gone = "the question was answered elsewhere"
			}
			break
		}
	}
}

// title is the Pending pane's title while a question waits.
func (p *askPane) title() string {
	if len(p.items) == 0 {
		return ""
	}
	a := p.items[0]
	if a.sm != nil {
		return fmt.Sprintf("Request from %s (%d waiting)", a.sm.Server, len(p.items))
	}
	return fmt.Sprintf("Question from %s (%d waiting)", a.el.Server, len(p.items))
}

// view draws the first question in at most maxH lines, its keys last.
func (p *askPane) view(w, maxH int) []string { return p.renderAsk(p.items[0], w, maxH) }

// renderAsk draws a question or sampling request in at most maxH lines, its keys last.
func (p *askPane) renderAsk(a *askItem, w, maxH int) []string {
	st, km := p.st, p.km
	var lines []string
	var keys []key.Binding
	switch {
	case a.sm != nil:
		lines = append(lines, st.selected.Render(fmt.Sprintf("▸ %s asks to use your model (up to %d tokens)", a.sm.Server, a.sm.MaxTokens)))
		if a.sm.System != "" {
			lines = append(lines, wrapStyled(a.sm.System, w, st.muted, "  system: ")...)
		}
		for _, msg := range a.sm.Messages {
			lines = append(lines, wrapStyled(msg.Text, w, st.text, "  "+msg.Role+": ")...)
		}
		keys = []key.Binding{withDesc(km.AnswerAccept, "approve"), km.AnswerDecline}
	case a.el.URL != "":
		lines = append(lines, wrapStyled(a.el.Message, w, st.strong, "")...)
		lines = append(lines, wrapStyled(a.el.URL, w, st.accent, "  open: ")...)
		keys = []key.Binding{km.OpenURL, withDesc(km.AnswerAccept, "done"), km.AnswerDecline, withDesc(km.AnswerCancel, "cancel")}
	default:
		lines = append(lines, wrapStyled(a.el.Message, w, st.strong, "")...)
		fields := p.formLines(a, w)
		// A long form shows the fields around the selected one.
		room := maxH - 1 - len(lines)
		if p.editing {
			room--
		}
		if room > 0 && len(fields) > room {
			from := min(max(a.sel-room/2, 0), len(fields)-room)
			fields = fields[from : from+room]
		}
		lines = append(lines, fields...)
		keys = []key.Binding{withDesc(km.AnswerAccept, "accept"), km.AnswerDecline, withDesc(km.AnswerCancel, "cancel"), withDesc(km.Down, "next field")}
		if len(a.fields) > 0 {
			f := a.fields[a.sel]
			if len(f.choices) > 0 || f.typ == "boolean" {
				keys = append(keys, withDesc(km.Choose, "choose"))
			} else {
				keys = append(keys, withDesc(km.Fill, "type"))
			}
		}
	}
	if p.editing {
		lines = append(lines, "  "+p.input.View())
		keys = []key.Binding{withDesc(km.Send, "set"), withDesc(km.Cancel, "leave")}
		if p.gone != "" {
			lines = append(lines, st.warn.Render("  ! "+p.gone+": what you typed is not sent"))
			keys = []key.Binding{withDesc(km.Cancel, "close")}
		}
	}
	if len(lines) > maxH-1 {
		lines = lines[:max(maxH-1, 0)]
	}
	if p.watch {
		return append(lines, st.muted.Render(padLine("read-only: answering needs a steering key", w)))
	}
	return append(lines, helpLine(st, keys, w))
}

// formLines draws a form's fields, one a line: the selected one marked, required ones
// with *, choices in a row with the chosen one in brackets.
func (p *askPane) formLines(a *askItem, w int) []string {
	st := p.st
	var out []string
	for i, f := range a.fields {
		mark := "  "
		if i == a.sel {
			mark = "▸ "
		}
		name := f.label()
		if f.required {
			name += " *"
		}
		var val string
		switch {
		case f.picked != nil:
			parts := make([]string, len(f.choices))
			for j, c := range f.choices {
				box := map[bool]string{true: "[x] ", false: "[ ] "}[f.picked[c]]
				parts[j] = box + f.labels[j]
				if j == f.cursor && i == a.sel {
					parts[j] = "›" + parts[j]
				}
			}
			val = strings.Join(parts, "  ")
		case len(f.choices) > 0:
			parts := make([]string, len(f.choices))
			for j, c := range f.choices {
				parts[j] = f.labels[j]
				if f.set && c == f.val {
					parts[j] = "[" + f.labels[j] + "]"
				}
			}
			val = strings.Join(parts, " │ ")
		case f.typ == "boolean":
			val = map[bool]string{true: "[x] yes", false: "[ ] no"}[f.set && f.val == "true"]
		case f.set:
			val = f.val
		default:
			val = "(empty)"
		}
		line := fmt.Sprintf("%s%-14s %s", mark, name, val)
		if f.desc != "" {
			line += "  · " + f.desc
		}
		style := st.text
		if i == a.sel {
			style = st.selected
		}
		out = append(out, style.Render(padLine(line, w)))
	}
	return out
}

// update handles the keys of the question shown; ok says whether msg was one of them.
// While a field's value is typed, the input takes every key.
func (p *askPane) update(msg tea.KeyPressMsg) (cmd tea.Cmd, act action, ok bool) {
	if p.editing {
		return p.inputKey(msg), nil, true
	}
	if len(p.items) == 0 {
		return nil, nil, false
	}
	a, km := p.items[0], p.km
	var f *formField
	if len(a.fields) > 0 {
		f = a.fields[a.sel]
	}
	switch {
	case key.Matches(msg, km.Up):
		a.sel = max(a.sel-1, 0)
	case key.Matches(msg, km.Down):
		a.sel = min(a.sel+1, max(len(a.fields)-1, 0))
	case f != nil && f.picked != nil && msg.String() == "space" && len(f.choices) > 0:
		c := f.choices[f.cursor]
		f.picked[c], f.set = !f.picked[c], true
	case f != nil && f.picked != nil && key.Matches(msg, km.Choose, km.ChooseBack) && len(f.choices) > 0:
		d := map[bool]int{true: 1, false: -1}[key.Matches(msg, km.Choose)]
		f.cursor = (f.cursor + d + len(f.choices)) % len(f.choices)
	case key.Matches(msg, km.Choose) && f != nil && f.choose(1):
	case key.Matches(msg, km.ChooseBack) && f != nil && f.choose(-1):
	case key.Matches(msg, km.Fill) && f != nil && len(f.choices) == 0 && f.typ != "boolean":
		p.editing = true
		p.input = textinput.New()
		p.input.Prompt = f.label() + "› "
		p.input.SetValue(f.val)
		return p.input.Focus(), nil, true
	case key.Matches(msg, km.OpenURL) && a.el != nil && a.el.URL != "":
		if err := game.OpenURL(a.el.URL); err != nil {
			return nil, actHint("could not open the page: " + err.Error() + "; open it by hand"), true
		}
		return nil, actHint("opened " + a.el.URL), true
	case key.Matches(msg, km.AnswerAccept, km.AnswerDecline, km.AnswerCancel):
		return nil, actAnswer{item: a, key: msg}, true
	default:
		return nil, nil, false
	}
	return nil, nil, true
}

// answer is the answer command the key says for question a; an error says why a form
// cannot be sent as it is.
func (p *askPane) answer(a *askItem, msg tea.KeyPressMsg) (agent.Command, error) {
	km := p.km
	c := agent.Command{Cmd: agent.CmdAnswer, ID: a.id(), Action: "cancel"}
	switch {
	case key.Matches(msg, km.AnswerAccept):
		c.Action = "accept"
		if a.el != nil && a.el.URL == "" {
			content, err := a.content()
			if err != nil {
				return c, err
			}
			c.Content = content
		}
	case key.Matches(msg, km.AnswerDecline):
		c.Action = "decline"
	}
	return c, nil
}

// inputKey handles typing a field's value: send sets it, cancel leaves it. Once the
// question is gone, only cancel does anything.
func (p *askPane) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	if p.gone != "" {
		if key.Matches(msg, p.km.Cancel) {
			p.editing, p.gone = false, ""
		}
		return nil
	}
	switch {
	case key.Matches(msg, p.km.Cancel):
		p.editing = false
		return nil
	case key.Matches(msg, p.km.Send):
		p.editing = false
		if len(p.items) > 0 && len(p.items[0].fields) > 0 {
			a := p.items[0]
			f := a.fields[a.sel]
			v := strings.TrimSpace(p.input.Value())
			f.val, f.set = v, v != ""
		}
		return nil
	}
	return typed(&p.input, msg)
}
