package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// testKey is the key the tests' brains send; no error may ever show it.
const testKey = "sk-ant-api03-TESTKEY-do-not-print-0123456789"

// script starts a server for the cassette JSON and returns it with a Claude brain
// pointed at its Messages API route. Backoff waits are recorded, not slept.
func script(t testing.TB, cassette string, mod func(*anthropic.Config)) (*llmtest.Server, *anthropic.Brain, *braintest.Waits) {
	return kind.Brain(t, cassette, mod)
}

// kind is this package's brain for braintest: Claude on the server's Messages API route.
var kind = braintest.Kind[anthropic.Config, *anthropic.Brain]{
	Config: func(srv *llmtest.Server) anthropic.Config {
		cfg := llmtest.AnthropicConfig(srv)
		cfg.APIKey, cfg.Model, cfg.MaxRetries, cfg.Timeout = testKey, "claude-test", 2, 5*time.Second
		return cfg
	},
	Open:     anthropic.New,
	SetSleep: anthropic.SetSleep,
	Settings: func(c *anthropic.Config) (*bool, *time.Duration, *int) { return &c.Stream, &c.Timeout, &c.MaxRetries },
}

// longSystem is a system prompt over the 1,024 tokens a prefix needs to be cached.
var longSystem = "You are playing a space trading game.\n\n" + strings.Repeat("Keep your ships busy and your notes current. ", 120)

func request(t testing.TB) brain.Request {
	return brain.Request{
		Messages: []brain.Message{
			{Role: brain.RoleSystem, Content: longSystem},
			{Role: brain.RoleUser, Content: "## Your notes\n\n(none)"},
			{Role: brain.RoleUser, Content: "Step 1. The ship COPLAY-1 is docked at X1-A1."},
		},
		Tools: braintest.Tools(t),
	}
}

// wireRequest is what a test reads of a Messages API request body.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	System    []struct {
		Text         string          `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools       []json.RawMessage `json:"tools"`
	Thinking    json.RawMessage   `json:"thinking"`
	Temperature *float64          `json:"temperature"`
}

func decode(t testing.TB, body []byte) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("a request body is not a Messages API request: %v\n%s", err, body)
	}
	return r
}

// breakpoints counts the cache_control markers of a request body.
func breakpoints(body []byte) int {
	return strings.Count(string(body), `"cache_control"`)
}
