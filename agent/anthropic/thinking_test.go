package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain"
)

const thinkingSteps = `{"steps": [
	{"thinking": "The ship is docked; orbit first, then look.", "text": "Orbiting.", "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}}]},
	{"thinking": "In orbit now. Done for this turn.", "text": "In orbit."}]}`

// TestThinkingRoundTrip: with a budget, the request turns thinking on (no temperature,
// max_tokens above the budget); the signed thinking comes back as Reply.Thinking, and
// goes back unchanged on its assistant message in the tool loop, which the server
// checks against its signature.
func TestThinkingRoundTrip(t *testing.T) {
	for _, stream := range []bool{true, false} {
		temp := float32(0.2)
		srv, b, _ := script(t, thinkingSteps, func(c *anthropic.Config) {
			c.ThinkingBudget, c.Temperature, c.Stream = 2048, &temp, stream
		})
		req := request(t)
		var shown strings.Builder
		req.OnDelta = func(s string) { shown.WriteString(s) }
		reply, err := b.Next(context.Background(), req)
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if len(reply.Thinking) != 1 || reply.Thinking[0].Text != "The ship is docked; orbit first, then look." || reply.Thinking[0].Signature == "" {
			t.Fatalf("stream=%v: thinking = %+v, want the signed block", stream, reply.Thinking)
		}
		if reply.Text != "Orbiting." || strings.Contains(shown.String(), "docked") {
			t.Errorf("stream=%v: text %q, shown %q: thinking must stay out of the text", stream, reply.Text, shown.String())
		}
		if reply.Usage.ThinkingTokens == 0 || reply.Usage.ThinkingTokens > reply.Usage.CompletionTokens {
			t.Errorf("stream=%v: thinking tokens %d of %d completion tokens", stream, reply.Usage.ThinkingTokens, reply.Usage.CompletionTokens)
		}
		r := decode(t, srv.RawRequests()[0])
		var th struct {
			Type   string `json:"type"`
			Budget int    `json:"budget_tokens"`
		}
		if err := json.Unmarshal(r.Thinking, &th); err != nil || th.Type != "enabled" || th.Budget != 2048 {
			t.Errorf("stream=%v: thinking = %s, want enabled with 2048 tokens", stream, r.Thinking)
		}
		if r.Temperature != nil || r.MaxTokens <= 2048 {
			t.Errorf("stream=%v: temperature %v, max_tokens %d: want no temperature, more than the budget", stream, r.Temperature, r.MaxTokens)
		}

		// The tool loop goes on: the thinking goes back, first in its message.
		reply2, err := b.Next(context.Background(), followUp(t, req, reply, "Step 2. In orbit."))
		if err != nil {
			t.Fatalf("stream=%v: the request carrying the thinking back: %v", stream, err)
		}
		if reply2.Text != "In orbit." {
			t.Errorf("stream=%v: second reply %+v", stream, reply2)
		}
		r2 := decode(t, srv.RawRequests()[1])
		asst := r2.Messages[1]
		if asst.Role != "assistant" || !strings.Contains(string(asst.Content[0]), `"type":"thinking"`) {
			t.Errorf("stream=%v: the assistant turn does not start with its thinking: %s", stream, asst.Content)
		}
	}
}

func TestTamperedThinkingRefused(t *testing.T) {
	_, b, _ := script(t, thinkingSteps, func(c *anthropic.Config) { c.ThinkingBudget = 2048 })
	req := request(t)
	reply, err := b.Next(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	reply.Thinking[0].Text += " (edited)"
	_, err = b.Next(context.Background(), followUp(t, req, reply, "Step 2."))
	if !errors.Is(err, brain.ErrRejected) || !strings.Contains(err.Error(), "Invalid `signature`") {
		t.Fatalf("err = %v: the stub must check what comes back", err)
	}
}

// TestResumedToolLoopWithoutThinking: after a resume the last assistant turn's thinking
// is gone (it is not journaled). With thinking on, the API refuses a final assistant
// turn with tool_use that does not start with thinking, so that request goes without
// thinking; once the model ends a turn in prose, thinking is back.
func TestResumedToolLoopWithoutThinking(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"text": "Done for now."}, {"text": "Still here."}]}`, func(c *anthropic.Config) { c.ThinkingBudget = 2048 })
	req := followUp(t, request(t), brain.Reply{Text: "Orbit.", Calls: []brain.ToolCall{{ID: "toolu_old", Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)}}}, "Step 2.")
	reply, err := b.Next(context.Background(), req)
	if err != nil {
		t.Fatalf("a resumed tool loop: %v", err)
	}
	if r := decode(t, srv.RawRequests()[0]); r.Thinking != nil {
		t.Errorf("thinking = %s, want it left out for this request", r.Thinking)
	}
	req = followUp(t, req, reply, "Step 3.")
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if r := decode(t, srv.RawRequests()[1]); r.Thinking == nil {
		t.Error("thinking stayed off after a turn that ended in prose")
	}
}

func TestRedactedThinkingGoesBack(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"text": "ok"}]}`, func(c *anthropic.Config) { c.ThinkingBudget = 2048 })
	req := followUp(t, request(t), brain.Reply{
		Thinking: []brain.Thinking{{Redacted: "EmwKAhgBEgy3va3pzix/LafPsn4a"}},
		Calls:    []brain.ToolCall{{ID: "toolu_1", Tool: "observe_game", Args: json.RawMessage(`{}`)}},
	}, "Step 2.")
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := decode(t, srv.RawRequests()[0])
	if r.Thinking == nil || !strings.Contains(string(r.Messages[1].Content[0]), `{"data":"EmwKAhgBEgy3va3pzix/LafPsn4a","type":"redacted_thinking"}`) {
		t.Errorf("thinking %s, assistant turn %s: want the redacted block first, as it came", r.Thinking, r.Messages[1].Content)
	}
}

func TestThinkingOffDropsThinkingBlocks(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"text": "ok"}]}`, nil)
	req := followUp(t, request(t), brain.Reply{
		Thinking: []brain.Thinking{{Text: "hmm", Signature: "sig"}},
		Calls:    []brain.ToolCall{{ID: "toolu_1", Tool: "observe_game", Args: json.RawMessage(`{}`)}},
	}, "Step 2.")
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.RawRequests()[0]); strings.Contains(body, `"thinking"`) {
		t.Errorf("thinking sent with thinking off: %s", body)
	}
}
