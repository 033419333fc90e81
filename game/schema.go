package game

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaOption adjusts how SchemaFor builds a schema.
type SchemaOption func(*jsonschema.ForOptions)

// WithEnum makes every field of the string type E a closed set of values, so a model
// sees the choices in the schema and a wrong value is refused with the closest ones.
func WithEnum[E ~string](description string, values ...E) SchemaOption {
	return func(o *jsonschema.ForOptions) {
		s := &jsonschema.Schema{Type: "string", Description: description}
		for _, v := range values {
			s.Enum = append(s.Enum, string(v))
		}
		if o.TypeSchemas == nil {
			o.TypeSchemas = map[reflect.Type]*jsonschema.Schema{}
		}
		o.TypeSchemas[reflect.TypeFor[E]()] = s
	}
}

// SchemaFor returns the JSON Schema of the arguments type T, a struct. Field names come
// from json tags, descriptions from `jsonschema:"..."` tags; fields without omitempty
// are required, and unknown properties are refused. It panics if T cannot be described,
// which is a programming error found the first time the catalogue is built.
func SchemaFor[T any](opts ...SchemaOption) *jsonschema.Schema {
	var o jsonschema.ForOptions
	for _, opt := range opts {
		opt(&o)
	}
	s, err := jsonschema.For[T](&o)
	if err != nil {
		panic(fmt.Sprintf("game.SchemaFor: %v", err))
	}
	notNull(s)
	if s.Type == "object" && s.Properties == nil {
		// An empty struct still describes an object; models need the explicit map.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	return s
}

// Min sets the minimum of the named property of an object schema and returns the
// schema, for bounds a Go type cannot say (units must be at least 1).
func Min(s *jsonschema.Schema, property string, min float64) *jsonschema.Schema {
	p, ok := s.Properties[property]
	if !ok {
		panic(fmt.Sprintf("game.Min: no property %q", property))
	}
	p.Minimum = &min
	return s
}

// notNull removes "null" from the types jsonschema.For gives slices and pointers: tool
// arguments are never null, and saying so keeps models from sending it.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	notNull(s.Items)
}
