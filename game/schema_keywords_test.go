package game

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// parseSchema reads a schema as a server sends it.
func parseSchema(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatalf("parse schema: %v\n%s", err, src)
	}
	return &s
}

// problemLines validates and returns one line per problem (nil when valid).
func problemLines(t *testing.T, s *jsonschema.Schema, args string) []string {
	t.Helper()
	err := Validate("tool", s, json.RawMessage(args))
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate returned %T %v, want *ValidationError", err, err)
	}
	var out []string
	for _, p := range ve.Problems {
		out = append(out, p.String())
	}
	return out
}

// Schemas in the shapes real MCP servers send: zod-to-json-schema (draft-07, definitions,
// anyOf for nullable), pydantic (2020-12, $defs, anyOf with null, const), hand-written.
const (
	draft07Schema = `{
	  "$schema": "http://json-schema.org/draft-07/schema#",
	  "type": "object",
	  "properties": {
	    "a": {"type": "number", "description": "First number"},
	    "b": {"type": "number", "minimum": 0, "maximum": 100},
	    "where": {"$ref": "#/definitions/Point"},
	    "path": {"type": "array", "items": {"$ref": "#/definitions/Point"}},
	    "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
	    "when": {"type": "string", "format": "date-time"}
	  },
	  "required": ["a", "b"],
	  "definitions": {
	    "Point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
	              "required": ["x", "y"], "additionalProperties": false}
	  }
	}`
	pydanticSchema = `{
	  "$defs": {
	    "Direction": {"enum": ["north", "south", "east", "west"], "title": "Direction", "type": "string"},
	    "Move": {"properties": {"direction": {"$ref": "#/$defs/Direction"}, "steps": {"default": 1, "minimum": 1, "title": "Steps", "type": "integer"}},
	             "required": ["direction"], "title": "Move", "type": "object"}
	  },
	  "properties": {
	    "move": {"$ref": "#/$defs/Move"},
	    "limit": {"anyOf": [{"type": "integer", "multipleOf": 5}, {"type": "null"}], "default": null, "title": "Limit"},
	    "mode": {"oneOf": [{"const": "walk", "title": "Walk"}, {"const": "run", "title": "Run"}]},
	    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
	  },
	  "required": ["move"],
	  "title": "moveArguments",
	  "type": "object"
	}`
)

func TestValidateServerSchemas(t *testing.T) {
	d7 := parseSchema(t, draft07Schema)
	py := parseSchema(t, pydanticSchema)
	tests := []struct {
		name   string
		schema *jsonschema.Schema
		args   string
		want   []string // every problem line, in order; nil means valid
	}{
		{"draft-07 valid", d7, `{"a":2,"b":40}`, nil},
		{"draft-07 full", d7, `{"a":2,"b":40,"where":{"x":1,"y":2},"path":[{"x":0,"y":0}],"note":null,"when":"2026-11-22T23:00:00Z"}`, nil},
		{"absent additionalProperties allows more", d7, `{"a":1,"b":2,"extra":true}`, nil},
		{"format is checked", d7, `{"a":1,"b":2,"when":"tomorrow"}`, []string{`arguments.when: expected a date-time (RFC 3339, like 2026-01-02T15:04:05Z), got string "tomorrow"`}},
		{"number in quotes", d7, `{"a":"2","b":40}`, []string{`arguments.a: expected a number, got string "2" (send the number 2 without quotes)`}},
		{"maximum", d7, `{"a":1,"b":101}`, []string{`arguments.b: expected a number ≤ 100, got 101`}},
		{"$ref into definitions", d7, `{"a":1,"b":2,"where":{"x":1,"depth":2}}`, []string{
			`arguments.where.y: expected required an integer, got nothing (missing)`,
			`arguments.where.depth: expected no property "depth" (valid: x, y), got number 2`,
		}},
		{"$ref under items", d7, `{"a":1,"b":2,"path":[{"x":1,"y":1},{"x":"1","y":1}]}`, []string{
			`arguments.path[1].x: expected an integer, got string "1" (send the number 1 without quotes)`,
		}},
		{"nullable anyOf takes null", d7, `{"a":1,"b":2,"note":null}`, nil},
		{"nullable anyOf refuses another kind", d7, `{"a":1,"b":2,"note":5}`, []string{`arguments.note: expected a string or null, got number 5`}},
		{"pydantic valid", py, `{"move":{"direction":"north","steps":2},"limit":10,"mode":"run","tags":["a","b"]}`, nil},
		{"required $ref described", py, `{}`, []string{`arguments.move: expected required an object, got nothing (missing)`}},
		{"enum behind two refs", py, `{"move":{"direction":"Nort"}}`, []string{
			`arguments.move.direction: expected one of "north", "south", "east", "west", got string "Nort" (did you mean north?)`,
		}},
		{"minimum behind a ref", py, `{"move":{"direction":"east","steps":0}}`, []string{`arguments.move.steps: expected a number ≥ 1, got 0`}},
		{"closest anyOf branch", py, `{"move":{"direction":"east"},"limit":7}`, []string{`arguments.limit: expected a multiple of 5, got number 7`}},
		{"anyOf hint from the closest branch", py, `{"move":{"direction":"east"},"limit":"10"}`, []string{
			`arguments.limit: expected an integer or null, got string "10" (send the number 10 without quotes)`,
		}},
		{"oneOf of consts", py, `{"move":{"direction":"east"},"mode":"Run"}`, []string{
			`arguments.mode: expected "walk" or "run", got string "Run" (did you mean run?)`,
		}},
		{"uniqueItems", py, `{"move":{"direction":"east"},"tags":["a","b","a"]}`, []string{
			`arguments.tags[2]: expected items that are all different, got string "a", the same as item [0]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemLines(t, tt.schema, tt.args)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateMoreKeywords(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{"oneOf matching two", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `3`, []string{
			`arguments: expected a value that matches exactly one of 2 alternatives (an integer or a number), got number 3, which matches 2 of them`,
		}},
		{"oneOf matching one", `{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `3`, nil},
		{"allOf", `{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"required":["b"]}]}`, `{"a":1}`, []string{
			`arguments.b: expected required value, got nothing (missing)`,
		}},
		{"draft-07 tuple", `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`, `{"p":["a","b",3]}`, []string{
			`arguments.p[1]: expected an integer, got string "b"`,
			`arguments.p[2]: expected at most 2 items, got number 3`,
		}},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"boolean"}]}`, `[1]`, []string{`arguments[0]: expected a boolean, got number 1`}},
		{"min and max properties", `{"type":"object","minProperties":2,"maxProperties":3}`, `{"a":1}`, []string{`arguments: expected at least 2 properties, got 1 properties`}},
		{"dependentRequired", `{"type":"object","dependentRequired":{"card":["cvv"]}}`, `{"card":"1"}`, []string{`arguments.cvv: expected required when "card" is given, got nothing (missing)`}},
		{"draft-07 dependencies", `{"type":"object","dependencies":{"card":["cvv"]}}`, `{"card":"1","cvv":"2"}`, nil},
		{"not", `{"type":"object","properties":{"n":{"not":{"const":0}}}}`, `{"n":0}`, []string{`arguments.n: expected anything but 0, got number 0`}},
		{"if then else", `{"type":"object","if":{"properties":{"kind":{"const":"box"}},"required":["kind"]},"then":{"required":["size"]},"else":{"required":["name"]}}`, `{"kind":"box"}`, []string{
			`arguments.size: expected required value, got nothing (missing)`,
		}},
		{"ref to the root", `{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`, `{"child":{"child":{"n":"x"}}}`, []string{
			`arguments.child.child.n: expected an integer, got string "x"`,
		}},
		{"ref by JSON pointer", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"}}}`, `{"b":1.5}`, []string{
			`arguments.b: expected an integer, got number 1.5`,
		}},
		{"ref with escapes", `{"$defs":{"a/b":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a~1b"}}}`, `{"x":1}`, []string{
			`arguments.x: expected a string, got number 1`,
		}},
		{"ref cycle is a problem, not a hang", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `{}`, []string{
			`arguments: expected a schema that can be checked, got a schema that refers to itself without end (the tool's schema is broken; the call cannot be checked, so it is not sent)`,
		}},
		{"dangling ref", `{"type":"object","properties":{"x":{"$ref":"#/$defs/Missing"}}}`, `{"x":1}`, []string{
			`arguments.x: expected a schema that can be checked, got $ref "#/$defs/Missing", which names nothing in this schema (nothing at "$defs/Missing") (the tool's schema is broken; the call cannot be checked, so it is not sent)`,
		}},
		{"remote ref", `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`, `{"x":1}`, []string{
			`arguments.x: expected a schema that can be checked, got $ref "https://example.com/s.json", which is outside this schema (only refs like #/$defs/Name are followed) (the tool's schema is broken; the call cannot be checked, so it is not sent)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemLines(t, parseSchema(t, tt.schema), tt.args)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestSchemaProblems(t *testing.T) {
	if p := SchemaProblems(parseSchema(t, pydanticSchema)); p != nil {
		t.Errorf("pydantic schema: %v, want none", p)
	}
	broken := parseSchema(t, `{"type":"object","properties":{"a":{"$ref":"#/definitions/A"},"b":{"items":{"$ref":"other.json#/x"}}}}`)
	got := SchemaProblems(broken)
	if len(got) != 2 || !strings.Contains(got[0], `"#/definitions/A"`) || !strings.Contains(got[1], `"other.json#/x"`) {
		t.Errorf("SchemaProblems = %q, want the two broken refs", got)
	}
}

// TestResolveEveryKeyword follows a $ref through each keyword that holds subschemas,
// and has SchemaProblems find a broken $ref under each, so the keyword lists and the
// fields keyed, listed and single return stay in step.
func TestResolveEveryKeyword(t *testing.T) {
	sub := func(kw string) string { return `{"$ref":"#/$defs/none","description":"` + kw + `"}` }
	refs := map[string]string{"items": "#/items", "itemsArray": "#/items/0"}
	srcs := map[string]string{"items": `{"items":` + sub("items") + `}`, "itemsArray": `{"items":[` + sub("itemsArray") + `]}`}
	for _, kw := range keyedKeywords {
		refs[kw], srcs[kw] = "#/"+kw+"/a", `{"`+kw+`":{"a":`+sub(kw)+`}}`
	}
	for _, kw := range listedKeywords {
		refs[kw], srcs[kw] = "#/"+kw+"/0", `{"`+kw+`":[`+sub(kw)+`]}`
	}
	for _, kw := range singleKeywords {
		refs[kw], srcs[kw] = "#/"+kw, `{"`+kw+`":`+sub(kw)+`}`
	}
	for kw, ref := range refs {
		root := parseSchema(t, srcs[kw])
		got, err := (&walk{root: root}).resolve(ref)
		if err != nil || got == nil || got.Description != kw {
			t.Errorf("resolve(%q) in %s = %v, %v; want the schema described %q", ref, srcs[kw], got, err, kw)
		}
		if p := SchemaProblems(root); len(p) != 1 || !strings.Contains(p[0], `"#/$defs/none"`) {
			t.Errorf("SchemaProblems(%s) = %q, want the broken ref under %s", srcs[kw], p, kw)
		}
	}
}

// Our own tools stay strict: SchemaFor closes every object.
func TestOwnSchemasStayClosed(t *testing.T) {
	if got := problemLines(t, navSchema, `{"shipSymbol":"X","waypointSymbol":"Y","extra":1}`); len(got) != 1 || !strings.Contains(got[0], `no property "extra"`) {
		t.Errorf("problems = %q, want the extra property refused", got)
	}
}

// FuzzValidateServerSchemas feeds arguments to schemas as servers send them ($ref,
// anyOf, oneOf, tuples, a $ref cycle): never a panic or a hang, and every refusal is
// a *ValidationError with at least one problem.
func FuzzValidateServerSchemas(f *testing.F) {
	schemas := []*jsonschema.Schema{
		parseSchema(f, draft07Schema),
		parseSchema(f, pydanticSchema),
		parseSchema(f, `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"$ref":"#/$defs/a"}`),
		parseSchema(f, `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false,"uniqueItems":true},"n":{"not":{"const":0},"multipleOf":0.5}},"if":{"required":["t"]},"then":{"required":["n"]}}`),
	}
	for _, seed := range []string{`{"a":2,"b":40}`, `{"move":{"direction":"north"},"limit":null}`, `{}`, `null`, `{"t":["a","a"],"n":0}`, `{"where":{"x":"1"}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, s := range schemas {
			err := Validate("tool", s, json.RawMessage(args))
			var ve *ValidationError
			if err != nil && (!errors.As(err, &ve) || len(ve.Problems) == 0) {
				t.Fatalf("Validate(%q) = %v, want nil or a *ValidationError with problems", args, err)
			}
		}
	})
}
