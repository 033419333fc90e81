package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
)

// Kinds of failure. A Brain's errors are *Error values whose Kind is one of these, so
// callers can test them with errors.Is.
var (
	// ErrRateLimited is HTTP 429: too many requests or tokens for now.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer is an HTTP 5xx from the server.
	ErrServer = errors.New("server error")
	// ErrTimeout means the server said nothing for Config.Timeout.
	ErrTimeout = errors.New("no answer in time")
	// ErrCut means the answer stopped before the model finished: the connection
	// closed mid-body, or a stream ended without a finish_reason. Tool calls that
	// were still arriving are dropped, never returned as complete.
	ErrCut = errors.New("the answer was cut off before the model finished")
	// ErrMalformed means the server's answer was not an OpenAI chat completion.
	ErrMalformed = errors.New("malformed answer")
	// ErrNoTools means the model or server does not do tool calls, which coplay
	// needs to play at all.
	ErrNoTools = errors.New("the model does not support tool calls; coplay plays through tools, so pick a model that has them (e.g. gpt-4o-mini, qwen2.5, llama3.1)")
	// ErrAuth is HTTP 401 or 403: the key is missing, wrong or not allowed this model.
	ErrAuth = errors.New("the server refused the API key (check OPENAI_API_KEY)")
	// ErrSchema is a 400 refusing a keyword of a tool's schema (Gemini's "Unknown name
	// \"additionalProperties\""): the brain leaves the keyword out and asks again
	// before it reports this, naming the tool and the keyword.
	ErrSchema = errors.New("the server refused a tool's schema")
	// ErrRejected is any other HTTP 4xx: the server understood and refused.
	ErrRejected = errors.New("request refused")
	// ErrUnreachable means nothing answered at the base URL.
	ErrUnreachable = errors.New("cannot reach the server (is it running, and is the base URL right?)")
	// ErrNetwork is a connection failure other than the above.
	ErrNetwork = errors.New("connection failed")
	// ErrContextLength means the prompt is longer than the model or server accepts
	// (OpenAI's context_length_exceeded, HTTP 413, or a 400 saying so). The brain
	// retries with less of the conversation before it reports this.
	ErrContextLength = errors.New("the prompt is longer than the model accepts")
)

// Error is a failed model call: what kind of failure, where, and what the server said.
// Its text never contains the API key.
type Error struct {
	Kind     error  // one of the Err* values of this package
	Model    string // the model asked
	BaseURL  string // the server asked
	Status   int    // HTTP status, 0 when there was no HTTP answer
	Attempts int    // how many requests were made in all
	Detail   string // the server's message or the transport's error, scrubbed of the key

	noRetry bool // another attempt would fail the same way, whatever the kind says
}

// Error reads like "openai: gpt-4o-mini at https://api.openai.com/v1: rate limited
// (HTTP 429): Rate limit reached (gave up after 4 attempts)".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openai: %s at %s: %v", e.Model, e.BaseURL, e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the Kind, so errors.Is(err, ErrRateLimited) works.
func (e *Error) Unwrap() error { return e.Kind }

// Retryable reports whether another attempt may succeed after a failure of this kind,
// for every brain whose errors use these kinds (agent/anthropic's too).
func Retryable(kind error) bool {
	switch kind {
	case ErrRateLimited, ErrServer, ErrTimeout, ErrCut, ErrNetwork:
		return true
	}
	return false
}

// classify turns an error from go-openai or the transport into an *Error (without
// Model, BaseURL and Attempts, which the caller knows).
func classify(err error) *Error {
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	var synErr *json.SyntaxError
	var typErr *json.UnmarshalTypeError
	var opErr *net.OpError
	switch {
	case errors.As(err, &apiErr):
		e := byStatus(apiErr.HTTPStatusCode, apiErr.Message)
		if code, _ := apiErr.Code.(string); code == "context_length_exceeded" && apiErr.HTTPStatusCode < 500 {
			e.Kind = ErrContextLength
		}
		return e
	case errors.As(err, &reqErr):
		detail := strings.TrimSpace(string(reqErr.Body))
		if detail == "" && reqErr.Err != nil {
			detail = reqErr.Err.Error()
		}
		return byStatus(reqErr.HTTPStatusCode, clip(detail, 300))
	case errors.As(err, &synErr), errors.As(err, &typErr):
		return &Error{Kind: ErrMalformed, Detail: "not a chat completion: " + err.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Kind: ErrCut, Detail: "the connection closed mid-answer"}
	case errors.Is(err, goopenai.ErrTooManyEmptyStreamMessages):
		return &Error{Kind: ErrMalformed, Detail: "the stream carried no data lines (not an OpenAI event stream)"}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &Error{Kind: ErrUnreachable, Detail: err.Error()}
	}
	return &Error{Kind: ErrNetwork, Detail: err.Error()}
}

// byStatus classifies an HTTP error answer.
func byStatus(status int, msg string) *Error {
	e := &Error{Status: status, Detail: msg}
	switch {
	case status == 413 || (status >= 400 && status < 500 && contextLengthMessage(msg)):
		e.Kind = ErrContextLength
	case noToolsMessage(msg):
		e.Kind = ErrNoTools
	case status == 429:
		e.Kind = ErrRateLimited
	case status == 0:
		// An error event inside a 200 stream: the server failed mid-answer.
		e.Kind = ErrServer
	case status >= 500:
		e.Kind = ErrServer
	case status == 401 || status == 403:
		e.Kind = ErrAuth
	case status == 408:
		e.Kind = ErrTimeout
	default:
		e.Kind = ErrRejected
	}
	return e
}

// contextLengthMessage recognises what servers say when a prompt is too long: OpenAI
// "maximum context length is 8192 tokens" / context_length_exceeded, vLLM "longer than
// the maximum model length", llama.cpp "exceeds the available context size", Anthropic
// compatible "prompt is too long", proxies "request entity too large".
func contextLengthMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"context_length_exceeded", "context length", "context window", "context size",
		"maximum model length", "prompt is too long", "too many tokens", "entity too large", "payload too large",
		"input is too long", "reduce the length"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// noToolsMessage recognises what servers say when the model cannot call tools:
// Ollama "<model> does not support tools", vLLM "auto" tool choice requires
// --enable-auto-tool-choice, llama.cpp "tools param requires --jinja flag",
// OpenRouter "No endpoints found that support tool use".
func noToolsMessage(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "tool") {
		return false
	}
	for _, s := range []string{"does not support", "not supported", "unsupported", "requires --", "--jinja", "support tool use", "enable-auto-tool-choice"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
