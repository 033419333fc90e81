package spacetraders

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// openAITools renders tools the way they are sent to a model: the OpenAI "tools" array
// of {"type":"function","function":{name, description, parameters}}.
func openAITools(tools []map[string]any) int {
	b, err := json.Marshal(tools)
	if err != nil {
		panic(err)
	}
	return len(b)
}

func ourCatalog() []map[string]any {
	var out []map[string]any
	for _, t := range Catalog() {
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Schema}})
	}
	return out
}

// naiveCatalog is one tool per spec operation: its summary as the description and its
// path and query parameters plus its full request body schema (references expanded).
func naiveCatalog(doc *openapi3.T) []map[string]any {
	var out []map[string]any
	for _, op := range operations(doc) {
		props := map[string]any{}
		var required []string
		for _, p := range op.params {
			props[p.Value.Name] = p.Value.Schema.Value
			if p.Value.Required {
				required = append(required, p.Value.Name)
			}
		}
		if rb := op.op.RequestBody; rb != nil {
			if mt := rb.Value.Content.Get("application/json"); mt != nil {
				for name, p := range mt.Schema.Value.Properties {
					props[name] = p.Value
				}
				required = append(required, mt.Schema.Value.Required...)
			}
		}
		desc := op.op.Summary
		if op.op.Description != "" {
			desc += ". " + op.op.Description
		}
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": op.op.OperationID, "description": desc,
			"parameters": map[string]any{"type": "object", "properties": props, "required": required}}})
	}
	return out
}

// TestCatalogSize reports the size of the catalogue sent to a model next to the naive
// one, and keeps ours well below it.
func TestCatalogSize(t *testing.T) {
	ours := openAITools(ourCatalog())
	naive := openAITools(naiveCatalog(loadSpec(t)))
	t.Logf("catalogue sent to a model: ours %d tools, %d chars ≈ %d tokens; naive one-tool-per-operation %d chars ≈ %d tokens",
		len(Catalog()), ours, ours/4, naive, naive/4)
	if ours*3 > naive {
		t.Errorf("our catalogue (%d chars) should be well under a third of the naive one (%d chars)", ours, naive)
	}
	if ours > 12000 {
		t.Errorf("our catalogue grew to %d chars (≈%d tokens); it is sent every step", ours, ours/4)
	}
}

func BenchmarkCatalogJSON(b *testing.B) {
	var n int
	for b.Loop() {
		n = openAITools(ourCatalog())
	}
	b.ReportMetric(float64(n), "chars")
	b.ReportMetric(float64(n)/4, "tokens")
}
