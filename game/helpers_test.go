package game

import "github.com/google/jsonschema-go/jsonschema"

func schemaOf(v any) *jsonschema.Schema { return v.(*jsonschema.Schema) }
