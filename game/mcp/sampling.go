package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/coplayhq/coplay/game"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeUserRejected is the JSON-RPC error the MCP spec gives for a sampling request the
// user declined.
const codeUserRejected = -1

// sample serves a server's sampling/createMessage with the player's model, through the
// Host (game.Sample): the person approves it first (or the policy they chose does), the
// runner counts what it costs and caps it per server. Images and audio in the messages
// reach the model as one line each, since the runner's model takes text.
func (g *Game) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	p := req.Params
	sr := game.SampleRequest{Server: g.label(), System: p.SystemPrompt, MaxTokens: int(p.MaxTokens)}
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		sr.Messages = append(sr.Messages, game.SampleMessage{Role: string(m.Role), Text: contentText(m.Content)})
	}
	actx, host, done := g.hosts.forRequest(ctx)
	defer done()
	if host == nil {
		return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "no model to sample with here"}
	}
	res, err := host.Sample(actx, sr)
	switch {
	case errors.Is(err, game.ErrDeclined):
		return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "User rejected sampling request: " + err.Error()}
	case err != nil:
		return nil, fmt.Errorf("sampling for MCP server %s: %w", g.name, err)
	}
	return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: res.Text}, Model: res.Model,
		Role: "assistant", StopReason: res.StopReason}, nil
}
