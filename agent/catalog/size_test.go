package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/spacetraders"
)

// WireSize is exactly what go-openai puts on the wire for a tool, including the
// awkward cases: no description, no schema, characters encoding/json escapes.
func TestWireSizeEqualsGoOpenAI(t *testing.T) {
	tools := []game.Tool{
		{Name: "plain", Description: "Does a thing.", Schema: objectSchema("a", "b")},
		{Name: "no_description", Schema: objectSchema("x")},
		{Name: "no_schema", Description: "Takes nothing."},
		{Name: "escapes", Description: "a < b && c > d, \"quoted\" \\ back\nslash\ttab \u2028 sep, café, 日本, \x01",
			Schema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"html": {Type: "string", Description: "<b>&amp;</b>", Enum: []any{"a<b", "é"}}}}},
		{Name: "bad_utf8", Description: "broken \xff byte"},
	}
	tools = append(tools, spacetraders.Catalog()...)
	for _, tl := range tools {
		b, err := json.Marshal(wireTools(t, []game.Tool{tl})[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := WireSize(tl); got != len(b) {
			t.Errorf("WireSize(%s) = %d, go-openai sends %d: %s", tl.Name, got, len(b), b)
		}
	}
	// The key order go-openai uses, which the doc comment states.
	b, _ := json.Marshal(wireTools(t, tools[:1])[0])
	if !strings.HasPrefix(string(b), `{"function":{"name":"plain","description":`) || !strings.HasSuffix(string(b), `},"type":"function"}`) {
		t.Errorf("go-openai's tool JSON changed shape: %s", b)
	}

	if got, want := Size(tools), len(wireJSON(t, tools)); got != want {
		t.Errorf("Size = %d, want %d", got, want)
	}
	if got, want := Size(tools[:1]), len(wireJSON(t, tools[:1])); got != want {
		t.Errorf("Size of one = %d, want %d", got, want)
	}
	// No tools: go-openai leaves "tools" out of the request altogether.
	req, _ := json.Marshal(goopenai.ChatCompletionRequest{Model: "m"})
	if strings.Contains(string(req), `"tools"`) || Size(nil) != 0 {
		t.Errorf("Size(nil) = %d; request without tools: %s", Size(nil), req)
	}
}
