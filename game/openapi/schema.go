package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// maxSchemaDepth bounds how deep a schema is converted. Arguments deeper than this are
// rare; a recursive schema (a tree of nodes) is cut here and left unchecked below.
const maxSchemaDepth = 8

// propDescLimit trims property descriptions: the model needs the gist, not the manual.
const propDescLimit = 200

// converter turns libopenapi schemas into *jsonschema.Schema values that game.Validate
// checks by itself: every $ref is resolved and inlined, allOf is merged, and anyOf or
// oneOf become what the validator can check (a union of types, or an open union of
// object properties). A schema that refers to itself is cut where it recurs.
type converter struct {
	stack []string // references being converted, to cut cycles
}

// convert returns the argument schema for sp, depth levels below the arguments.
// Properties marked readOnly are left out: the server sets them, a request never
// carries them.
func (c *converter) convert(sp *base.SchemaProxy, depth int) (*jsonschema.Schema, error) {
	if sp == nil {
		return &jsonschema.Schema{}, nil
	}
	ref := sp.GetReference()
	if ref != "" {
		if slices.Contains(c.stack, ref) || depth > maxSchemaDepth {
			return &jsonschema.Schema{Description: "(" + refName(ref) + ", nested again: not checked here)"}, nil
		}
		c.stack = append(c.stack, ref)
		defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	}
	if depth > maxSchemaDepth {
		return &jsonschema.Schema{Description: "(nested too deep: not checked here)"}, nil
	}
	s := sp.Schema()
	if s == nil {
		if err := sp.GetBuildError(); err != nil {
			return nil, fmt.Errorf("schema %s: %w", refOr(ref, "inline"), err)
		}
		return nil, fmt.Errorf("schema %s does not resolve", refOr(ref, "inline"))
	}
	return c.schema(s, depth)
}

// schema converts one resolved schema, in phases: what a value is (description,
// format, bounds, enum, const), what an array holds, what an object has, then allOf
// merged in, oneOf and anyOf folded into a union, and null allowed where nullable.
func (c *converter) schema(s *base.Schema, depth int) (*jsonschema.Schema, error) {
	out := scalar(s)
	if err := values(out, s); err != nil {
		return nil, err
	}
	if err := c.array(out, s, depth); err != nil {
		return nil, err
	}
	if err := c.object(out, s, depth); err != nil {
		return nil, err
	}
	types, err := c.allOf(out, s, depth)
	if err != nil {
		return nil, err
	}
	nullable := s.Nullable != nil && *s.Nullable
	if types, nullable, err = c.alternatives(out, s, types, nullable, depth); err != nil {
		return nil, err
	}
	if nullable && len(types) > 0 && !slices.Contains(types, "null") {
		types = append(types, "null")
	}
	if nullable && len(out.Enum) > 0 && !slices.Contains(out.Enum, any(nil)) {
		out.Enum = append(out.Enum, nil)
	}
	setTypes(out, types)
	return out, nil
}

// scalar is what s says of a value by itself: its description, format and bounds.
func scalar(s *base.Schema) *jsonschema.Schema {
	out := &jsonschema.Schema{
		Description: trimText(firstNonEmpty(s.Description, s.Title), propDescLimit),
		Format:      s.Format,
		Pattern:     s.Pattern,
		Minimum:     s.Minimum,
		Maximum:     s.Maximum,
		MinLength:   intPtr(s.MinLength),
		MaxLength:   intPtr(s.MaxLength),
		MinItems:    intPtr(s.MinItems),
		MaxItems:    intPtr(s.MaxItems),
		// Kept so a form's file fields can be told apart (see isFile).
		ContentEncoding:  s.ContentEncoding,
		ContentMediaType: s.ContentMediaType,
	}
	exclusiveBound(s.ExclusiveMinimum, &out.Minimum, &out.ExclusiveMinimum)
	exclusiveBound(s.ExclusiveMaximum, &out.Maximum, &out.ExclusiveMaximum)
	return out
}

// exclusiveBound applies an exclusive bound: OpenAPI 3.1 gives its number, 3.0 a flag
// that makes the inclusive bound exclusive.
func exclusiveBound(x *base.DynamicValue[bool, float64], inclusive, exclusive **float64) {
	switch {
	case x == nil:
	case x.IsB():
		v := x.B
		*exclusive = &v
	case x.A && *inclusive != nil:
		*exclusive, *inclusive = *inclusive, nil
	}
}

// values takes s's enum and const as the values JSON would give.
func values(out *jsonschema.Schema, s *base.Schema) error {
	for _, n := range s.Enum {
		v, err := nodeValue(n)
		if err != nil {
			return fmt.Errorf("enum value at line %d: %w", n.Line, err)
		}
		out.Enum = append(out.Enum, v)
	}
	if s.Const != nil {
		v, err := nodeValue(s.Const)
		if err != nil {
			return fmt.Errorf("const at line %d: %w", s.Const.Line, err)
		}
		out.Const = &v
	}
	return nil
}

// array converts what an array's items must be.
func (c *converter) array(out *jsonschema.Schema, s *base.Schema, depth int) error {
	if s.Items == nil || !s.Items.IsA() || s.Items.A == nil {
		return nil
	}
	items, err := c.convert(s.Items.A, depth+1)
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	out.Items = items
	return nil
}

// object converts an object's properties (leaving the read-only ones out, required or
// not), whether it is read-only itself, and what other properties it takes.
func (c *converter) object(out *jsonschema.Schema, s *base.Schema, depth int) error {
	var readOnly []string
	if s.Properties != nil {
		for name, p := range s.Properties.FromOldest() {
			ps, err := c.convert(p, depth+1)
			if err != nil {
				return fmt.Errorf("property %s: %w", name, err)
			}
			if ps.ReadOnly {
				readOnly = append(readOnly, name) // the server sets it; a request never carries it
				continue
			}
			setProperty(out, name, ps)
		}
	}
	for _, r := range s.Required {
		if !slices.Contains(readOnly, r) {
			out.Required = append(out.Required, r)
		}
	}
	if ps := s.ReadOnly; ps != nil && *ps {
		out.ReadOnly = true
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.IsB() && !ap.B {
			out.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		} else if ap.IsA() && ap.A != nil {
			as, err := c.convert(ap.A, depth+1)
			if err != nil {
				return fmt.Errorf("additionalProperties: %w", err)
			}
			out.AdditionalProperties = as
		}
	}
	return nil
}

// allOf merges every allOf member into out and returns the types: s's own, or else
// the first member's that has some.
func (c *converter) allOf(out *jsonschema.Schema, s *base.Schema, depth int) ([]string, error) {
	types := slices.Clone(s.Type)
	for i, sub := range s.AllOf {
		ss, err := c.convert(sub, depth)
		if err != nil {
			return nil, fmt.Errorf("allOf[%d]: %w", i, err)
		}
		if len(ss.Types) == 0 && ss.Type == "" && len(ss.Properties) > 0 {
			ss.Type = "object"
		}
		merge(out, ss, true)
		if len(types) == 0 {
			types = schemaTypes(ss)
		}
	}
	return types, nil
}

// alternatives folds oneOf and anyOf into out (see union); an alternative that is only
// null makes the schema nullable instead.
func (c *converter) alternatives(out *jsonschema.Schema, s *base.Schema, types []string, nullable bool, depth int) ([]string, bool, error) {
	alts := append(slices.Clone(s.OneOf), s.AnyOf...)
	if len(alts) == 0 {
		return types, nullable, nil
	}
	var branches []*jsonschema.Schema
	for i, sub := range alts {
		ss, err := c.convert(sub, depth)
		if err != nil {
			return nil, false, fmt.Errorf("oneOf/anyOf[%d]: %w", i, err)
		}
		if t := schemaTypes(ss); len(t) == 1 && t[0] == "null" {
			nullable = true
			continue
		}
		branches = append(branches, ss)
	}
	return union(out, types, branches), nullable, nil
}

// union folds the alternatives of a oneOf or anyOf into out, as far as the validator
// can check them: one alternative is merged in whole; several become a union of their
// types, and objects among them an open object with every alternative's properties and
// none required. The exact choice is left to the server.
func union(out *jsonschema.Schema, types []string, branches []*jsonschema.Schema) []string {
	if len(branches) == 1 {
		merge(out, branches[0], true)
		if len(types) == 0 {
			types = schemaTypes(branches[0])
		}
		return types
	}
	var descs []string
	var ts []string
	for _, b := range branches {
		bt := schemaTypes(b)
		if len(bt) == 0 {
			return types // an alternative accepts anything: so does the union
		}
		for _, t := range bt {
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
		if b.Description != "" {
			descs = append(descs, b.Description)
		}
		if len(b.Properties) > 0 {
			loose := *b
			loose.Required = nil
			loose.Description = ""
			merge(out, &loose, false)
		}
	}
	if out.Description == "" && len(descs) > 0 {
		out.Description = trimText("One of: "+strings.Join(descs, " | "), propDescLimit)
	}
	if len(types) == 0 {
		types = ts
	}
	return types
}

// merge adds from's properties, requirements and bounds to into (allOf semantics when
// required is true; a loose union otherwise).
func merge(into, from *jsonschema.Schema, required bool) {
	for _, name := range propertyNames(from) {
		if _, dup := into.Properties[name]; !dup {
			setProperty(into, name, from.Properties[name])
		}
	}
	if required {
		for _, r := range from.Required {
			if !slices.Contains(into.Required, r) {
				into.Required = append(into.Required, r)
			}
		}
	}
	if into.Description == "" {
		into.Description = from.Description
	}
	if len(into.Enum) == 0 {
		into.Enum = from.Enum
	}
	if into.Format == "" {
		into.Format = from.Format
	}
	if into.Pattern == "" {
		into.Pattern = from.Pattern
	}
	into.Minimum = firstPtr(into.Minimum, from.Minimum)
	into.Maximum = firstPtr(into.Maximum, from.Maximum)
	into.ExclusiveMinimum = firstPtr(into.ExclusiveMinimum, from.ExclusiveMinimum)
	into.ExclusiveMaximum = firstPtr(into.ExclusiveMaximum, from.ExclusiveMaximum)
	into.MinLength = firstPtr(into.MinLength, from.MinLength)
	into.MaxLength = firstPtr(into.MaxLength, from.MaxLength)
	into.MinItems = firstPtr(into.MinItems, from.MinItems)
	into.MaxItems = firstPtr(into.MaxItems, from.MaxItems)
	if into.Items == nil {
		into.Items = from.Items
	}
	if into.Const == nil {
		into.Const = from.Const
	}
	if required && into.AdditionalProperties == nil {
		into.AdditionalProperties = from.AdditionalProperties
	}
}

// setProperty adds a property, keeping the spec's order for the model to read.
func setProperty(s *jsonschema.Schema, name string, p *jsonschema.Schema) {
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if _, ok := s.Properties[name]; !ok {
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
	s.Properties[name] = p
}

// propertyNames returns s's property names in order.
func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names[len(s.PropertyOrder):])
	return names
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func setTypes(s *jsonschema.Schema, types []string) {
	s.Type, s.Types = "", nil
	switch len(types) {
	case 0:
	case 1:
		s.Type = types[0]
	default:
		s.Types = types
	}
}

// nodeValue decodes a YAML node (an enum member, a const) into the value JSON would
// give, so the validator's comparison by JSON encoding matches what a model sends.
func nodeValue(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not a JSON value: %w", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func intPtr(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

func firstPtr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func refOr(ref, alt string) string {
	if ref != "" {
		return ref
	}
	return alt
}

// refName is the last part of a reference: "Node" for "#/components/schemas/Node".
func refName(ref string) string {
	ref = strings.TrimSuffix(ref, ".json")
	if i := strings.LastIndexAny(ref, "/#"); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

// trimText collapses whitespace and cuts s to about limit characters at a word
// boundary, marking the cut.
func trimText(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)[:limit]
	cut := string(r)
	if i := strings.LastIndex(cut, " "); i > limit/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " .,;:") + "…"
}
