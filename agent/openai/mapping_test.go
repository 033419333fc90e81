package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/openai"
)

// The history a runner sends after a veto must reach the model as OpenAI expects it:
// the assistant's calls with their ids and raw arguments, then one tool message per id.
func TestHistoryReachesTheModel(t *testing.T) {
	srv, b, _ := script(t, `{"steps": [{"text": "Understood, not navigating."}]}`, nil)
	req := request(t)
	req.Messages = append(req.Messages,
		brain.Message{Role: brain.RoleAssistant, Content: "Orbit, then go.", ToolCalls: []brain.ToolCall{
			{ID: "call_0_0", Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)},
			{ID: "call_0_1", Tool: "navigate_ship", Args: json.RawMessage(`{"shipSymbol": "COPL`)},
		}},
		brain.Message{Role: brain.RoleTool, ToolCallID: "call_0_0", Content: `{"nav":{"status":"IN_ORBIT"}}`},
		brain.Message{Role: brain.RoleTool, ToolCallID: "call_0_1", Content: "Vetoed by the player: the contract pays more. Do not repeat it unchanged."},
	)
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	if len(msgs) != 5 {
		t.Fatalf("messages = %+v", msgs)
	}
	a := msgs[2]
	if a.Role != "assistant" || len(a.ToolCalls) != 2 || a.ToolCalls[1].ID != "call_0_1" ||
		a.ToolCalls[1].Type != "function" || a.ToolCalls[1].Function.Arguments != `{"shipSymbol": "COPL` {
		t.Errorf("assistant message = %+v", a)
	}
	if m := msgs[4]; m.Role != "tool" || m.ToolCallID != "call_0_1" || !strings.Contains(m.Content, "the contract pays more") {
		t.Errorf("veto message = %+v", m)
	}
}

func TestUnansweredCallIsRefusedLikeOpenAI(t *testing.T) {
	_, b, _ := script(t, `{"steps": [{"text": "never"}]}`, nil)
	req := request(t)
	req.Messages = append(req.Messages, brain.Message{Role: brain.RoleAssistant, ToolCalls: []brain.ToolCall{{ID: "x", Tool: "orbit_ship", Args: json.RawMessage(`{}`)}}})
	_, err := b.Next(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "did not have response messages: x") {
		t.Fatalf("err = %v, want OpenAI's refusal of an unanswered call", err)
	}
}

func TestUsageAndCost(t *testing.T) {
	_, b, _ := script(t, `{"steps": [{"text": "ok", "usage": {"prompt_tokens": 1200, "completion_tokens": 40}}]}`,
		func(c *openai.Config) { c.PriceIn, c.PriceOut = 0.15, 0.60 })
	reply, err := b.Next(context.Background(), request(t))
	if err != nil {
		t.Fatal(err)
	}
	u := reply.Usage
	if u.PromptTokens != 1200 || u.CompletionTokens != 40 {
		t.Errorf("usage = %+v, want the server's", u)
	}
	if want := (1200*0.15 + 40*0.60) / 1e6; u.Cost < want*0.999 || u.Cost > want*1.001 {
		t.Errorf("cost = %g, want %g", u.Cost, want)
	}
}

// A server that does not know stream_options and gives no usage: the brain asks
// again without it and estimates the tokens.
func TestStreamOptionsRefused(t *testing.T) {
	var bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(body))
		if strings.Contains(string(body), "stream_options") {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error": {"message": "Unrecognized request argument supplied: stream_options", "type": "invalid_request_error"}}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + strings.Repeat("x", 40) + "\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	}))
	defer ts.Close()
	b, err := openai.New(openai.Config{BaseURL: ts.URL, Model: "m", Stream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		reply, err := b.Next(context.Background(), request(t))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if reply.Usage.CompletionTokens != 10 || reply.Usage.PromptTokens == 0 {
			t.Errorf("call %d: usage = %+v, want an estimate (40 chars = 10 tokens)", i, reply.Usage)
		}
	}
	if len(bodies) != 3 {
		t.Errorf("requests = %d, want 3: one refused, then two without stream_options", len(bodies))
	}
}
