package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkError is the server's JSON-RPC error answer.
type sdkError = jsonrpc.Error

// Result error codes of this package's own (the server's JSON-RPC error codes are
// negative and passed on as they are).
const (
	// CodeToolError is a tool's own error (isError in its result).
	CodeToolError = 1
	// CodeNoTool is a call to a tool the server no longer offers.
	CodeNoTool = 2
	// CodeNotAnswering is a call that never reached the server: it does not answer
	// (an HTTP server that is down). Nothing happened; coplay reconnects.
	CodeNotAnswering = 3
)

// catalogue is the server's tools as game tools.
type catalogue struct {
	tools   []game.Tool
	byGame  map[string]game.Tool
	server  map[string]string // game name → the server's name for it
	preview map[string]string // game name → the server's read-only tool that previews it (PreviewMeta)
	skipped []string          // tools left out, each with why
}

// names returns the game names, sorted.
func (c catalogue) names() []string {
	out := make([]string, 0, len(c.tools))
	for _, t := range c.tools {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// readNames returns the names of the read-only tools, sorted.
func (c catalogue) readNames() []string {
	var out []string
	for _, t := range c.tools {
		if t.Kind == game.Read {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
}

// listTools reads every page of the server's tools; each tool's Group is group.
func listTools(ctx context.Context, sess *sdk.ClientSession, group string) (catalogue, error) {
	var tools []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return catalogue{}, err
		}
		tools = append(tools, t)
	}
	return buildCatalogue(tools, group), nil
}

// modelName is what a model's function-calling API takes as a tool name.
var modelName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// buildCatalogue turns the server's tools into game tools, in the server's order.
// Names are kept as the server gives them (get-sum stays get-sum) when a model's API
// can take them; a name it cannot take (a dot, a slash, over 64 characters) is mapped
// to one it can, and the map is kept to call the server by its own name. A tool whose
// schema cannot be read or checked is left out, with why. Every tool's Group is group
// (the server's name).
func buildCatalogue(tools []*sdk.Tool, group string) catalogue {
	c := catalogue{byGame: map[string]game.Tool{}, server: map[string]string{}, preview: map[string]string{}}
	previews := previewTools(tools)
	// Names a model can take are kept first, so a mapped name never takes one of them.
	taken := map[string]string{}
	for _, t := range tools {
		if t != nil && modelName.MatchString(t.Name) {
			taken[t.Name] = t.Name
		}
	}
	seen := map[string]bool{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if previews[t.Name] {
			continue // the dry run of the tool that names it, not a tool of its own
		}
		if seen[t.Name] {
			c.skipped = append(c.skipped, fmt.Sprintf("%s (listed twice; the first is kept)", t.Name))
			continue
		}
		seen[t.Name] = true
		schema, err := toSchema(t.InputSchema)
		if err != nil {
			c.skipped = append(c.skipped, fmt.Sprintf("%s (its input schema cannot be used: %v)", t.Name, err))
			continue
		}
		name := t.Name
		if !modelName.MatchString(name) {
			name = mapName(name, taken)
			taken[name] = t.Name
		}
		kind := game.Act
		if t.Annotations != nil && t.Annotations.ReadOnlyHint {
			kind = game.Read
		}
		gt := game.Tool{Name: name, Description: describeTool(t), Kind: kind, Schema: schema, Group: group}
		if p, ok := t.Meta[PreviewMeta].(string); ok && previews[p] {
			gt.DryRun, gt.Effects = true, metaStrings(t.Meta[EffectsMeta])
			c.preview[name] = p
		}
		c.tools = append(c.tools, gt)
		c.byGame[name] = gt
		c.server[name] = t.Name
	}
	return c
}

// PreviewMeta and EffectsMeta are the _meta keys by which a server says a tool has a
// dry run (a world served by coplay serve, game/mcpserve, names the same keys): the
// name of a read-only tool that takes the same arguments and answers the prediction as
// JSON ({predicted, summary, fails, warn, effects}), and the names of the numbers it
// may predict. coplay asks that tool for the tool's dry run (Simulate) and leaves it out
// of the model's catalogue, so a joined world reads as a local one.
const (
	PreviewMeta = "coplay/preview"
	EffectsMeta = "coplay/effects"
)

// previewTools are the read-only tools another tool names as its dry run.
func previewTools(tools []*sdk.Tool) map[string]bool {
	readOnly := map[string]bool{}
	for _, t := range tools {
		if t != nil && t.Annotations != nil && t.Annotations.ReadOnlyHint {
			readOnly[t.Name] = true
		}
	}
	out := map[string]bool{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if p, ok := t.Meta[PreviewMeta].(string); ok && readOnly[p] && p != t.Name {
			out[p] = true
		}
	}
	return out
}

// metaStrings reads a _meta list of strings; anything else is none.
func metaStrings(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// mapName makes a name a model can call from one it cannot: every other character
// becomes '_', it is cut to 60, and a number is added if that name is taken.
func mapName(name string, taken map[string]string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	base := string(b)
	if base == "" {
		base = "tool"
	}
	if len(base) > 60 {
		base = base[:60]
	}
	out := base
	for n := 2; ; n++ {
		if _, dup := taken[out]; !dup {
			return out
		}
		out = fmt.Sprintf("%s_%d", base, n)
	}
}

// describeTool keeps the server's description, led by the title when it says more
// than the name.
func describeTool(t *sdk.Tool) string {
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	desc := strings.TrimSpace(t.Description)
	if title == "" || strings.EqualFold(title, t.Name) {
		return desc
	}
	if desc == "" {
		return title
	}
	return title + ": " + desc
}

// toSchema reads a tool's input schema as the server sent it (draft-07 or 2020-12).
func toSchema(in any) (*jsonschema.Schema, error) {
	if in == nil {
		return nil, fmt.Errorf("it has none")
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" && !(s.Type == "" && len(s.Types) == 0) {
		return nil, fmt.Errorf("its type is %q, not \"object\"", s.Type)
	}
	if probs := game.SchemaProblems(&s); len(probs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(probs, "; "))
	}
	closeTopLevel(&s)
	return &s, nil
}

// closeTopLevel refuses unknown arguments when a schema lists its parameters and says
// nothing about others. JSON Schema would allow them, and servers drop them without a
// word (zod strips them, pydantic ignores them): a misspelt optional parameter would
// then run a call other than the one the person approved. A schema that allows more
// on purpose (additionalProperties, patternProperties, unevaluatedProperties, or
// parameters from $ref or allOf/anyOf/oneOf) is kept as it is, and so is every nested
// object. The closed schema is the one the model sees.
func closeTopLevel(s *jsonschema.Schema) {
	if s.Properties == nil || s.AdditionalProperties != nil || s.UnevaluatedProperties != nil ||
		len(s.PatternProperties) > 0 || s.Ref != "" || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 ||
		s.If != nil || len(s.DependentSchemas) > 0 || len(s.DependencySchemas) > 0 {
		return
	}
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
}

// diffCatalogues says what appeared and disappeared, and which tools changed their
// schema or kind; "" when nothing did.
func diffCatalogues(old, cur catalogue) string {
	var appeared, gone, changed []string
	for _, t := range cur.tools {
		o, ok := old.byGame[t.Name]
		switch {
		case !ok:
			appeared = append(appeared, fmt.Sprintf("%s (%s)", t.Name, t.Kind))
		case o.Kind != t.Kind || o.Description != t.Description || !sameSchema(o.Schema, t.Schema):
			changed = append(changed, fmt.Sprintf("%s (%s)", t.Name, t.Kind))
		}
	}
	for _, t := range old.tools {
		if _, ok := cur.byGame[t.Name]; !ok {
			gone = append(gone, t.Name)
		}
	}
	var parts []string
	if len(appeared) > 0 {
		parts = append(parts, "new: "+strings.Join(appeared, ", "))
	}
	if len(changed) > 0 {
		parts = append(parts, "changed: "+strings.Join(changed, ", "))
	}
	if len(gone) > 0 {
		parts = append(parts, "gone: "+strings.Join(gone, ", "))
	}
	if len(cur.skipped) > 0 && strings.Join(cur.skipped, "") != strings.Join(old.skipped, "") {
		parts = append(parts, "left out: "+strings.Join(cur.skipped, "; "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "The server's tools changed: " + strings.Join(parts, "; ") + "."
}

func sameSchema(a, b *jsonschema.Schema) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}
