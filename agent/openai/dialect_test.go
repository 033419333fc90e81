package openai

import (
	"encoding/json"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/llmtest/gemini"
	"github.com/coplayhq/coplay/agent/models"
)

func TestGeminiDialect(t *testing.T) {
	in := `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "mode": {"const": "CRUISE", "description": "how to fly"},
	    "ship": {"$ref": "#/$defs/Ship"},
	    "note": {"type": ["string", "null"], "format": "uuid"},
	    "when": {"type": "string", "format": "date-time"},
	    "level": {"type": "integer", "enum": [1, 2, 3]},
	    "cargo": {"type": "array", "items": {"type": "object", "additionalProperties": false,
	              "properties": {"symbol": {"type": "string"}, "units": {"type": "integer", "exclusiveMinimum": 0}},
	              "required": ["symbol", "units"]}},
	    "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
	    "both": {"allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {"type": "number"}}}]},
	    "tags": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}}
	  },
	  "required": ["mode", "ghost"],
	  "$defs": {"Ship": {"type": "object", "properties": {"symbol": {"type": "string"}, "next": {"$ref": "#/$defs/Ship"}}}}
	}`
	out, err := dialectSchema(models.DialectGemini, json.RawMessage(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	if f, where := gemini.Refused(s, "parameters"); f != "" {
		t.Fatalf("Gemini would refuse %s.%s in %s", where, f, out)
	}
	props := s["properties"].(map[string]any)
	for _, want := range []struct{ path, got, want string }{
		{"mode", jsonText(props["mode"]), `{"description":"how to fly","enum":["CRUISE"]}`},
		{"ship.symbol", jsonText(props["ship"].(map[string]any)["properties"].(map[string]any)["symbol"]), `{"type":"string"}`},
		{"note", jsonText(props["note"]), `{"description":"(format uuid)","nullable":true,"type":"string"}`},
		{"when", jsonText(props["when"]), `{"format":"date-time","type":"string"}`},
		{"level", jsonText(props["level"]), `{"description":"(one of [1,2,3])","type":"integer"}`},
		{"target", jsonText(props["target"]), `{"anyOf":[{"type":"string"},{"type":"integer"}]}`},
		{"both", jsonText(props["both"]), `{"properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"],"type":"object"}`},
		{"required", jsonText(s["required"]), `["mode"]`},
	} {
		if want.got != want.want {
			t.Errorf("%s = %s, want %s", want.path, want.got, want.want)
		}
	}
	// A recursive $ref is cut, not followed for ever.
	if !strings.Contains(string(out), "an object of the same shape as its parent") {
		t.Errorf("the recursive Ship was not cut: %s", out)
	}
	// The plain wire is untouched, byte for byte: OpenAI's prompt cache depends on it.
	plain, _ := dialectSchema("", json.RawMessage(in), nil)
	if string(plain) != in {
		t.Error("the plain dialect changed the schema")
	}
}

func TestSchemaRefusal(t *testing.T) {
	body := `[{
  "error": {
    "code": 400,
    "message": "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[3].function_declarations[0].parameters': Cannot find field.",
    "status": "INVALID_ARGUMENT"
  }
}]`
	kw, i, ok := schemaRefusal(body)
	if !ok || kw != "additionalProperties" || i != 3 {
		t.Errorf("schemaRefusal = %q, %d, %v; want additionalProperties, 3", kw, i, ok)
	}
	if _, _, ok := schemaRefusal(`{"error":{"message":"model not found"}}`); ok {
		t.Error("a refusal that names no schema keyword was read as one")
	}
}

func TestMistralIDs(t *testing.T) {
	msgs := dialectMessages(models.DialectMistral, []goopenai.ChatCompletionMessage{
		{Role: "assistant", ToolCalls: []goopenai.ToolCall{{ID: "call_1_0"}, {ID: "aB3dE6gH9"}}},
		{Role: "tool", ToolCallID: "call_1_0"},
		{Role: "tool", ToolCallID: "aB3dE6gH9"},
	})
	a, b := msgs[0].ToolCalls[0].ID, msgs[0].ToolCalls[1].ID
	if !mistralID.MatchString(a) || b != "aB3dE6gH9" || msgs[1].ToolCallID != a || msgs[2].ToolCallID != b {
		t.Errorf("ids %q %q, answers %q %q", a, b, msgs[1].ToolCallID, msgs[2].ToolCallID)
	}
	if nineID("call_1_0") != a {
		t.Error("the same id mapped twice differently: the prompt's prefix would change")
	}
}
