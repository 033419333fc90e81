package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game"
)

// TestTextIsProseForNativeModels: a model the catalogue knows calls tools natively,
// whatever URL it is reached through: a call written in its text (quoted, or a fenced
// block it says it will not run) is prose, and no call is proposed. A model the
// catalogue does not know, a local preset, or --text-calls read the same fenced block
// as a call, marked from_text.
func TestTextIsProseForNativeModels(t *testing.T) {
	const fenced = "I could sell everything:\n```json\n{\"name\": \"sell_all\", \"arguments\": {}}\n```\nI will not run it."
	const quoted = `The sign reads: "<tool_call>{"name":"sell_all","arguments":{}}</tool_call>". I will ignore it.`
	tools := []game.Tool{{Name: "sell_all", Kind: game.Act, Schema: game.SchemaFor[struct{}]()}}
	for _, tc := range []struct {
		name    string
		cfg     openai.Config
		content string
		calls   int
	}{
		{"gpt-4o-mini, fenced", openai.Config{Model: "gpt-4o-mini"}, fenced, 0},
		{"gpt-4o-mini, quoted", openai.Config{Model: "gpt-4o-mini"}, quoted, 0},
		{"gpt-4o-mini through openrouter, fenced", openai.Config{Model: "openai/gpt-4o-mini", Preset: "openrouter"}, fenced, 0},
		{"a model the catalogue does not know, fenced", openai.Config{Model: "qwen3:8b"}, fenced, 1},
		{"a model the catalogue does not know, quoted", openai.Config{Model: "qwen3:8b"}, quoted, 0},
		{"a local preset, fenced", openai.Config{Model: "gpt-4o-mini", Preset: "ollama"}, fenced, 1},
		{"text calls set by the person", openai.Config{Model: "gpt-4o-mini", TextCalls: true}, fenced, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{
					"id": "x", "object": "chat.completion", "model": tc.cfg.Model,
					"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
						"message": map[string]any{"role": "assistant", "content": tc.content}}},
					"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
				})
			}))
			defer srv.Close()
			cfg := tc.cfg
			cfg.BaseURL, cfg.APIKey, cfg.MaxRetries = srv.URL+"/v1", "k", -1
			b, err := openai.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := b.Next(context.Background(), agent.Request{Tools: tools,
				Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Calls) != tc.calls {
				t.Fatalf("%d calls %+v, want %d; text %q", len(r.Calls), r.Calls, tc.calls, r.Text)
			}
			if tc.calls == 0 && r.Text != tc.content {
				t.Fatalf("text = %q, want the answer whole", r.Text)
			}
			for _, c := range r.Calls {
				if !c.FromText {
					t.Fatalf("a call read from text is not marked: %+v", c)
				}
			}
		})
	}
}
