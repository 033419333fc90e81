package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/openai"
)

// OpenRouter caches Claude only where a request marks cache_control on a text part
// (openrouter.ai/docs, prompt caching): the system message and the newest message are
// marked, for anthropic/ models only; the cached tokens it reports are read.
func TestOpenRouterClaudeBreakpoints(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"gen-1","object":"chat.completion","created":1,"model":"anthropic/claude-sonnet-4.6","choices":[{"index":0,
			"message":{"role":"assistant","content":"Fine."},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":3000,"completion_tokens":2,"total_tokens":3002,"prompt_tokens_details":{"cached_tokens":2800}}}`)
	}))
	defer srv.Close()
	req := brain.Request{Messages: []brain.Message{
		{Role: brain.RoleSystem, Content: "You play the game."},
		{Role: brain.RoleUser, Content: "# Step 1\nthe world"},
		{Role: brain.RoleAssistant, Content: "Looking."},
		{Role: brain.RoleUser, Content: "# Step 2\nthe world again"},
	}}
	for _, model := range []string{"anthropic/claude-sonnet-4.6", "openai/gpt-4o-mini"} {
		b, err := openai.New(openai.Config{BaseURL: srv.URL, Model: model, Preset: "openrouter", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		reply, err := b.Next(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if reply.Usage.CachedTokens != 2800 {
			t.Errorf("%s: cached tokens %d, want 2800", model, reply.Usage.CachedTokens)
		}
		mu.Lock()
		body := bodies[len(bodies)-1]
		mu.Unlock()
		var got struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(body), `"cache_control":{"type":"ephemeral"}`)
		if !strings.HasPrefix(model, "anthropic/") {
			if n != 0 {
				t.Errorf("%s: %d breakpoints; only Claude needs them", model, n)
			}
			continue
		}
		if n != 2 || !strings.Contains(string(got.Messages[0].Content), "cache_control") || !strings.Contains(string(got.Messages[3].Content), "cache_control") {
			t.Errorf("%s: %d breakpoints in %s; want the system message and the newest marked", model, n, body)
		}
		if strings.Contains(string(got.Messages[1].Content), "cache_control") {
			t.Errorf("an older message was marked: %s", got.Messages[1].Content)
		}
	}
}
