package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/coplayhq/coplay/game"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// A game server's question (elicitation) or request to use the model (sampling) waits in
// the Pending pane before any call: it is what the running call waits for. A question in
// form mode is a form built from its schema, one field a line: text and numbers are typed
// (fill), enums and yes/no are chosen (choose), required fields are marked *, defaults
// are filled in. Accept sends it (the runner checks it against the schema again),
// decline and cancel say no. A URL question shows the page and opens it on a key.

// askPane is the screen's state of the questions waiting.
type askPane struct {
	items   []*askItem
	editing bool // the selected field's value is being typed in input
	input   textinput.Model
	// The log's progress line of the call running, replaced while it is the last line.
	progEntry *entry
	progCall  string
}

// askItem is one question or sampling request.
type askItem struct {
	el     *agent.Elicitation
	sm     *agent.Sampling
	fields []*formField
	sel    int
	at     time.Time
}

// formField is one property of a question's schema.
type formField struct {
	name, title, desc string
	typ               string   // string, number, integer, boolean, array (of choices)
	choices           []string // an enum's values
	labels            []string // what the person reads for each choice
	required          bool
	val               string // the value as typed or chosen ("" and !set: none)
	set               bool
	min, max          *float64
	picked            map[string]bool // array: the choices picked
	cursor            int             // array: the choice the cursor is on
}

// choiceSchema is an enum as a schema says it: enum (with enumNames) or oneOf/anyOf of
// const and title.
type choiceSchema struct {
	Enum      []string                        `json:"enum"`
	EnumNames []string                        `json:"enumNames"`
	OneOf     []struct{ Const, Title string } `json:"oneOf"`
	AnyOf     []struct{ Const, Title string } `json:"anyOf"`
}

// options returns the values and their labels.
func (c choiceSchema) options() (values, labels []string) {
	values, labels = c.Enum, c.EnumNames
	for _, o := range append(c.OneOf, c.AnyOf...) {
		values = append(values, o.Const)
		labels = append(labels, o.Title)
	}
	if len(labels) != len(values) {
		labels = values
	}
	return values, labels
}

// id is the question's id, for the answer command.
func (a *askItem) id() string {
	if a.sm != nil {
		return a.sm.ID
	}
	return a.el.ID
}

// formFields reads a question's schema: its properties in the schema's order.
func formFields(schema json.RawMessage) []*formField {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	var out []*formField
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var p struct {
			choiceSchema
			Type        string          `json:"type"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			Items       choiceSchema    `json:"items"`
			Default     json.RawMessage `json:"default"`
			Minimum     *float64        `json:"minimum"`
			Maximum     *float64        `json:"maximum"`
		}
		if dec.Decode(&p) != nil {
			return out
		}
		f := &formField{name: name, title: p.Title, desc: p.Description, typ: p.Type, min: p.Minimum, max: p.Maximum}
		f.choices, f.labels = p.options()
		if p.Type == "array" {
			f.choices, f.labels = p.Items.options()
			f.picked = map[string]bool{}
		}
		for _, r := range s.Required {
			f.required = f.required || r == name
		}
		if len(p.Default) > 0 {
			var v any
			var picks []string
			switch {
			case f.picked != nil && json.Unmarshal(p.Default, &picks) == nil:
				for _, c := range picks {
					f.picked[c] = true
				}
				f.set = true
			case f.picked == nil && json.Unmarshal(p.Default, &v) == nil:
				f.val, f.set = fmt.Sprint(v), true
			}
		}
		out = append(out, f)
	}
	return out
}

// content is the form's answer: the fields that have a value, typed as the schema says.
func (a *askItem) content() (json.RawMessage, error) {
	obj := map[string]any{}
	for _, f := range a.fields {
		if !f.set {
			if f.required {
				return nil, fmt.Errorf("%s is required", f.label())
			}
			continue
		}
		switch f.typ {
		case "number", "integer":
			n, err := strconv.ParseFloat(f.val, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", f.label(), f.val)
			}
			obj[f.name] = n
		case "boolean":
			obj[f.name] = f.val == "true"
		case "array":
			picks := []string{}
			for _, c := range f.choices {
				if f.picked[c] {
					picks = append(picks, c)
				}
			}
			obj[f.name] = picks
		default:
			obj[f.name] = f.val
		}
	}
	return json.Marshal(obj)
}

// label is how the form names a field.
func (f *formField) label() string {
	if f.title != "" {
		return f.title
	}
	return f.name
}

// choose moves a field's choice by d (an enum, or a yes/no); false for a typed field.
func (f *formField) choose(d int) bool {
	opts := f.choices
	if f.typ == "boolean" {
		opts = []string{"false", "true"}
	}
	if len(opts) == 0 {
		return false
	}
	cur, has := f.val, f.set
	if f.typ == "boolean" && !has {
		cur, has = "false", true // an unset yes/no shows as no
	}
	i := -1
	for j, o := range opts {
		if has && o == cur {
			i = j
		}
	}
	switch {
	case i < 0 && d < 0:
		i = len(opts) - 1
	case i < 0:
		i = 0
	default:
		i = (i + d + len(opts)) % len(opts)
	}
	f.val, f.set = opts[i], true
	return true
}

// onElicitation puts a server's question in the Pending pane.
func (m *Model) onElicitation(ev agent.Event) {
	if el := ev.Elicitation; el != nil {
		m.addAsk(ev.Text, el.NeedsOK, func() *askItem { return &askItem{el: el, fields: formFields(el.Schema)} })
	}
}

// onSampling puts a server's request to use the model in the Pending pane.
func (m *Model) onSampling(ev agent.Event) {
	if sm := ev.Sampling; sm != nil {
		m.addAsk(ev.Text, sm.NeedsOK, func() *askItem { return &askItem{sm: sm} })
	}
}

// addAsk logs a server's question or request (text) and, when it waits for the person
// and is not replayed from the journal, puts the item it makes in the Pending pane.
func (m *Model) addAsk(text string, needsOK bool, item func() *askItem) {
	m.log.add(kindCall, "? "+text)
	if !needsOK || m.replaying {
		return
	}
	it := item()
	it.at = m.now()
	m.ask.items = append(m.ask.items, it)
	m.lastArrival = m.now()
}

// onAnswered takes a question or request off the pane and logs its answer.
func (m *Model) onAnswered(ev agent.Event) {
	id := ""
	switch {
	case ev.Elicitation != nil:
		id = ev.Elicitation.ID
	case ev.Sampling != nil:
		id = ev.Sampling.ID
	}
	for i, a := range m.ask.items {
		if a.id() == id {
			m.ask.items = append(m.ask.items[:i], m.ask.items[i+1:]...)
			m.ask.editing = false
			break
		}
	}
	m.log.add(kindDecision, ev.Text)
}

// onProgress draws the running call's progress as the log's last line, replaced while
// it stays last.
func (m *Model) onProgress(ev agent.Event) {
	p := ev.Progress
	if p == nil || m.log.muted {
		return
	}
	text := progressBar(p)
	if n := len(m.log.entries); n > 0 && m.log.entries[n-1] == m.ask.progEntry && m.ask.progCall == p.CallID {
		e := m.ask.progEntry
		e.text, e.width = text, -1
		return
	}
	e := &entry{kind: kindWait, text: text}
	m.log.addEntry(e)
	m.ask.progEntry, m.ask.progCall = e, p.CallID
}

// progressBar draws progress: "▕██████░░░░▏ 6/10 digging", or "… 6 digging" without a
// total.
func progressBar(p *agent.Progress) string {
	num := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	s := "… " + num
	if p.Total > 0 {
		const width = 20
		done := int(min(max(p.Progress/p.Total, 0), 1) * width)
		s = "▕" + strings.Repeat("█", done) + strings.Repeat("░", width-done) + "▏ " + num + "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Server != "" {
		s = p.Server + " " + s
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// onServerLog logs a server's log line.
func (m *Model) onServerLog(ev agent.Event) {
	k := kindInfo
	if l := ev.ServerLog; l != nil && (l.Level == "error" || l.Level == "critical" || l.Level == "alert" || l.Level == "emergency" || l.Level == "warning") {
		k = kindError
	}
	m.log.add(k, ev.Text)
}

// pendingShown says whether the Pending pane has anything: a question or a call.
func (m *Model) pendingShown() bool {
	return m.replayStep != nil || len(m.ask.items) > 0 || len(m.pending) > 0
}

// pendingLines draws the Pending pane: the first question when one waits, else the
// calls.
func (m *Model) pendingLines(w, maxH int) []string {
	if m.replayStep != nil {
		return m.replayPending(w, maxH)
	}
	if len(m.ask.items) > 0 {
		return m.renderAsk(m.ask.items[0], w, maxH)
	}
	return renderPending(&m.st, m.keys, m.pending, m.sel, m.unfold, w, maxH)
}

// askTitle is the Pending pane's title while a question waits.
func (m *Model) askTitle() string {
	if len(m.ask.items) == 0 {
		return ""
	}
	a := m.ask.items[0]
	if a.sm != nil {
		return fmt.Sprintf("Request from %s (%d waiting)", a.sm.Server, len(m.ask.items))
	}
	return fmt.Sprintf("Question from %s (%d waiting)", a.el.Server, len(m.ask.items))
}

// renderAsk draws a question or sampling request in at most maxH lines, its keys last.
func (m *Model) renderAsk(a *askItem, w, maxH int) []string {
	st, km := &m.st, m.keys
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
		fields := m.formLines(a, w)
		// A long form shows the fields around the selected one.
		room := maxH - 1 - len(lines)
		if m.ask.editing {
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
	if m.ask.editing {
		lines = append(lines, "  "+m.ask.input.View())
		keys = []key.Binding{withDesc(km.Send, "set"), withDesc(km.Cancel, "leave")}
	}
	if len(lines) > maxH-1 {
		lines = lines[:max(maxH-1, 0)]
	}
	return append(lines, helpLine(st, keys, w))
}

// formLines draws a form's fields, one a line: the selected one marked, required ones
// with *, choices in a row with the chosen one in brackets.
func (m *Model) formLines(a *askItem, w int) []string {
	st := &m.st
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

// formKey handles the keys of the question shown; ok says whether msg was one of them.
func (m *Model) formKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	if len(m.ask.items) == 0 {
		return nil, false
	}
	a, km := m.ask.items[0], m.keys
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
		m.ask.editing = true
		m.ask.input = textinput.New()
		m.ask.input.Prompt = f.label() + "› "
		m.ask.input.SetValue(f.val)
		return m.ask.input.Focus(), true
	case key.Matches(msg, km.OpenURL) && a.el != nil && a.el.URL != "":
		if err := game.OpenURL(a.el.URL); err != nil {
			m.hint = "could not open the page: " + err.Error() + "; open it by hand"
		} else {
			m.hint = "opened " + a.el.URL
		}
	case key.Matches(msg, km.AnswerAccept, km.AnswerDecline, km.AnswerCancel):
		m.answerKey(a, msg)
	default:
		return nil, false
	}
	return nil, true
}

// answerKey sends the answer the key says, unless the question appeared too recently for
// the key to have been meant for it.
func (m *Model) answerKey(a *askItem, msg tea.KeyPressMsg) {
	km := m.keys
	if m.now().Sub(m.lastArrival) < m.Grace {
		m.hint = fmt.Sprintf("key %q ignored: a question just appeared, read it first", msg.String())
		return
	}
	c := agent.Command{Cmd: agent.CmdAnswer, ID: a.id(), Action: "cancel"}
	switch {
	case key.Matches(msg, km.AnswerAccept):
		c.Action = "accept"
		if a.el != nil && a.el.URL == "" {
			content, err := a.content()
			if err != nil {
				m.hint = "not sent: " + err.Error()
				return
			}
			c.Content = content
		}
	case key.Matches(msg, km.AnswerDecline):
		c.Action = "decline"
	}
	if err := m.agent.Send(c); err != nil {
		m.hint = "not sent: " + err.Error()
	}
}

// askInputKey handles typing a field's value: send sets it, cancel leaves it.
func (m *Model) askInputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.ask.editing = false
		return nil
	case key.Matches(msg, m.keys.Send):
		m.ask.editing = false
		if len(m.ask.items) > 0 && len(m.ask.items[0].fields) > 0 {
			a := m.ask.items[0]
			f := a.fields[a.sel]
			v := strings.TrimSpace(m.ask.input.Value())
			f.val, f.set = v, v != ""
		}
		return nil
	}
	return typed(&m.ask.input, msg)
}
