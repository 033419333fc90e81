package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/coplayhq/coplay/game"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicit serves a server's elicitation/create: the question goes to the person through
// the Host of the call in flight (game.Ask), and the server gets the person's answer.
// Nobody to ask (no Host: `coplay tools`, a test) is a decline; a question withdrawn
// because the call was cut short, or that the runner could not put, is a cancel. The SDK
// checks the requested schema before and the content after (and fills in the schema's
// defaults), so what goes back is valid or an error the server reads.
func (g *Game) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	q := game.Question{Server: g.label(), Message: p.Message, URL: p.URL}
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: its requested schema cannot be read: %w", g.name, err)
		}
		q.Schema = raw
	}
	actx, host, done := g.hosts.forRequest(ctx)
	defer done()
	if host == nil {
		return &sdk.ElicitResult{Action: game.Decline}, nil
	}
	a, err := host.Ask(actx, q)
	if err != nil {
		return &sdk.ElicitResult{Action: game.Cancel}, nil
	}
	res := &sdk.ElicitResult{Action: a.Action}
	if a.Action == game.Accept && q.URL == "" {
		// What the answer leaves out takes the schema's default (SEP-1034).
		content, err := game.SchemaDefaults(q.Schema, a.Content)
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: the answer: %w", g.name, err)
		}
		if err := json.Unmarshal(content, &res.Content); err != nil {
			return nil, fmt.Errorf("mcp server %s: the answer is not a JSON object: %w", g.name, err)
		}
	}
	return res, nil
}
