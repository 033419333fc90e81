// Package anthropic is a brain.Brain for Claude, on Anthropic's Messages API through
// the official SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// The conversation the runner builds (OpenAI-shaped: system, user, assistant with tool
// calls, tool results) is mapped to the Messages API: the system prompt as system
// blocks, tool calls as tool_use blocks with the model's own input, tool results as
// tool_result blocks at the head of the next user turn, turns alternating. Text
// streams to the screen; a plain request is made when Config.Stream is off.
//
// Prompt caching: every request carries up to four cache_control breakpoints, on the
// last tool, the last system block, the message before the newest and the newest. The
// runner's prompt only grows at its end, so each request reads from the cache all that
// the one before wrote. Usage.PromptTokens counts every input token (Anthropic's
// input_tokens leaves out cache reads and writes); CachedTokens are the cache reads
// and CacheWriteTokens the writes, priced at 0.1 and 1.25 times the input price unless
// Config says otherwise.
//
// Extended thinking is off unless Config.ThinkingBudget is set. Thinking and
// redacted_thinking blocks come back as Reply.Thinking, sealed, and go back to the API
// unchanged on their assistant message, as a tool loop requires. A conversation that
// lacks them for its last tool-using turn (a resumed session: thinking is not
// journaled) is sent without thinking for that request, which the API accepts.
//
// Failures map to agent/brain's kinds (the same error values as every brain): 429 waits out
// retry-after, 529 overloaded and 5xx are retried with backoff, "prompt is too long"
// shrinks the prompt, 401 and 403 say to check ANTHROPIC_API_KEY. The key stays in
// memory only and is scrubbed from every error.
package anthropic
