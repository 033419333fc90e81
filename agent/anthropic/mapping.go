package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/game"
)

// The conversation arrives in the OpenAI shape (system, user, assistant with tool
// calls, one tool message per result). The Messages API wants the system prompt apart,
// user and assistant turns alternating, the results of an assistant's tool_use blocks
// as tool_result blocks at the head of the next user turn, and every tool_use answered
// there. The mapping is a pure function of the messages, so a message renders to the
// same bytes in every request that carries it: the prompt cache depends on that.

// wireMsg is a turn being built: its role and its blocks.
type wireMsg struct {
	assistant bool
	blocks    []sdk.ContentBlockParamUnion
	thinking  bool // an assistant turn that carries its sealed thinking
}

// conversation is a request's prompt in the Messages API's shape.
type conversation struct {
	system []sdk.TextBlockParam
	msgs   []wireMsg
	// thinking says this request may ask for thinking: off when the last assistant
	// turn has tool_use blocks but no thinking to send back (a resumed session), which
	// the API refuses with thinking on.
	thinking bool
}

// toConversation maps msgs. withThinking asks for the assistant turns' sealed thinking
// to be sent back (thinking is on for the session).
func toConversation(msgs []brain.Message, withThinking bool) conversation {
	var c conversation
	for _, m := range msgs {
		switch m.Role {
		case brain.RoleSystem:
			if strings.TrimSpace(m.Content) != "" {
				c.system = append(c.system, sdk.TextBlockParam{Text: m.Content})
			}
		case brain.RoleAssistant:
			c.addAssistant(m)
		case brain.RoleTool:
			content := m.Content
			if strings.TrimSpace(content) == "" {
				content = "(no output)"
			}
			c.addResult(sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
				ToolUseID: toolID(m.ToolCallID),
				Content:   []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: content}}},
			}})
		default: // user, and anything unknown read as the runner speaking
			if strings.TrimSpace(m.Content) == "" {
				continue // the API refuses empty text blocks
			}
			c.addUser(sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: m.Content}})
		}
	}
	c.repair()
	c.thinking = withThinking
	if last := c.lastAssistant(); withThinking && last != nil && hasToolUse(last) && !last.thinking {
		c.thinking = false
	}
	if !c.thinking {
		for i := range c.msgs {
			c.msgs[i].dropThinking()
		}
	}
	return c
}

// addAssistant starts an assistant turn, or adds to the one before (turns alternate).
func (c *conversation) addAssistant(m brain.Message) {
	var blocks []sdk.ContentBlockParamUnion
	sealed := false
	if m.Content != "" || len(m.ToolCalls) > 0 {
		// Thinking alone is not a turn worth sending: it is needed back only ahead of
		// the tool_use blocks it led to.
		for _, t := range m.Thinking {
			switch {
			case t.Redacted != "":
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{Data: t.Redacted}})
				sealed = true
			case t.Signature != "":
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{Thinking: t.Text, Signature: t.Signature}})
				sealed = true
			}
		}
	}
	if strings.TrimSpace(m.Content) != "" {
		blocks = append(blocks, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: m.Content}})
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
			ID: toolID(tc.ID), Name: tc.Tool, Input: toolInput(tc.Args),
		}})
	}
	if len(blocks) == 0 {
		return
	}
	if n := len(c.msgs); n > 0 && c.msgs[n-1].assistant {
		c.msgs[n-1].blocks = append(c.msgs[n-1].blocks, blocks...)
		return
	}
	c.msgs = append(c.msgs, wireMsg{assistant: true, blocks: blocks, thinking: sealed})
}

// addUser adds a block to the user turn at the end, starting one if needed.
func (c *conversation) addUser(b sdk.ContentBlockParamUnion) {
	if n := len(c.msgs); n > 0 && !c.msgs[n-1].assistant {
		c.msgs[n-1].blocks = append(c.msgs[n-1].blocks, b)
		return
	}
	c.msgs = append(c.msgs, wireMsg{blocks: []sdk.ContentBlockParamUnion{b}})
}

// addResult adds a tool_result to the user turn at the end, after the results already
// there and before any text: the API wants the results first.
func (c *conversation) addResult(b sdk.ContentBlockParamUnion) {
	n := len(c.msgs)
	if n == 0 || c.msgs[n-1].assistant {
		c.msgs = append(c.msgs, wireMsg{blocks: []sdk.ContentBlockParamUnion{b}})
		return
	}
	m := &c.msgs[n-1]
	at := 0
	for at < len(m.blocks) && m.blocks[at].OfToolResult != nil {
		at++
	}
	m.blocks = append(m.blocks[:at], append([]sdk.ContentBlockParamUnion{b}, m.blocks[at:]...)...)
}

// repair makes the conversation one the API accepts whatever history it came from (a
// shrunk prompt, a resumed session): it starts with a user turn, every tool_use is
// answered by a tool_result in the turn after it, and a result whose call is not in the
// turn before becomes plain text.
func (c *conversation) repair() {
	if len(c.msgs) == 0 || c.msgs[0].assistant {
		c.msgs = append([]wireMsg{{blocks: []sdk.ContentBlockParamUnion{{OfText: &sdk.TextBlockParam{Text: "(earlier steps left out)"}}}}}, c.msgs...)
	}
	for i := 0; i < len(c.msgs); i++ {
		m := &c.msgs[i]
		if m.assistant {
			continue
		}
		asked := map[string]bool{}
		var order []string
		if i > 0 {
			for _, b := range c.msgs[i-1].blocks {
				if u := b.OfToolUse; u != nil {
					asked[u.ID] = true
					order = append(order, u.ID)
				}
			}
		}
		var results, rest []sdk.ContentBlockParamUnion
		for _, b := range m.blocks {
			r := b.OfToolResult
			switch {
			case r == nil:
				rest = append(rest, b)
			case asked[r.ToolUseID]:
				delete(asked, r.ToolUseID)
				results = append(results, b)
			default:
				rest = append(rest, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{
					Text: "Result of an earlier call " + r.ToolUseID + ": " + resultText(r)}})
			}
		}
		for _, id := range order {
			if asked[id] {
				results = append(results, sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
					ToolUseID: id, IsError: param.NewOpt(true),
					Content: []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: "(no result: the call did not run)"}}},
				}})
			}
		}
		m.blocks = append(results, rest...)
	}
	// An assistant turn at the end with calls needs a turn to answer them.
	if n := len(c.msgs); n > 0 && c.msgs[n-1].assistant && hasToolUse(&c.msgs[n-1]) {
		c.msgs = append(c.msgs, wireMsg{})
		c.repairLast()
	}
}

// repairLast answers the calls of the assistant turn before the (empty) last user turn.
func (c *conversation) repairLast() {
	n := len(c.msgs)
	for _, b := range c.msgs[n-2].blocks {
		if u := b.OfToolUse; u != nil {
			c.msgs[n-1].blocks = append(c.msgs[n-1].blocks, sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
				ToolUseID: u.ID, IsError: param.NewOpt(true),
				Content: []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: "(no result: the call did not run)"}}},
			}})
		}
	}
}

// resultText is the text of a tool_result block.
func resultText(r *sdk.ToolResultBlockParam) string {
	var parts []string
	for _, c := range r.Content {
		if c.OfText != nil {
			parts = append(parts, c.OfText.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (c *conversation) lastAssistant() *wireMsg {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if c.msgs[i].assistant {
			return &c.msgs[i]
		}
	}
	return nil
}

func hasToolUse(m *wireMsg) bool {
	for _, b := range m.blocks {
		if b.OfToolUse != nil {
			return true
		}
	}
	return false
}

// dropThinking removes the thinking blocks of a turn: with thinking off the API has no
// use for them.
func (m *wireMsg) dropThinking() {
	kept := m.blocks[:0]
	for _, b := range m.blocks {
		if b.OfThinking == nil && b.OfRedactedThinking == nil {
			kept = append(kept, b)
		}
	}
	m.blocks = kept
	m.thinking = false
}

// cacheMark is Anthropic's prompt cache breakpoint (5-minute entries).
var cacheMark = sdk.NewCacheControlEphemeralParam()

// markLast puts a cache breakpoint on the last block of m that can carry one
// (thinking blocks cannot), and says whether it found one.
func (m *wireMsg) markLast() bool {
	for i := len(m.blocks) - 1; i >= 0; i-- {
		b := &m.blocks[i]
		switch {
		case b.OfText != nil:
			b.OfText.CacheControl = cacheMark
		case b.OfToolUse != nil:
			b.OfToolUse.CacheControl = cacheMark
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cacheMark
		default:
			continue
		}
		return true
	}
	return false
}

// params builds the request: the conversation with its cache breakpoints, and the
// tools. Breakpoints (at most the API's four): the last tool, the last system block (the
// prefix every request shares), the message before the newest and the newest. The
// newest one makes the next request, which appends to this one, read everything up to
// here from the cache; the one before keeps that true when the newest message has more
// blocks than the cache looks back over (20).
func (c conversation) params(tools []sdk.ToolUnionParam) []sdk.MessageParam {
	if n := len(tools); n > 0 && tools[n-1].OfTool != nil {
		tools[n-1].OfTool.CacheControl = cacheMark
	}
	if n := len(c.system); n > 0 {
		c.system[n-1].CacheControl = cacheMark
	}
	n := len(c.msgs)
	if n >= 2 {
		c.msgs[n-2].markLast()
	}
	if n >= 1 {
		c.msgs[n-1].markLast()
	}
	out := make([]sdk.MessageParam, 0, n)
	for _, m := range c.msgs {
		if m.assistant {
			out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: m.blocks}})
		} else {
			out = append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: m.blocks}})
		}
	}
	return out
}

// toWireTools maps the catalogue to tool definitions, each tool's JSON schema as its
// input_schema, sent as it is.
func toWireTools(tools []game.Tool) ([]sdk.ToolUnionParam, error) {
	out := make([]sdk.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		schema, err := t.SchemaJSON()
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool %s: schema: %w", t.Name, err)
		}
		if t.Schema != nil && t.Schema.Type != "object" {
			schema = json.RawMessage(game.EmptyObjectSchema)
		}
		tp := &sdk.ToolParam{
			Name:        t.Name,
			InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
		}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: tp})
	}
	return out, nil
}

// toolInput is a call's arguments as a tool_use input: the model's own JSON, kept as it
// sent it; the API takes only an object, so anything else (the runner replaces invalid
// JSON with {} already) goes as {}.
func toolInput(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return json.RawMessage(`{}`)
	}
	return trimmed
}

// toolID makes a call id one the API accepts (letters, digits, _ and -): ids from
// another brain or read from text may hold other characters. The same id always maps
// to the same string, so a call and its result still pair.
func toolID(id string) string {
	if id == "" {
		return "call"
	}
	ok := true
	for _, r := range id {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			ok = false
			break
		}
	}
	if ok {
		return id
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, id)
}

// WireTools returns the JSON of the tools array a Messages API request carries, byte
// for byte as it is sent, breakpoint included (for `coplay tools --as-model`).
func WireTools(tools []game.Tool) ([]byte, error) {
	wt, err := toWireTools(tools)
	if err != nil {
		return nil, err
	}
	conversation{}.params(wt)
	return json.Marshal(wt)
}
