// Package openai is a brain.Brain backed by any OpenAI-compatible chat-completions
// endpoint: OpenAI itself, OpenRouter, Ollama, LM Studio, vLLM, llama.cpp.
//
// It speaks the wire format through github.com/sashabaranov/go-openai, streams text
// and tool calls, asks for token usage in streams and estimates it when the server
// gives none, and retries rate limits, server errors, timeouts and dropped streams
// with bounded backoff (honouring Retry-After). Tool-call arguments are passed through
// exactly as the model sent them: the runner validates them, not the brain.
//
// The API key is kept in memory only. It is never part of an error message: errors
// from the server are scrubbed of it before they are returned.
package openai
