package openai

import (
	"encoding/json"
	"fmt"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/game"
)

// toWireMessages maps the conversation to the chat format. Assistant tool calls keep
// their ids and carry their arguments verbatim, valid JSON or not: the model must see
// exactly what it said, so that a "your arguments were not JSON" error makes sense.
func toWireMessages(msgs []brain.Message) []goopenai.ChatCompletionMessage {
	out := make([]goopenai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		w := goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case brain.RoleAssistant:
			for _, c := range m.ToolCalls {
				w.ToolCalls = append(w.ToolCalls, goopenai.ToolCall{
					ID:       c.ID,
					Type:     goopenai.ToolTypeFunction,
					Function: goopenai.FunctionCall{Name: c.Tool, Arguments: string(c.Args)},
				})
			}
		case brain.RoleTool:
			w.ToolCallID = m.ToolCallID
			// OpenAI refuses a tool message without content.
			if w.Content == "" {
				w.Content = "(no output)"
			}
		}
		out = append(out, w)
	}
	return out
}

// toWireTools maps the catalogue to function definitions, the schema as parameters in
// the server's dialect (dialect.go), without the keywords in strip.
func toWireTools(tools []game.Tool, d models.Dialect, strip []string) ([]goopenai.Tool, error) {
	out := make([]goopenai.Tool, 0, len(tools))
	for _, t := range tools {
		params, err := t.SchemaJSON()
		if err != nil {
			return nil, fmt.Errorf("openai: tool %s: schema: %w", t.Name, err)
		}
		params, err = dialectSchema(d, params, strip)
		if err != nil {
			return nil, fmt.Errorf("openai: tool %s: schema: %w", t.Name, err)
		}
		out = append(out, goopenai.Tool{
			Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out, nil
}

// toCall maps one finished wire call. Arguments are kept byte for byte; only an
// empty string becomes nil, since an empty json.RawMessage cannot be marshalled and
// would break whoever journals the call.
func toCall(id, name, args string) brain.ToolCall {
	c := brain.ToolCall{ID: id, Tool: name}
	if args != "" {
		c.Args = json.RawMessage(args)
	}
	return c
}

// promptChars counts the characters the model is shown, for estimating tokens.
func promptChars(req goopenai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	for _, t := range req.Tools {
		if t.Function != nil {
			n += len(t.Function.Name) + len(t.Function.Description)
			if raw, ok := t.Function.Parameters.(json.RawMessage); ok {
				n += len(raw)
			}
		}
	}
	return n
}

// estimateTokens is the usual rough rule: four characters a token, at least one

// WireTools returns the JSON of the tools array a chat-completions request carries for
// tools, byte for byte as it is sent (for `coplay tools --as-model`).
func WireTools(tools []game.Tool) ([]byte, error) { return WireToolsFor(tools, "") }

// WireToolsFor is WireTools for a server of dialect d (models.DialectGemini).
func WireToolsFor(tools []game.Tool, d models.Dialect) ([]byte, error) {
	wt, err := toWireTools(tools, d, nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(wt)
}
