package openai

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/models"
)

// A server's dialect decides what a tool's schema may hold on the way out. coplay
// validates every argument against the full schema before the gate whatever was sent;
// the model only needs a schema its server accepts.
//
// Gemini (its OpenAI-compatible endpoint included) takes a subset of OpenAPI 3.0's
// schema object and answers 400 "Invalid JSON payload received. Unknown name
// "additionalProperties" at 'tools[0].function_declarations[0].parameters'" to anything
// else. Its schema keeps the keywords below; the rest go, or become what Gemini has:
// const a one-value enum, $ref the definition inlined, oneOf anyOf, allOf one merged
// object, a type list a type with nullable, a format it does not know a line of the
// description.

// geminiKeys are the keywords of Gemini's Schema object (ai.google.dev, "Schema").
var geminiKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

// geminiFormats are the formats Gemini accepts, by type; others are refused.
var geminiFormats = map[string][]string{
	"string":  {"enum", "date-time"},
	"integer": {"int32", "int64"},
	"number":  {"float", "double"},
}

// maxInline bounds how deep $ref targets are inlined: a recursive schema (a tree of
// comments) is cut there to an object described in words.
const maxInline = 6

// dialectSchema returns schema (a tool's parameters) as dialect d accepts it, with the
// keywords in strip removed as well (learned from a server's refusal, see
// schemaRefusal). The plain wire gets the schema unchanged.
func dialectSchema(d models.Dialect, schema json.RawMessage, strip []string) (json.RawMessage, error) {
	if d != models.DialectGemini && len(strip) == 0 {
		return schema, nil
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, err
	}
	c := converter{root: root, gemini: d == models.DialectGemini, strip: strip}
	out := c.convert(root, 0)
	if t, _ := out["type"].(string); t == "" {
		out["type"] = "object"
	}
	if _, ok := out["properties"]; !ok && out["type"] == "object" {
		out["properties"] = map[string]any{}
	}
	return json.Marshal(out)
}

// converter rewrites one tool's schema.
type converter struct {
	root   map[string]any
	gemini bool
	strip  []string
}

func (c *converter) convert(s map[string]any, depth int) map[string]any {
	if ref, ok := s["$ref"].(string); ok && c.gemini {
		target, found := c.resolve(ref)
		if !found || depth >= maxInline {
			what := "an object"
			if found {
				what = "an object of the same shape as its parent"
			}
			return describe(map[string]any{"type": "object"}, s, "("+what+", "+ref+")")
		}
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range s { // siblings of $ref (a description) win
			if k != "$ref" {
				merged[k] = v
			}
		}
		return c.convert(merged, depth+1)
	}
	if all, ok := s["allOf"].([]any); ok && c.gemini {
		s = mergeAllOf(s, all)
	}
	out := map[string]any{}
	var notes []string
	for k, v := range s {
		if slices.Contains(c.strip, k) {
			continue
		}
		switch {
		case !c.gemini:
			out[k] = c.sub(k, v, depth)
		case k == "const":
			if str, ok := v.(string); ok {
				out["enum"] = []any{str}
			} else {
				notes = append(notes, "always "+jsonText(v))
			}
		case k == "oneOf":
			out["anyOf"] = c.sub("anyOf", v, depth)
		case k == "type":
			if list, ok := v.([]any); ok {
				for _, t := range list {
					if t == "null" {
						out["nullable"] = true
					} else if _, set := out["type"]; !set {
						out["type"] = t
					}
				}
			} else {
				out["type"] = v
			}
		case k == "enum":
			if allStrings(v) {
				out[k] = v
			} else {
				notes = append(notes, "one of "+jsonText(v))
			}
		case k == "items":
			if one, ok := v.(map[string]any); ok {
				out[k] = c.convert(one, depth)
			}
		case geminiKeys[k]:
			out[k] = c.sub(k, v, depth)
		}
	}
	if c.gemini {
		t, _ := out["type"].(string)
		if f, ok := out["format"].(string); ok && !slices.Contains(geminiFormats[t], f) {
			delete(out, "format")
			notes = append(notes, "format "+f)
		}
		if _, ok := out["enum"]; ok && t != "" && t != "string" {
			notes = append(notes, "one of "+jsonText(out["enum"]))
			delete(out, "enum")
		}
		if req, ok := out["required"].([]any); ok {
			// Gemini refuses a required name that is not a property.
			props, _ := out["properties"].(map[string]any)
			kept := req[:0:0]
			for _, r := range req {
				if name, ok := r.(string); ok && props[name] != nil {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				delete(out, "required")
			} else {
				out["required"] = kept
			}
		}
	}
	if len(notes) > 0 {
		out = describe(out, out, "("+strings.Join(notes, "; ")+")")
	}
	return out
}

// sub converts the schemas inside keyword k's value: properties' values, anyOf's items.
func (c *converter) sub(k string, v any, depth int) any {
	switch k {
	case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for name, ps := range m {
			if psm, ok := ps.(map[string]any); ok {
				out[name] = c.convert(psm, depth)
			} else {
				out[name] = ps
			}
		}
		return out
	case "anyOf", "oneOf", "allOf", "prefixItems":
		list, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, 0, len(list))
		for _, item := range list {
			if m, ok := item.(map[string]any); ok {
				out = append(out, c.convert(m, depth))
			}
		}
		return out
	case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames":
		if m, ok := v.(map[string]any); ok {
			return c.convert(m, depth)
		}
	}
	return v
}

// resolve finds a local reference (#/$defs/Name, #/definitions/Name, #) in the root.
func (c *converter) resolve(ref string) (map[string]any, bool) {
	if ref == "#" {
		return c.root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = c.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// mergeAllOf folds allOf's branches into s: their properties, required names and
// other keywords (s's own win).
func mergeAllOf(s map[string]any, all []any) map[string]any {
	out := map[string]any{}
	props := map[string]any{}
	var req []any
	add := func(m map[string]any) {
		for k, v := range m {
			switch k {
			case "allOf":
			case "properties":
				if pm, ok := v.(map[string]any); ok {
					for n, p := range pm {
						props[n] = p
					}
				}
			case "required":
				if r, ok := v.([]any); ok {
					req = append(req, r...)
				}
			default:
				out[k] = v
			}
		}
	}
	for _, b := range all {
		if m, ok := b.(map[string]any); ok {
			add(m)
		}
	}
	add(s)
	if len(props) > 0 {
		out["properties"] = props
		if _, ok := out["type"]; !ok {
			out["type"] = "object"
		}
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

// describe adds note to the description of out (taken from from when out has none).
func describe(out, from map[string]any, note string) map[string]any {
	d, _ := from["description"].(string)
	if d != "" {
		d += " "
	}
	out["description"] = d + note
	return out
}

func allStrings(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// schemaRefusalRE reads a refusal that names a schema keyword and where it is: Gemini's
// "Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters'"
// and "Invalid value at 'tools[0].function_declarations[3].parameters.properties[1]...".
var schemaRefusalRE = regexp.MustCompile(`(?:Unknown name|Invalid JSON payload received\. Unknown name) \\?"([$\w]+)\\?" at '?tools\[(\d+)\]`)

// schemaRefusal reads a 400 that refuses a tool's schema: the keyword the server does
// not know, and the index of the tool. ok is false for any other refusal.
func schemaRefusal(msg string) (keyword string, tool int, ok bool) {
	m := schemaRefusalRE.FindStringSubmatch(msg)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	return m[1], n, true
}

// schemaError says in plain words which tool's schema the server refused and for which
// keyword.
func schemaError(tool, keyword string, tried []string) string {
	s := fmt.Sprintf("the server refused the schema of tool %s: it does not know the keyword %q", tool, keyword)
	if len(tried) > 0 {
		s += fmt.Sprintf(" (coplay left out %s and asked again)", strings.Join(tried, ", "))
	}
	return s + "; with --preset gemini coplay sends schemas as Gemini takes them"
}

// Mistral's API refuses a tool call id that is not nine letters and digits ("Tool call
// id was call_1_0 but must be a-z, A-Z, 0-9, with a length of 9"). Its own models make
// such ids; the ones coplay makes (a call read from text, a call that came without an
// id) are mapped to nine characters derived from the id, the same every request, so the
// prompt's prefix stays put.
var mistralID = regexp.MustCompile(`^[A-Za-z0-9]{9}$`)

// dialectMessages adapts the conversation to the server's dialect: Mistral's ids.
func dialectMessages(d models.Dialect, msgs []goopenai.ChatCompletionMessage) []goopenai.ChatCompletionMessage {
	if d != models.DialectMistral {
		return msgs
	}
	for i := range msgs {
		for j := range msgs[i].ToolCalls {
			msgs[i].ToolCalls[j].ID = nineID(msgs[i].ToolCalls[j].ID)
		}
		if msgs[i].ToolCallID != "" {
			msgs[i].ToolCallID = nineID(msgs[i].ToolCallID)
		}
	}
	return msgs
}

// nineID is id when Mistral takes it, else nine letters and digits from its hash.
func nineID(id string) string {
	if mistralID.MatchString(id) {
		return id
	}
	const digits = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	sum := sha256.Sum256([]byte(id))
	out := make([]byte, 9)
	for i := range out {
		out[i] = digits[int(sum[i])%len(digits)]
	}
	return string(out)
}
