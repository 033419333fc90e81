package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// render is the JSON of a conversation's messages, as sent.
func render(t *testing.T, c conversation) string {
	t.Helper()
	b, err := json.Marshal(c.params(nil))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConversationAlternatesAndPairs(t *testing.T) {
	call := func(id string) brain.ToolCall {
		return brain.ToolCall{ID: id, Tool: "look", Args: json.RawMessage(`{"at": "me"}`)}
	}
	for _, tt := range []struct {
		name string
		msgs []brain.Message
		want string
	}{
		{"users merged, system apart", []brain.Message{
			{Role: brain.RoleSystem, Content: "rules"}, {Role: brain.RoleUser, Content: "notes"}, {Role: brain.RoleUser, Content: "world"},
		}, `[{"content":[{"text":"notes","type":"text"},{"text":"world","cache_control":{"type":"ephemeral"},"type":"text"}],"role":"user"}]`},
		{"results first, then the next input, in one user turn", []brain.Message{
			{Role: brain.RoleUser, Content: "go"},
			{Role: brain.RoleAssistant, Content: "Looking twice.", ToolCalls: []brain.ToolCall{call("a"), call("b")}},
			{Role: brain.RoleTool, ToolCallID: "a", Content: "A"}, {Role: brain.RoleTool, ToolCallID: "b", Content: ""},
			{Role: brain.RoleUser, Content: "step 2"},
		}, `[{"content":[{"text":"go","type":"text"}],"role":"user"},` +
			`{"content":[{"text":"Looking twice.","type":"text"},{"id":"a","input":{"at":"me"},"name":"look","type":"tool_use"},{"id":"b","input":{"at":"me"},"name":"look","cache_control":{"type":"ephemeral"},"type":"tool_use"}],"role":"assistant"},` +
			`{"content":[{"tool_use_id":"a","content":[{"text":"A","type":"text"}],"type":"tool_result"},{"tool_use_id":"b","content":[{"text":"(no output)","type":"text"}],"type":"tool_result"},{"text":"step 2","cache_control":{"type":"ephemeral"},"type":"text"}],"role":"user"}]`},
		{"history starting with the model, an orphan result, an unanswered call", []brain.Message{
			{Role: brain.RoleAssistant, ToolCalls: []brain.ToolCall{call("x.1")}},
			{Role: brain.RoleTool, ToolCallID: "gone", Content: "old"},
			{Role: brain.RoleUser, Content: "now"},
		}, `[{"content":[{"text":"(earlier steps left out)","type":"text"}],"role":"user"},` +
			`{"content":[{"id":"x_1","input":{"at":"me"},"name":"look","cache_control":{"type":"ephemeral"},"type":"tool_use"}],"role":"assistant"},` +
			`{"content":[{"tool_use_id":"x_1","is_error":true,"content":[{"text":"(no result: the call did not run)","type":"text"}],"type":"tool_result"},{"text":"Result of an earlier call gone: old","type":"text"},{"text":"now","cache_control":{"type":"ephemeral"},"type":"text"}],"role":"user"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(t, toConversation(tt.msgs, false)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestToolInputKeptOrReplaced(t *testing.T) {
	for in, want := range map[string]string{
		` {"a": 1} `: `{"a": 1}`,
		`[1]`:        `{}`,
		`{"a":`:      `{}`,
		``:           `{}`,
	} {
		if got := string(toolInput(json.RawMessage(in))); got != want {
			t.Errorf("toolInput(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenderingIsStable: the same messages render to the same bytes, and a request that
// appends to another starts with the other's bytes up to its newest message: what the
// prompt cache reads.
func TestRenderingIsStable(t *testing.T) {
	msgs := []brain.Message{
		{Role: brain.RoleSystem, Content: "rules"}, {Role: brain.RoleUser, Content: "step 1"},
		{Role: brain.RoleAssistant, Content: "ok", ToolCalls: []brain.ToolCall{{ID: "a", Tool: "look", Args: json.RawMessage(`{}`)}}},
		{Role: brain.RoleTool, ToolCallID: "a", Content: "seen"}, {Role: brain.RoleUser, Content: "step 2"},
	}
	a, b := render(t, toConversation(msgs, false)), render(t, toConversation(msgs, false))
	if a != b {
		t.Fatal("two renderings differ")
	}
	longer := append(append([]brain.Message(nil), msgs...),
		brain.Message{Role: brain.RoleAssistant, Content: "again", ToolCalls: []brain.ToolCall{{ID: "b", Tool: "look", Args: json.RawMessage(`{}`)}}},
		brain.Message{Role: brain.RoleTool, ToolCallID: "b", Content: "seen"}, brain.Message{Role: brain.RoleUser, Content: "step 3"})
	c := render(t, toConversation(longer, false))
	// Without the breakpoints (they move), the shorter prompt is a prefix of the longer.
	strip := func(s string) string { return strings.ReplaceAll(s, `,"cache_control":{"type":"ephemeral"}`, "") }
	if short := strings.TrimSuffix(strip(a), "]"); !strings.HasPrefix(strip(c), short) {
		t.Errorf("the longer prompt does not start with the shorter:\n%s\n%s", strip(a), strip(c))
	}
}

func TestWireTools(t *testing.T) {
	b, err := WireTools([]game.Tool{{Name: "look", Description: "Look."}, {Name: "wait"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"input_schema":{"type":"object","properties":{}},"name":"look","description":"Look."},` +
		`{"input_schema":{"type":"object","properties":{}},"name":"wait","cache_control":{"type":"ephemeral"}}]`
	if string(b) != want {
		t.Errorf("WireTools = %s\nwant %s", b, want)
	}
}
