package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/coplayhq/coplay/agent"
)

// A question in form mode is a form built from its schema, one field a line: text and
// numbers are typed (fill), enums and yes/no are chosen (choose), required fields are
// marked *, defaults are filled in.

// askItem is one question or sampling request.
type askItem struct {
	el     *agent.Elicitation
	sm     *agent.Sampling
	fields []*formField
	sel    int
}

// id is the question's id, for the answer command.
func (a *askItem) id() string {
	if a.sm != nil {
		return a.sm.ID
	}
	return a.el.ID
}

// askOf is the item an elicitation or sampling event asks the person, or nil when it
// does not wait for them.
func askOf(ev agent.Event) *askItem {
	switch {
	case ev.Elicitation != nil && ev.Elicitation.NeedsOK:
		return &askItem{el: ev.Elicitation, fields: formFields(ev.Elicitation.Schema)}
	case ev.Sampling != nil && ev.Sampling.NeedsOK:
		return &askItem{sm: ev.Sampling}
	}
	return nil
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
