package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/llmtest"
)

// The person's move and question through the real OpenAI wire, against the offline
// universe: each request repeats the one before byte for byte up to its closing bracket
// (the prompt is append-only, so the provider's cache serves it), the question goes
// with the same tools and tool_choice "none", and the request after the move carries
// its result as the person's, with no assistant message holding it.
func TestPersonsMoveAndQuestionKeepThePromptAppendOnly(t *testing.T) {
	ship := json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)
	c := &llmtest.Cassette{Name: "coplay", Model: "scripted", Steps: []llmtest.Step{
		{Text: "Into orbit.", Calls: []llmtest.Call{{Tool: "orbit_ship", Args: ship}}},
		{Text: "Done for now."},
		{Text: "Orbit comes first; then we fly.", Calls: []llmtest.Call{{Tool: "dock_ship", Args: ship}}},
		{Text: "Noted the drift."},
	}}
	brain, srv := openaiBrain(t, c, nil)
	off := startUniverse(t, nil)
	h := startGame(t, off.Game, &scriptBrain{}, nil, func(c *agent.Config) { c.Brain, c.ApproveAll = brain, true })
	h.next("idle", isState(agent.Idle))

	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"DRIFT"}`)})
	res := h.next("the move", isMove(agent.EventResult))
	if !res.Result.OK() || !strings.Contains(res.Result.Output, "is now DRIFT") {
		t.Fatalf("move result %+v", res.Result)
	}
	h.send(agent.Command{Cmd: agent.CmdAsk, Text: "why orbit first?"})
	h.next("the reply", is(agent.EventReply))
	h.send(agent.Command{Cmd: agent.CmdResume})
	h.next("the next answer", func(ev agent.Event) bool { return ev.Type == agent.EventText && ev.Text == "Noted the drift." })
	h.finish()

	raw := srv.RawRequests()
	if len(raw) != 4 {
		t.Fatalf("%d requests, want 4", len(raw))
	}
	for i := 1; i < len(raw); i++ {
		prev, cur := promptText(t, raw[i-1]), promptText(t, raw[i])
		if n := commonPrefix(prev, cur); n < len(prev)-1 {
			t.Errorf("request %d repeats %d of the %d bytes of request %d before its end: %q… then %q…",
				i+1, n, len(prev), i, tail(prev[:n], 80), head(cur[n:], 120))
		}
	}
	var asked, before struct {
		Tools      json.RawMessage `json:"tools"`
		ToolChoice string          `json:"tool_choice"`
	}
	if err := json.Unmarshal(raw[1], &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw[2], &asked); err != nil {
		t.Fatal(err)
	}
	if asked.ToolChoice != "none" || string(asked.Tools) != string(before.Tools) {
		t.Errorf("the question's request: tool_choice %q, same tools %v", asked.ToolChoice, string(asked.Tools) == string(before.Tools))
	}
	reqs := srv.Requests()
	question := reqs[2].Messages[len(reqs[2].Messages)-1].Content
	if !strings.Contains(question, "is now DRIFT") || !strings.Contains(question, "why orbit first?") {
		t.Errorf("the question's message does not carry the move and the question:\n%s", question)
	}
	for _, req := range reqs {
		for _, m := range req.Messages {
			for _, tc := range m.ToolCalls {
				if tc.Function.Name == "set_flight_mode" || tc.Function.Name == "dock_ship" {
					t.Errorf("an assistant message holds %s", tc.Function.Name)
				}
			}
		}
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }
func head(b []byte, n int) []byte { return b[:min(n, len(b))] }
