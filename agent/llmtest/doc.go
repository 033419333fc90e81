// Package llmtest is a scripted OpenAI-compatible chat-completions server for tests
// and demos. A Cassette lists what the "model" answers, one step per request: text,
// tool calls, or a fault (rate limit, server error, cut stream, timeout, a model
// without tools, a body that is not JSON). The Server speaks the real wire format,
// streaming (SSE chunks with text and tool-call arguments in pieces) and not, and
// records every request so tests can check what the model was told.
//
// Usage is reported as a provider with automatic prefix caching reports it: prompt
// tokens from the size of the request's tools and messages, and cached tokens from
// the longest prefix shared with a recent request, in 128-token blocks from 1,024
// tokens on (see Server). A cassette's "cache" says in which wire format ("openai",
// the default; "deepseek"; or "none"), and a step may script its own usage, cached
// tokens included. A cassette's "price" (dollars per million tokens) prices the
// scripted model like a hosted one, so a demo shows its bill. PromptTexts and
// SharedPrefix let a test measure how much of each prompt repeated the one before.
//
// The same Server answers POST /v1/messages in Anthropic's Messages API (streamed
// SSE events and not), with Anthropic's explicit prompt cache: cache_control
// breakpoints, a 20-block lookback, cache reads and writes in usage (see anthropic.go).
// A step's "thinking" is sent as a signed thinking block when the request turns
// thinking on, and the server checks the signature when the block comes back.
//
// NewBrain wires a cassette to an agent/openai Brain, so scripted play goes through
// the same client code as a real model; AnthropicConfig points an agent/anthropic
// Brain at the Messages API route.
package llmtest
