package brain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/secret"
)

// Kinds of failure. A model brain's errors are *Error values whose Kind is one of
// these, the same values for every brain, so a caller tests any brain's error with
// errors.Is(err, brain.ErrRateLimited) whichever provider it asked.
var (
	// ErrRateLimited is HTTP 429: too many requests or tokens for now.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer is an HTTP 5xx from the server (Anthropic's 529 overloaded too), or an
	// error event in the middle of a stream.
	ErrServer = errors.New("server error")
	// ErrTimeout means the server said nothing for the brain's timeout.
	ErrTimeout = errors.New("no answer in time")
	// ErrCut means the answer stopped before the model finished: the connection
	// closed mid-body, or a stream ended without a finish reason. Tool calls that
	// were still arriving are dropped, never returned as complete.
	ErrCut = errors.New("the answer was cut off before the model finished")
	// ErrMalformed means the server's answer was not in the provider's format.
	ErrMalformed = errors.New("malformed answer")
	// ErrNoTools means the model or server does not do tool calls, which coplay
	// needs to play at all.
	ErrNoTools = errors.New("the model does not support tool calls; coplay plays through tools, so pick a model that has them (e.g. gpt-4o-mini, qwen2.5, llama3.1)")
	// ErrAuth is HTTP 401 or 403: the key is missing, wrong or not allowed this model.
	// An Error of this kind names the variable to check (Error.KeyEnv).
	ErrAuth = errors.New("the server refused the API key")
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
	// retries with less of the conversation (Shrink) before it reports this.
	ErrContextLength = errors.New("the prompt is longer than the model accepts")
)

// Retryable reports whether another attempt may succeed after a failure of this kind.
func Retryable(kind error) bool {
	switch kind {
	case ErrRateLimited, ErrServer, ErrTimeout, ErrCut, ErrNetwork:
		return true
	}
	return false
}

// Error is a failed model call: what kind of failure, where, and what the server said.
// Its text never contains the API key.
type Error struct {
	Provider string // who was asked, the first word of the text: "openai", "anthropic"
	Kind     error  // one of the Err* values of this package
	Model    string // the model asked
	BaseURL  string // the server asked
	Status   int    // HTTP status, 0 when there was no HTTP answer
	Type     string // the provider's error type (Anthropic's overloaded_error, rate_limit_error...), when it gave one
	Attempts int    // how many requests were made in all
	Detail   string // the server's message or the transport's error, scrubbed of the key
	KeyEnv   string // the variable the key comes from, named when the key was refused

	// NoRetry says another attempt would fail the same way whatever Kind says (text
	// already shown to the person, a spend limit reached).
	NoRetry bool
	// Wait is what the server asked to wait before a retry (Retry-After), 0 for none.
	Wait time.Duration
}

// Error reads like "openai: gpt-4o-mini at https://api.openai.com/v1: rate limited
// (HTTP 429): Rate limit reached (gave up after 4 attempts)".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s at %s: %v", e.Provider, e.Model, e.BaseURL, e.Kind)
	if e.Kind == ErrAuth && e.KeyEnv != "" {
		fmt.Fprintf(&b, " (check %s)", e.KeyEnv)
	}
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

// Endpoint is where a brain sends its calls, as its errors name it: the provider, the
// variable its key comes from, the model and the API root; and the key, which is
// scrubbed from whatever a server says back.
type Endpoint struct {
	Provider, KeyEnv, Model, BaseURL, Key string
}

// Stopped is the error of a call cut short because ctx ended: it wraps ctx's cause.
func (p Endpoint) Stopped(ctx context.Context) error {
	return fmt.Errorf("%s: %s at %s: stopped: %w", p.Provider, p.Model, p.BaseURL, context.Cause(ctx))
}

// Mark fills in where e's call went and how many attempts it took, and scrubs the
// key from its Detail.
func (p Endpoint) Mark(e *Error, attempts int) {
	e.Provider, e.KeyEnv = p.Provider, p.KeyEnv
	e.Model, e.BaseURL, e.Attempts = p.Model, p.BaseURL, attempts
	e.Detail = secret.New(p.Key).String(e.Detail)
}

// ByStatus classifies an HTTP error answer by its status, the provider's error type
// (Anthropic's, https://docs.anthropic.com/en/api/errors; "" where the provider's types
// say nothing more than the status) and its message. Status 0 is an error event inside
// a 200 stream.
func ByStatus(status int, typ, msg string) *Error {
	e := &Error{Status: status, Type: typ, Detail: msg}
	switch {
	case status == 413 || typ == "request_too_large" || (status >= 400 && status < 500 && contextLengthMessage(msg)):
		e.Kind = ErrContextLength
	case noToolsMessage(msg):
		e.Kind = ErrNoTools
	case status == 429 || typ == "rate_limit_error":
		e.Kind = ErrRateLimited
	case status == 529 || typ == "overloaded_error" || typ == "api_error" || status >= 500:
		e.Kind = ErrServer
	case status == 401 || status == 403 || typ == "authentication_error" || typ == "permission_error":
		e.Kind = ErrAuth
	case status == 0:
		// An error event inside a 200 stream of a type not named above: the server
		// failed mid-answer.
		e.Kind = ErrServer
	case status == 408 || typ == "timeout_error":
		e.Kind = ErrTimeout
	default:
		e.Kind = ErrRejected
	}
	return e
}

// contextLengthMessage recognises what servers say when a prompt is too long: OpenAI
// "maximum context length is 8192 tokens" / context_length_exceeded, vLLM "longer than
// the maximum model length", llama.cpp "exceeds the available context size", Anthropic
// "prompt is too long: 212345 tokens > 200000 maximum" and "input length and max_tokens
// exceed context limit", proxies "request entity too large".
func contextLengthMessage(msg string) bool {
	return mentions(msg, "context_length_exceeded", "context length", "context window", "context size",
		"maximum model length", "prompt is too long", "exceed context limit", "too many tokens", "entity too large",
		"payload too large", "request too large", "input is too long", "reduce the length")
}

// noToolsMessage recognises what servers say when the model cannot call tools:
// Ollama "<model> does not support tools", vLLM "auto" tool choice requires
// --enable-auto-tool-choice, llama.cpp "tools param requires --jinja flag",
// OpenRouter "No endpoints found that support tool use". Every Claude model calls
// tools, but a proxy may serve another model on Anthropic's wire.
func noToolsMessage(msg string) bool {
	return mentions(msg, "tool") &&
		mentions(msg, "does not support", "not supported", "unsupported", "requires --", "--jinja", "support tool use", "enable-auto-tool-choice")
}

// mentions reports whether msg holds one of the phrases (lower case), whatever its case.
func mentions(msg string, phrases ...string) bool {
	m := strings.ToLower(msg)
	for _, p := range phrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}
