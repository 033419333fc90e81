package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// Catalogue shapes.
const (
	// CatalogOps is one tool per operation, named by its operationId.
	CatalogOps = "ops"
	// CatalogGrouped is one tool per tag and kind (its reads, its actions), with an
	// operation enum: a much smaller catalogue for a large API.
	CatalogGrouped = "grouped"
)

// opArgField names the operation in a grouped tool's arguments.
const opArgField = "operation"

// summaryLimit trims each operation's line in a grouped tool's description.
const summaryLimit = 70

// opTool is one operation as a tool of its own.
func opTool(op *operation) game.Tool {
	return game.Tool{
		Name:        op.Name,
		Description: opDescription(op),
		Kind:        op.Kind,
		Schema:      op.Schema,
		Group:       op.Tag,
		Check: func(args json.RawMessage) []game.Problem {
			m, err := decodeArgs(args)
			if err != nil {
				return nil // the schema check has said so already
			}
			return op.check(m)
		},
	}
}

func opDescription(op *operation) string {
	d := op.Summary
	if op.Description != "" && op.Description != op.Summary {
		d = strings.TrimSpace(strings.TrimRight(d, ".") + ". " + op.Description)
		d = strings.TrimPrefix(d, ". ")
	}
	if d == "" {
		d = op.Method + " " + op.Path
	}
	return trimText(d, descLimit) + notes(op)
}

// notes is what of op cannot be sent, for the end of a description ("" if nothing).
func notes(op *operation) string {
	if len(op.Notes) == 0 {
		return ""
	}
	return " Note: " + strings.Join(op.Notes, "; ") + "."
}

// group is the operations of one tag and kind, called through one tool.
type group struct {
	Name string
	Kind game.Kind
	Tag  string // the operations' first tag, "other" for untagged ones
	Ops  []*operation
}

// catalogueGroup is the tool's game.Tool.Group: its tag, "" when its operations
// have none.
func (gr *group) catalogueGroup() string {
	for _, op := range gr.Ops {
		if op.Tag != "" {
			return gr.Tag
		}
	}
	return ""
}

func (gr *group) op(name string) *operation {
	i := slices.IndexFunc(gr.Ops, func(op *operation) bool { return op.Name == name })
	if i < 0 {
		return nil
	}
	return gr.Ops[i]
}

// groupOperations puts operations into groups by their first tag ("other" for none)
// and kind. Reads and actions of a tag are separate tools so reads still run without
// asking a person and actions still ask.
func groupOperations(ops []*operation) []*group {
	var groups []*group
	used := map[string]bool{lastResponseTool: true}
	for _, op := range ops {
		tag := refOr(op.Tag, "other")
		i := slices.IndexFunc(groups, func(g *group) bool { return g.Tag == tag && g.Kind == op.Kind })
		if i < 0 {
			suffix := "_read"
			if op.Kind == game.Act {
				suffix = "_act"
			}
			base := toolName(strings.ToLower(strings.ReplaceAll(tag, " ", "_")) + suffix)
			name := base
			for n := 2; used[name]; n++ {
				name = toolName(fmt.Sprintf("%s_%d", base, n))
			}
			used[name] = true
			groups = append(groups, &group{Name: name, Kind: op.Kind, Tag: tag})
			i = len(groups) - 1
		}
		groups[i].Ops = append(groups[i].Ops, op)
	}
	return groups
}

// tool is the group as one tool: an operation enum and every operation's fields as
// optional typed properties. Check validates the call against the chosen operation's
// own schema, so what the merged schema leaves open is still checked exactly.
func (gr *group) tool(tagDesc string) game.Tool {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Required:             []string{opArgField},
	}
	names := make([]any, len(gr.Ops))
	for i, op := range gr.Ops {
		names[i] = op.Name
	}
	setProperty(s, opArgField, &jsonschema.Schema{Type: "string", Enum: names, Description: "Which operation to run; give its fields as well."})
	var order []string
	byField := map[string][]*jsonschema.Schema{}
	for _, op := range gr.Ops {
		for _, f := range op.Fields {
			if _, seen := byField[f.Name]; !seen {
				order = append(order, f.Name)
			}
			byField[f.Name] = append(byField[f.Name], f.Schema)
		}
	}
	for _, name := range order {
		if name == opArgField {
			continue // an operation's own "operation" field: not reachable through a group
		}
		setProperty(s, name, mergeField(byField[name]))
	}
	return game.Tool{
		Name:        gr.Name,
		Description: gr.description(tagDesc),
		Kind:        gr.Kind,
		Schema:      s,
		Group:       gr.catalogueGroup(),
		Check:       gr.check,
	}
}

// description lists each operation with its required fields and its other fields.
func (gr *group) description(tagDesc string) string {
	var b strings.Builder
	verb := "Reads"
	if gr.Kind == game.Act {
		verb = "Actions"
	}
	fmt.Fprintf(&b, "%s of %s.", verb, gr.Tag)
	if d := trimText(tagDesc, 120); d != "" {
		b.WriteString(" " + d)
	}
	b.WriteString(" Set operation and its fields: op(required, optional?):")
	for _, op := range gr.Ops {
		fields := slices.Clone(op.Schema.Required)
		for _, f := range op.Fields {
			if !slices.Contains(op.Schema.Required, f.Name) {
				fields = append(fields, f.Name+"?")
			}
		}
		fmt.Fprintf(&b, "\n- %s(%s)", op.Name, strings.Join(fields, ", "))
		if sum := trimText(firstNonEmpty(op.Summary, op.Description), summaryLimit); sum != "" {
			b.WriteString(" " + sum)
		}
		b.WriteString(notes(op))
	}
	return b.String()
}

// check validates a grouped call against its operation's own flattened schema.
func (gr *group) check(args json.RawMessage) []game.Problem {
	m, err := decodeArgs(args)
	if err != nil {
		return nil
	}
	name, _ := m[opArgField].(string)
	op := gr.op(name)
	if op == nil {
		return nil // the enum has said so already
	}
	delete(m, opArgField)
	raw, err := json.Marshal(m)
	if err != nil {
		return []game.Problem{{Path: "arguments", Expected: "a JSON object", Got: err.Error()}}
	}
	var probs []game.Problem
	if verr := game.Validate(op.Name, op.Schema, raw); verr != nil {
		if ve, ok := verr.(*game.ValidationError); ok {
			for _, p := range ve.Problems {
				if strings.HasPrefix(p.Expected, "no property") {
					p.Expected = fmt.Sprintf("no property %s for %s (its fields: %s)", strings.TrimPrefix(p.Path, "arguments."), op.Name, orNone(strings.Join(fieldNames(op), ", ")))
				}
				probs = append(probs, p)
			}
		} else {
			probs = append(probs, game.Problem{Path: "arguments", Expected: "valid arguments for " + op.Name, Got: verr.Error()})
		}
	}
	return append(probs, op.check(m)...)
}

func fieldNames(op *operation) []string {
	names := make([]string, len(op.Fields))
	for i, f := range op.Fields {
		names[i] = f.Name
	}
	return names
}

// mergeField is the schema of a field several operations share: the first one's when
// they agree on everything but wording, else the types they allow between them (each
// operation's own check is exact).
func mergeField(schemas []*jsonschema.Schema) *jsonschema.Schema {
	first := shape(schemas[0])
	same := true
	for _, s := range schemas[1:] {
		if shape(s) != first {
			same = false
			break
		}
	}
	if same {
		return schemas[0]
	}
	out := &jsonschema.Schema{}
	var types []string
	for _, s := range schemas {
		t := schemaTypes(s)
		if len(t) == 0 {
			types = nil
			break
		}
		for _, x := range t {
			if !slices.Contains(types, x) {
				types = append(types, x)
			}
		}
	}
	setTypes(out, types)
	desc := ""
	for _, s := range schemas {
		if s.Description != "" {
			desc = s.Description
			break
		}
	}
	out.Description = strings.TrimSpace(trimText(desc, 100) + " (differs by operation)")
	return out
}

// shape is a schema's JSON without its descriptions: what it accepts.
func shape(s *jsonschema.Schema) string {
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return ""
	}
	b, _ = json.Marshal(dropDescriptions(v, false))
	return string(b)
}

// dropDescriptions removes "description" keywords, but not properties that happen to
// be called description.
func dropDescriptions(v any, inProperties bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			if k == "description" && !inProperties {
				continue
			}
			out[k] = dropDescriptions(item, k == "properties" && !inProperties)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = dropDescriptions(item, false)
		}
		return out
	}
	return v
}
