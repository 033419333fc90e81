package agent_test

import (
	"encoding/json"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// windowTokens estimates the tokens of a request as a cautious tokenizer would: three
// characters of its tools-then-messages JSON a token (JSON and symbols like X1-DF55-A2
// tokenize densely; English prose is nearer four).
func windowTokens(prompt []byte) int { return (len(prompt) + 2) / 3 }

// TestSmallWindowFits plays 50 steps of the docking script on the offline universe with
// a model whose window is 8,192 tokens: no request, with room for the answer, is over the
// window, and the model still has the tools to play (observe, orbit, dock).
func TestSmallWindowFits(t *testing.T) {
	t.Parallel()
	const window, steps = 8192, 50
	brain, srv := openaiBrain(t, dockingCassette(7), nil)
	events := playOffline(t, "small", brain, steps, func(c *agent.Config) { c.ContextWindow = window })
	raw := srv.RawRequests()
	if len(raw) < steps {
		t.Fatalf("the model was asked %d times, want %d", len(raw), steps)
	}
	largest := 0
	for i, body := range raw {
		n := windowTokens(promptText(t, body))
		largest = max(largest, n)
		if n+1024 > window {
			t.Errorf("request %d is about %d tokens: with 1,024 for the answer it is over the window of %d", i+1, n, window)
		}
	}
	for _, name := range []string{"observe_game", "orbit_ship", "dock_ship"} {
		if !sentTool(raw[len(raw)-1], name) {
			t.Errorf("the last request does not carry %s", name)
		}
	}
	ran := 0
	for _, ev := range events {
		if ev.Type == agent.EventResult && ev.Result != nil && ev.Result.OK() {
			ran++
		}
	}
	if ran < steps/2 {
		t.Errorf("only %d calls ran in %d steps", ran, steps)
	}
	t.Logf("window %d: %d requests, the largest about %d tokens (%d chars/3); %d calls ran", window, len(raw), largest, largest*3, ran)
}

// sentTool reports whether a request body carries the tool name whole.
func sentTool(body []byte, name string) bool {
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}
