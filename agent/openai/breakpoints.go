package openai

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/coplayhq/coplay/agent/models"
)

// Claude caches a prompt only up to the breakpoints the request marks, also through
// OpenRouter, which documents cache_control on the text parts of a message for its
// Anthropic models. go-openai has no field for it, so this transport rewrites the
// request on its way out: the system message and the newest message become one text
// part each, marked {"type": "ephemeral"}. Two breakpoints of Anthropic's four: the
// tools and the system prompt are read from the cache whatever the conversation, and
// the conversation up to the newest message is read at the next request.

// cachesByBreakpoint says whether model on a server of dialect d caches only where the
// request marks it: Claude through OpenRouter.
func cachesByBreakpoint(d models.Dialect, model string) bool {
	return d == models.DialectOpenRouter && strings.HasPrefix(strings.ToLower(model), "anthropic/")
}

// markBreakpoints puts cache_control on the system message and the newest message of a
// chat request's JSON. ok is false when the body is not one (it is then sent as it was).
func markBreakpoints(body []byte) ([]byte, bool) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, false
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil || len(msgs) == 0 {
		return nil, false
	}
	marked := 0
	mark := func(i int) {
		var text string
		if json.Unmarshal(msgs[i]["content"], &text) != nil || text == "" {
			return // already parts, or nothing to mark
		}
		parts, _ := json.Marshal([]map[string]any{{"type": "text", "text": text, "cache_control": map[string]string{"type": "ephemeral"}}})
		msgs[i]["content"] = parts
		marked++
	}
	if r, _ := json.Marshal("system"); bytes.Equal(msgs[0]["role"], r) {
		mark(0)
	}
	for i := len(msgs) - 1; i > 0; i-- {
		before := marked
		mark(i)
		if marked > before {
			break
		}
	}
	if marked == 0 {
		return nil, false
	}
	m, err := json.Marshal(msgs)
	if err != nil {
		return nil, false
	}
	req["messages"] = m
	out, err := json.Marshal(req)
	return out, err == nil
}
