// Package gemini holds what Gemini's API accepts in a tool's schema, as its reference
// documents it, for the tests of what coplay sends there: the unit tests of the Gemini
// dialect (agent/openai) and the scripted Gemini endpoint of the command line's tests.
// It is kept apart from the dialect's own list, so that the tests check the dialect
// against the API and not against itself.
package gemini

// schemaFields are the fields of the Schema object in Gemini's API reference
// (ai.google.dev/api/caching#Schema). Gemini's API, its OpenAI-compatible endpoint
// included, refuses any other field of a function's parameters with 400 "Invalid JSON
// payload received. Unknown name …".
var schemaFields = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

// Refused walks schema s (found at at) as Gemini reads it and returns the first field
// it refuses and where that field is; "" when it accepts the whole schema. A type that
// is not one string (a JSON Schema type list) is refused as the field "type".
func Refused(s map[string]any, at string) (field, where string) {
	for k, v := range s {
		if !schemaFields[k] {
			return k, at
		}
		var subs []map[string]any
		switch k {
		case "type":
			if _, ok := v.(string); !ok {
				return k, at
			}
		case "properties":
			m, _ := v.(map[string]any)
			for name, p := range m {
				if f, w := Refused(asSchema(p), at+".properties."+name); f != "" {
					return f, w
				}
			}
		case "items":
			subs = append(subs, asSchema(v))
		case "anyOf":
			l, _ := v.([]any)
			for _, p := range l {
				subs = append(subs, asSchema(p))
			}
		}
		for _, sub := range subs {
			if f, w := Refused(sub, at+"."+k); f != "" {
				return f, w
			}
		}
	}
	return "", ""
}

func asSchema(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
