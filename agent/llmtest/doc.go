// Package llmtest is a scripted OpenAI-compatible chat-completions server for tests
// and demos. A Cassette lists what the "model" answers, one step per request: text,
// tool calls, or a fault (rate limit, server error, cut stream, timeout, a model
// without tools, a body that is not JSON). The Server speaks the real wire format,
// streaming (SSE chunks with text and tool-call arguments in pieces) and not, and
// records every request so tests can check what the model was told.
//
// NewBrain wires a cassette to an agent/openai Brain, so scripted play goes through
// the same client code as a real model.
package llmtest
