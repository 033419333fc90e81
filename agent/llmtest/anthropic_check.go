package llmtest

// What the Messages API refuses about a request, checked as its documentation says, so a
// brain that sends what the real API would refuse fails here first.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// checkAnthropic refuses what the Messages API refuses about a request, in its words.
func checkAnthropic(req anthropicRequest, breakpoints int) error {
	if err := checkAnthropicFields(req, breakpoints); err != nil {
		return err
	}
	if err := checkAnthropicTools(req.Tools); err != nil {
		return err
	}
	lastAssistant, err := checkAnthropicTurns(req.Messages)
	if err != nil {
		return err
	}
	if req.Thinking != nil && req.Thinking.Type == "enabled" && lastAssistant >= 0 {
		return checkThinkingTurn(req.Messages[lastAssistant], lastAssistant)
	}
	return nil
}

// checkAnthropicFields checks the request's own fields: the required ones, the
// breakpoints, and the thinking settings.
func checkAnthropicFields(req anthropicRequest, breakpoints int) error {
	switch {
	case req.Model == "":
		return fmt.Errorf("model: Field required")
	case req.MaxTokens == nil:
		return fmt.Errorf("max_tokens: Field required")
	case len(req.Messages) == 0:
		return fmt.Errorf("messages: at least one message is required")
	case breakpoints > anthropicMaxBreakpoints:
		return fmt.Errorf("A maximum of %d blocks with cache_control may be provided. Found %d.", anthropicMaxBreakpoints, breakpoints)
	}
	if c := req.ToolChoice; c != nil {
		switch {
		case c.Type != "auto" && c.Type != "any" && c.Type != "tool" && c.Type != "none":
			return fmt.Errorf("tool_choice: Input tag '%s' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", c.Type)
		case c.Type == "tool" && c.Name == "":
			return fmt.Errorf("tool_choice.tool.name: Field required")
		case len(req.Tools) == 0 && c.Type != "none":
			return fmt.Errorf("tool_choice may only be specified while providing tools")
		case req.Thinking != nil && req.Thinking.Type == "enabled" && (c.Type == "any" || c.Type == "tool"):
			return fmt.Errorf("Thinking may not be enabled when tool_choice forces tool use.")
		}
	}
	if req.Thinking == nil || req.Thinking.Type != "enabled" {
		return nil
	}
	switch {
	case req.Thinking.BudgetTokens < 1024:
		return fmt.Errorf("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case *req.MaxTokens <= req.Thinking.BudgetTokens:
		return fmt.Errorf("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	case req.Temperature != nil && *req.Temperature != 1:
		return fmt.Errorf("`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility")
	}
	return nil
}

// checkAnthropicTools checks that every tool has a name and an object schema.
func checkAnthropicTools(tools []json.RawMessage) error {
	for i, t := range tools {
		var tool struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		}
		if err := json.Unmarshal(t, &tool); err != nil || tool.Name == "" {
			return fmt.Errorf("tools.%d.custom.name: Field required", i)
		}
		if tool.InputSchema["type"] != "object" {
			return fmt.Errorf("tools.%d.custom.input_schema.type: Input should be 'object'", i)
		}
	}
	return nil
}

// toolUsesUnanswered is the API's refusal of tool_use ids that message i left unanswered.
func toolUsesUnanswered(i int, asked []string) error {
	return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(asked, ", "))
}

// checkAnthropicTurns checks the conversation: it starts with the user, every message
// has content, and every tool_use is answered by a tool_result at the head of the next
// user message. It returns the index of the last assistant message (-1 for none).
func checkAnthropicTurns(msgs []anthropicMessage) (lastAssistant int, err error) {
	if msgs[0].Role != "user" {
		return -1, fmt.Errorf("messages.0.role: the first message must use the \"user\" role")
	}
	var asked []string // tool_use ids of the assistant turn before, not yet answered
	lastAssistant = -1
	for i, m := range msgs {
		blocks, _, err := m.blocks()
		if err != nil {
			return -1, fmt.Errorf("messages.%d.%v", i, err)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return -1, fmt.Errorf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if len(blocks) == 0 {
			return -1, fmt.Errorf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		if m.Role == "user" {
			if err := checkUserBlocks(i, blocks, asked); err != nil {
				return -1, err
			}
			asked = nil
			continue
		}
		if len(asked) > 0 {
			return -1, toolUsesUnanswered(i-1, asked)
		}
		lastAssistant = i
		if asked, err = checkAssistantBlocks(i, blocks); err != nil {
			return -1, err
		}
	}
	if len(asked) > 0 {
		return -1, toolUsesUnanswered(len(msgs)-1, asked)
	}
	return lastAssistant, nil
}

// checkUserBlocks checks user message i: tool results first, each answering one of
// asked (the calls of the assistant message before), all of them answered, then text.
func checkUserBlocks(i int, blocks []anthropicBlock, asked []string) error {
	open := map[string]bool{}
	for _, id := range asked {
		open[id] = true
	}
	seenText := false
	for j, b := range blocks {
		switch b.Type {
		case "tool_result":
			if !open[b.ToolUseID] {
				return fmt.Errorf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
			if seenText {
				return fmt.Errorf("messages.%d: `tool_result` blocks must come first in the content, before any other block", i)
			}
			delete(open, b.ToolUseID)
		case "text":
			seenText = true
			if err := checkText(i, j, b); err != nil {
				return err
			}
		default:
			return fmt.Errorf("messages.%d.content.%d.type: a user message cannot hold a %q block", i, j, b.Type)
		}
	}
	if len(open) > 0 {
		return toolUsesUnanswered(i-1, asked)
	}
	return nil
}

// checkText refuses a text block j of message i with nothing but whitespace.
func checkText(i, j int, b anthropicBlock) error {
	if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
		return fmt.Errorf("messages.%d.content.%d.text: text content blocks must contain non-whitespace text", i, j)
	}
	return nil
}

// checkAssistantBlocks checks assistant message i's blocks and returns the ids of its
// tool calls, which the next user message must answer.
func checkAssistantBlocks(i int, blocks []anthropicBlock) (asked []string, err error) {
	for j, b := range blocks {
		switch b.Type {
		case "text":
			if err := checkText(i, j, b); err != nil {
				return nil, err
			}
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return nil, fmt.Errorf("messages.%d.content.%d.tool_use: id and name are required", i, j)
			}
			if in := bytes.TrimSpace(b.Input); len(in) == 0 || in[0] != '{' {
				return nil, fmt.Errorf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
			}
			asked = append(asked, b.ID)
		case "thinking":
			if len(b.CacheControl) > 0 {
				return nil, fmt.Errorf("messages.%d.content.%d.thinking.cache_control: Extra inputs are not permitted", i, j)
			}
			if b.Signature != anthropicSignature(b.Thinking) {
				return nil, fmt.Errorf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
		case "redacted_thinking":
			if b.Data == "" {
				return nil, fmt.Errorf("messages.%d.content.%d.redacted_thinking.data: Field required", i, j)
			}
		default:
			return nil, fmt.Errorf("messages.%d.content.%d.type: an assistant message cannot hold a %q block", i, j, b.Type)
		}
	}
	return asked, nil
}

// checkThinkingTurn checks, with thinking on, that the last assistant message (index
// i) starts with a thinking block when it calls tools.
func checkThinkingTurn(m anthropicMessage, i int) error {
	blocks, _, _ := m.blocks()
	uses := false
	for _, b := range blocks {
		uses = uses || b.Type == "tool_use"
	}
	if first := blocks[0].Type; uses && first != "thinking" && first != "redacted_thinking" {
		return fmt.Errorf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", i, first)
	}
	return nil
}
