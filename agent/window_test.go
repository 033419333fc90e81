package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/game/spacetraders"
	"github.com/coplayhq/coplay/game/universe"
)

// windowTokens estimates the tokens of a request as a cautious tokenizer would: three
// characters of its tools-then-messages JSON a token (JSON and symbols like X1-DF55-A2
// tokenize densely; English prose is nearer four).
func windowTokens(prompt []byte) int { return (len(prompt) + 2) / 3 }

// TestSmallWindowFits plays 50 steps of the docking script on the offline universe with
// a model whose window is 8,192 tokens: no request, with room for the answer, is over the
// window, and the model still has the tools to play (observe, orbit, dock).
func TestSmallWindowFits(t *testing.T) {
	const window, steps = 8192, 50
	off, err := spacetraders.StartOffline(universe.Config{Seed: 1}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	srv := llmtest.NewServer(dockingCassette(7))
	defer srv.Close()
	brain, err := openai.New(llmtest.BrainConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	_, sess := createSession(t, filepath.Join(t.TempDir(), "coplay.db"), "small", "universe", "scripted")
	r, err := agent.New(agent.Config{Game: off.Game, Brain: brain, Session: sess, ApproveAll: true, KeepPlaying: true,
		MaxSteps: steps, QuietPause: 10 * time.Millisecond, ContextWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var events []agent.Event
	runToEnd(t, ctx, r, func(ev agent.Event) { events = append(events, ev) })
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
