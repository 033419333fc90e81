package braintest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/coplayhq/coplay/agent/brain"
)

// ToolChoiceNone checks what every model brain does with the person's question
// (brain.Request.ToolChoice none): the same tools as the request before it, so that the
// provider's cache serves the prefix, and the wire's tool_choice as want says (`"none"`
// on the OpenAI wire, `{"type":"none"}` on Anthropic's); none on an ordinary request.
func ToolChoiceNone(t *testing.T, open Opener, req brain.Request, want string) {
	t.Helper()
	srv, b, _ := open(t, `{"steps": [{"text": "Orbiting."}, {"text": "Because the market is there."}]}`, nil)
	if _, err := b.Next(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	req.ToolChoice = brain.ToolChoiceNone
	reply, err := b.Next(context.Background(), req)
	if err != nil || reply.Text != "Because the market is there." {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	raw := srv.RawRequests()
	var before, asked struct {
		Tools      json.RawMessage `json:"tools"`
		ToolChoice json.RawMessage `json:"tool_choice"`
	}
	if err := json.Unmarshal(raw[0], &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw[1], &asked); err != nil {
		t.Fatal(err)
	}
	if string(asked.ToolChoice) != want || before.ToolChoice != nil {
		t.Errorf("tool_choice: %s, want %s; before %s, want none", asked.ToolChoice, want, before.ToolChoice)
	}
	if string(asked.Tools) != string(before.Tools) || len(asked.Tools) == 0 {
		t.Errorf("the tools changed for the question")
	}
}
