package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/game"
)

// wireTools builds the tools as agent/openai's toWireTools does, so that the tests
// measure the bytes a request really carries.
func wireTools(t testing.TB, tools []game.Tool) []goopenai.Tool {
	t.Helper()
	out := make([]goopenai.Tool, 0, len(tools))
	for _, tool := range tools {
		params, err := tool.SchemaJSON()
		if err != nil {
			t.Fatalf("%s: schema: %v", tool.Name, err)
		}
		out = append(out, goopenai.Tool{
			Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{
				Name: tool.Name, Description: tool.Description, Parameters: params,
			},
		})
	}
	return out
}

// wireJSON is the "tools" array of a request carrying tools.
func wireJSON(t testing.TB, tools []game.Tool) []byte {
	t.Helper()
	b, err := json.Marshal(wireTools(t, tools))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// objectSchema is an object schema with the named string properties.
func objectSchema(props ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, p := range props {
		s.Properties[p] = &jsonschema.Schema{Type: "string", Description: "the " + p}
	}
	return s
}

// tool is a test tool; its description is padded to pad characters, to make it weigh.
func tool(name string, kind game.Kind, group, desc string, pad int, props ...string) game.Tool {
	if len(desc) < pad {
		desc += " " + strings.Repeat("x", pad-len(desc)-1)
	}
	return game.Tool{Name: name, Kind: kind, Group: group, Description: desc, Schema: objectSchema(props...)}
}

// bigCatalogue is n game tools of about 600 characters each in three groups (and
// some without one), plus the runner's own tools, as the runner would hand them over.
func bigCatalogue(n int) []game.Tool {
	tools := []game.Tool{
		tool("note", game.Note, "", "Write a note.", 0, "text"),
		tool("load_tools", game.Read, "", "Load the full definitions of tools from the index.", 0, "names"),
		tool("find_tools", game.Read, "", "Search the tool index.", 0, "query"),
	}
	groups := []string{"fleet", "systems", "contracts", ""}
	for i := range n {
		g := groups[i%len(groups)]
		tools = append(tools, tool(fmt.Sprintf("op_%03d", i), game.Kind(i%2), g,
			fmt.Sprintf("Operation %d. Does thing number %d to the %s.", i, i, g), 500, "itemSymbol", fmt.Sprintf("arg%d", i)))
	}
	return tools
}

// runnerOptions are the options the runner passes for bigCatalogue.
func runnerOptions(budget int) Options {
	return Options{
		Budget:           budget,
		Always:           []string{"note", "load_tools", "find_tools"},
		OnlyWhenDeferred: []string{"load_tools", "find_tools"},
	}
}

// names are the tools' names, in order.
func names(tools []game.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

func mustNew(t testing.TB, tools []game.Tool, o Options) *Set {
	t.Helper()
	s, err := New(tools, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}
