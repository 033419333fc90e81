package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// claudeBrain serves cassette c on llmtest's Messages API route and returns a Claude
// brain for it: these tests go through Anthropic's wire and the official SDK.
func claudeBrain(t testing.TB, c *llmtest.Cassette, set func(*anthropic.Config)) (*anthropic.Brain, *llmtest.Server) {
	t.Helper()
	srv := braintest.ServeCassette(t, c)
	return claudeKind.On(t, srv, set), srv
}

// TestClaudeToolUseThroughTheGate: a tool_use block from Claude is validated, waits for
// the person's decision, runs once approved, and its result goes back as a tool_result
// for the same id.
func TestClaudeToolUseThroughTheGate(t *testing.T) {
	t.Parallel()
	c, err := llmtest.Parse([]byte(`{"steps": [
		{"text": "North, and a look.", "calls": [{"tool": "move", "args": {"direction": "N"}}, {"tool": "look", "args": {}}]},
		{"text": "Done."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	brain, srv := claudeBrain(t, c, nil)
	g := &gridGame{}
	h := startWith(t, g, brain, nil)
	move := h.proposed("move")
	if !move.NeedsOK || len(move.Problems) != 0 || !strings.HasPrefix(move.ID, "toolu_") {
		t.Fatalf("move = %+v: want a valid call waiting for the person, with Claude's id", move)
	}
	if got := strings.Join(g.callLog(), "|"); got != "" {
		t.Fatalf("the game ran %s before the decision", got)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: move.ID, Decision: agent.Approve})
	h.next("the model's prose", func(e agent.Event) bool { return e.Type == agent.EventText && e.Text == "Done." })
	if got := strings.Join(g.callLog(), "|"); got != `move {"direction":"N"}|look {}` {
		t.Errorf("game calls = %s", got)
	}
	raw := srv.RawRequests()
	if len(raw) < 2 {
		t.Fatalf("requests = %d, want 2", len(raw))
	}
	var second struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw[1], &second); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range second.Messages {
		for _, b := range m.Content {
			found = found || (m.Role == "user" && b.Type == "tool_result" && b.ToolUseID == move.ID)
		}
	}
	if !found {
		t.Errorf("the second request has no tool_result for %s: %s", move.ID, raw[1])
	}
}

// claudeCacheRun plays steps steps of the docking script on the offline universe through
// a Claude brain, every call approved, and returns the usage events and the server.
func claudeCacheRun(t testing.TB, steps int) ([]agent.Usage, *llmtest.Server) {
	t.Helper()
	brain, srv := claudeBrain(t, dockingCassette(0), nil)
	var usages []agent.Usage
	var problems []string
	for _, ev := range playOffline(t, "claude", brain, steps, nil) {
		switch {
		case ev.Type == agent.EventUsage:
			usages = append(usages, *ev.Usage)
		case ev.Type == agent.EventError:
			problems = append(problems, ev.Text)
		}
	}
	if len(problems) > 0 {
		t.Fatalf("errors during play: %s", strings.Join(problems, "; "))
	}
	if len(usages) < steps {
		t.Fatalf("%d usage events, want %d", len(usages), steps)
	}
	return usages, srv
}

// TestClaudeReadsTheCacheFromTheSecondRequest: on the universe, every request carries 1
// to 4 breakpoints, and from the second on the usage shows tokens read from the cache.
func TestClaudeReadsTheCacheFromTheSecondRequest(t *testing.T) {
	t.Parallel()
	usages, srv := claudeCacheRun(t, 12)
	for i, body := range srv.RawRequests() {
		if n := strings.Count(string(body), `"cache_control"`); n < 1 || n > 4 {
			t.Errorf("request %d carries %d cache_control breakpoints, want 1 to 4", i+1, n)
		}
	}
	if u := usages[0]; u.CachedTokens != 0 || u.CacheWriteTokens == 0 {
		t.Errorf("request 1: %d cached, %d written: want a write", u.CachedTokens, u.CacheWriteTokens)
	}
	for i, u := range usages[1:] {
		if u.CachedTokens == 0 || u.CachedTokens > u.PromptTokens {
			t.Errorf("request %d: %d of %d prompt tokens cached, want some", i+2, u.CachedTokens, u.PromptTokens)
		}
	}
}

// cacheShare is the share of prompt tokens read from the cache, over all requests.
func cacheShare(usages []agent.Usage) (read, write float64) {
	var prompt, cached, written int
	for _, u := range usages {
		prompt += u.PromptTokens
		cached += u.CachedTokens
		written += u.CacheWriteTokens
	}
	return float64(cached) / float64(prompt), float64(written) / float64(prompt)
}

// TestClaudeCacheShare: over 200 steps, at least 90% of the prompt tokens are read from
// Anthropic's cache (the figure BenchmarkPromptCacheClaude reports).
func TestClaudeCacheShare(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays 200 steps")
	}
	usages, _ := claudeCacheRun(t, 200)
	read, write := cacheShare(usages)
	t.Logf("over 200 requests: %.3f of prompt tokens read from the cache, %.3f written to it", read, write)
	if read < 0.9 {
		t.Errorf("cache-read share %.3f, want at least 0.9", read)
	}
}

// BenchmarkPromptCacheClaude prints the cache figures of a 200-step run through the
// Claude brain: go test -run '^$' -bench PromptCache ./agent/
func BenchmarkPromptCacheClaude(b *testing.B) {
	for b.Loop() {
		usages, _ := claudeCacheRun(b, 200)
		read, write := cacheShare(usages)
		var prompt int
		for _, u := range usages {
			prompt += u.PromptTokens
		}
		b.ReportMetric(read, "cache_read_share")
		b.ReportMetric(write, "cache_write_share")
		b.ReportMetric(float64(prompt)/float64(len(usages)), "prompt_tokens/req")
	}
}
