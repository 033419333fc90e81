package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/llmtest"
	"github.com/coplayhq/coplay/agent/openai"
)

// script starts a server for the cassette JSON and returns it with a brain pointed at
// it. Backoff waits are recorded, not slept, unless realSleep.
func script(t testing.TB, cassette string, mod func(*openai.Config)) (*llmtest.Server, *openai.Brain, *braintest.Waits) {
	return kind.Brain(t, cassette, mod)
}

// kind is this package's brain for braintest.
var kind = braintest.Kind[openai.Config, *openai.Brain]{
	Config: func(srv *llmtest.Server) openai.Config {
		return openai.Config{BaseURL: srv.URL(), Model: "test-model", Stream: true, MaxRetries: 2, Timeout: 5 * time.Second}
	},
	Open:     openai.New,
	SetSleep: openai.SetSleep,
	Settings: func(c *openai.Config) (*bool, *time.Duration, *int) { return &c.Stream, &c.Timeout, &c.MaxRetries },
}

func request(t testing.TB) brain.Request {
	return brain.Request{
		Messages: []brain.Message{
			{Role: brain.RoleSystem, Content: "You play SpaceTraders."},
			{Role: brain.RoleUser, Content: "Start playing."},
		},
		Tools: braintest.Tools(t),
	}
}

const twoCalls = `{"steps": [{"text": "Orbiting first, then heading to the asteroid.",
  "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}},
            {"tool": "navigate_ship", "args": {"shipSymbol": "COPLAY-1", "waypointSymbol": "X1-A1-B7"}}]}]}`

func TestStreamTextAndCalls(t *testing.T) {
	srv, b, _ := script(t, twoCalls, nil)
	req := request(t)
	var deltas []string
	req.OnDelta = func(s string) { deltas = append(deltas, s) }
	reply, err := b.Next(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Orbiting first, then heading to the asteroid."
	if reply.Text != want {
		t.Errorf("text = %q, want %q", reply.Text, want)
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != want {
		t.Errorf("deltas = %q: want several that join to the text", deltas)
	}
	wantCalls := []brain.ToolCall{
		{ID: "call_0_0", Tool: "orbit_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)},
		{ID: "call_0_1", Tool: "navigate_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-A1-B7"}`)},
	}
	checkCalls(t, reply.Calls, wantCalls)
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || r.StreamOptions == nil || !r.StreamOptions.IncludeUsage {
		t.Errorf("request stream=%v stream_options=%v: want a stream asking for usage", r.Stream, r.StreamOptions)
	}
	if len(r.Tools) != 2 || r.Tools[0].Function.Name != "orbit_ship" {
		t.Fatalf("tools sent = %+v", r.Tools)
	}
	params, _ := json.Marshal(r.Tools[0].Function.Parameters)
	if !strings.Contains(string(params), `"shipSymbol"`) {
		t.Errorf("orbit_ship parameters = %s: want the schema", params)
	}
	params, _ = json.Marshal(r.Tools[1].Function.Parameters)
	if string(params) != `{"properties":{},"type":"object"}` {
		t.Errorf("observe_game (no schema) parameters = %s: want an empty object schema", params)
	}
	if reply.Usage.PromptTokens == 0 || reply.Usage.CompletionTokens == 0 {
		t.Errorf("usage = %+v: want the server's estimate", reply.Usage)
	}
}

func TestPlainRequest(t *testing.T) {
	srv, b, _ := script(t, twoCalls, func(c *openai.Config) { c.Stream = false })
	req := request(t)
	req.OnDelta = func(string) { t.Error("OnDelta called without streaming") }
	reply, err := b.Next(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Orbiting first, then heading to the asteroid." || len(reply.Calls) != 2 {
		t.Fatalf("reply = %+v", reply)
	}
	checkCalls(t, reply.Calls[1:], []brain.ToolCall{{ID: "call_0_1", Tool: "navigate_ship",
		Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-A1-B7"}`)}})
	if srv.Requests()[0].Stream {
		t.Error("request asked for a stream")
	}
}

func checkCalls(t *testing.T, got, want []brain.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("calls = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Tool != want[i].Tool || string(got[i].Args) != string(want[i].Args) {
			t.Errorf("call %d = {%s %s %s}, want {%s %s %s}", i, got[i].ID, got[i].Tool, got[i].Args, want[i].ID, want[i].Tool, want[i].Args)
		}
	}
}

func fmtV(v any) string  { return fmt.Sprintf("%v %+v %s", v, v, v) }
func fmtGo(v any) string { return fmt.Sprintf("%#v", v) }

// A question from the person keeps the tools and sets tool_choice none.
func TestToolChoiceNoneKeepsTheTools(t *testing.T) {
	braintest.ToolChoiceNone(t, kind.Opener(), request(t), `"none"`)
}
